/**
 * XXH3_64bits (xxHash 0.8, no seed, the default secret) in JavaScript with BigInt, for the first
 * few KiB a process checksums: a command that reads only a file's footer and meta blocks
 * (`props`) then loads no native library (koffi alone took ~40 ms of props' ~70 ms). About
 * 0.1 ms a KiB, so xxh3.ts hands anything beyond a small budget to libxxhash or @node-rs/xxhash.
 * Its structure follows the xxHash specification (doc/xxhash_spec.md): short inputs (0-16,
 * 17-128, 129-240 bytes) mixed in 16-byte pairs, longer ones through 8 accumulators over
 * 64-byte stripes, scrambled every 1,024 bytes.
 */

const M64 = (1n << 64n) - 1n
const PRIME32_1 = 0x9e3779b1n
const PRIME32_2 = 0x85ebca77n
const PRIME32_3 = 0xc2b2ae3dn
const PRIME64_1 = 0x9e3779b185ebca87n
const PRIME64_2 = 0xc2b2ae3d27d4eb4fn
const PRIME64_3 = 0x165667b19e3779f9n
const PRIME64_4 = 0x85ebca77c2b2ae63n
const PRIME64_5 = 0x27d4eb2f165667c5n
const PRIME_MX1 = 0x165667919e3779f9n
const PRIME_MX2 = 0x9fb21c651e98df25n

/** XXH3's default secret (kSecret, 192 bytes). */
const SECRET = Uint8Array.from(
  Buffer.from(
    'b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671fcb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c' +
      '3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364' +
      'eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e',
    'hex',
  ),
)
const SECRET_VIEW = new DataView(SECRET.buffer)
const STRIPE = 64
const STRIPES_PER_BLOCK = (SECRET.length - STRIPE) / 8
const BLOCK = STRIPE * STRIPES_PER_BLOCK

const secret64 = (at: number): bigint => SECRET_VIEW.getBigUint64(at, true)
const secret32 = (at: number): bigint => BigInt(SECRET_VIEW.getUint32(at, true))

function mulFold64(a: bigint, b: bigint): bigint {
  const p = a * b
  return (p ^ (p >> 64n)) & M64
}

function avalanche(h: bigint): bigint {
  h ^= h >> 37n
  h = (h * PRIME_MX1) & M64
  return h ^ (h >> 32n)
}

function xxh64Avalanche(h: bigint): bigint {
  h ^= h >> 33n
  h = (h * PRIME64_2) & M64
  h ^= h >> 29n
  h = (h * PRIME64_3) & M64
  return h ^ (h >> 32n)
}

const rotl64 = (v: bigint, r: bigint): bigint => ((v << r) | (v >> (64n - r))) & M64

function swap64(v: bigint): bigint {
  let r = 0n
  for (let i = 0; i < 8; i++) {
    r = (r << 8n) | (v & 0xffn)
    v >>= 8n
  }
  return r
}

/** The low 32 bits of XXH3_64bits of `bytes[0, length)`. */
export function xxh3Low32Js(bytes: Uint8Array, length = bytes.length): number {
  if (length > bytes.length) throw new RangeError(`xxh3: ${length} bytes asked of ${bytes.length}`)
  return Number(xxh3Js(bytes, length) & 0xffffffffn)
}

/** XXH3_64bits of `bytes[0, length)`. */
export function xxh3Js(bytes: Uint8Array, length = bytes.length): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, length)
  const u64 = (at: number): bigint => view.getBigUint64(at, true)
  const len = BigInt(length)
  const mix16 = (at: number, s: number): bigint => mulFold64(u64(at) ^ secret64(s), u64(at + 8) ^ secret64(s + 8))
  if (length <= 16) {
    if (length > 8) {
      const lo = u64(0) ^ (secret64(24) ^ secret64(32))
      const hi = u64(length - 8) ^ (secret64(40) ^ secret64(48))
      return avalanche((len + swap64(lo) + hi + mulFold64(lo, hi)) & M64)
    }
    if (length >= 4) {
      const in1 = BigInt(view.getUint32(0, true))
      const in2 = BigInt(view.getUint32(length - 4, true))
      let h = (in2 + (in1 << 32n)) ^ (secret64(8) ^ secret64(16))
      h ^= rotl64(h, 49n) ^ rotl64(h, 24n)
      h = (h * PRIME_MX2) & M64
      h ^= (h >> 35n) + len
      h = (h * PRIME_MX2) & M64
      return h ^ (h >> 28n)
    }
    if (length > 0) {
      const combined = (BigInt(bytes[0]) << 16n) | (BigInt(bytes[length >> 1]) << 24n) | BigInt(bytes[length - 1]) | (len << 8n)
      return xxh64Avalanche(combined ^ (secret32(0) ^ secret32(4)))
    }
    return xxh64Avalanche(secret64(56) ^ secret64(64))
  }
  if (length <= 128) {
    let acc = (len * PRIME64_1) & M64
    if (length > 32) {
      if (length > 64) {
        if (length > 96) acc += mix16(48, 96) + mix16(length - 64, 112)
        acc += mix16(32, 64) + mix16(length - 48, 80)
      }
      acc += mix16(16, 32) + mix16(length - 32, 48)
    }
    acc += mix16(0, 0) + mix16(length - 16, 16)
    return avalanche(acc & M64)
  }
  if (length <= 240) {
    let acc = (len * PRIME64_1) & M64
    for (let i = 0; i < 8; i++) acc += mix16(16 * i, 16 * i)
    acc = avalanche(acc & M64)
    const rounds = Math.floor(length / 16)
    for (let i = 8; i < rounds; i++) acc += mix16(16 * i, 16 * (i - 8) + 3)
    acc += mix16(length - 16, 136 - 17)
    return avalanche(acc & M64)
  }
  // Long inputs: 8 accumulators over 64-byte stripes, the secret advancing 8 bytes a stripe.
  const acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1]
  const stripe = (at: number, s: number): void => {
    for (let i = 0; i < 8; i++) {
      const v = u64(at + 8 * i)
      const k = v ^ secret64(s + 8 * i)
      acc[i ^ 1] = (acc[i ^ 1] + v) & M64
      acc[i] = (acc[i] + (k & 0xffffffffn) * (k >> 32n)) & M64
    }
  }
  const blocks = Math.floor((length - 1) / BLOCK)
  for (let b = 0; b < blocks; b++) {
    for (let n = 0; n < STRIPES_PER_BLOCK; n++) stripe(b * BLOCK + n * STRIPE, n * 8)
    for (let i = 0; i < 8; i++) {
      let a = acc[i]
      a ^= a >> 47n
      a ^= secret64(SECRET.length - STRIPE + 8 * i)
      acc[i] = (a * PRIME32_1) & M64
    }
  }
  const stripes = Math.floor((length - 1 - BLOCK * blocks) / STRIPE)
  for (let n = 0; n < stripes; n++) stripe(blocks * BLOCK + n * STRIPE, n * 8)
  stripe(length - STRIPE, SECRET.length - STRIPE - 7)
  let result = (len * PRIME64_1) & M64
  for (let i = 0; i < 4; i++) result += mulFold64(acc[2 * i] ^ secret64(11 + 16 * i), acc[2 * i + 1] ^ secret64(11 + 16 * i + 8))
  return avalanche(result & M64)
}

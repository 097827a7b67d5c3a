/**
 * Primitive encodings used throughout the SST format (RocksDB `util/coding.h`):
 * little-endian fixed-width integers and LEB128-style varints.
 *
 * All readers take an absolute `base` file offset so that errors can say where
 * in the file the bad bytes are.
 */
import { CorruptionError } from './errors.js'
import { exactTextBytes } from './exact-text.js'

/** Longest legal varint32 (7 bits per byte). */
export const MAX_VARINT32_BYTES = 5
/** Longest legal varint64. */
export const MAX_VARINT64_BYTES = 10

const TEXT_DECODER = new TextDecoder('utf-8', { fatal: false })

/**
 * A forward-only cursor over a byte array. `base` is the file offset of
 * `bytes[0]`, used only for error messages.
 */
export class Cursor {
  constructor(
    readonly bytes: Uint8Array,
    public pos = 0,
    readonly end = bytes.length,
    readonly base = 0,
    readonly what = 'block',
  ) {}

  get remaining(): number {
    return this.end - this.pos
  }

  /** File offset of the cursor position. */
  get fileOffset(): number {
    return this.base + this.pos
  }

  fail(message: string): never {
    throw new CorruptionError(`${this.what}: ${message}`, this.base + this.pos)
  }

  u8(): number {
    if (this.pos >= this.end) this.fail('unexpected end of data reading a byte')
    return this.bytes[this.pos++]
  }

  fixed32(): number {
    if (this.end - this.pos < 4) this.fail('unexpected end of data reading a fixed32')
    const v = readFixed32(this.bytes, this.pos)
    this.pos += 4
    return v
  }

  fixed64(): bigint {
    if (this.end - this.pos < 8) this.fail('unexpected end of data reading a fixed64')
    const v = readFixed64(this.bytes, this.pos)
    this.pos += 8
    return v
  }

  varint32(): number {
    const b = this.bytes
    let result = 0
    // A scale, not 2 ** shift: Math.pow is a call into the runtime, per byte.
    let scale = 1
    for (let shift = 0; shift <= 28; shift += 7) {
      if (this.pos >= this.end) this.fail('truncated varint32')
      const byte = b[this.pos++]
      if (shift === 28 && byte > 0x0f) this.fail('varint32 overflows 32 bits')
      result += (byte & 0x7f) * scale
      scale *= 128
      if (byte < 0x80) return result
    }
    return this.fail('varint32 longer than 5 bytes')
  }

  /** A varint64 that must fit in a JS number (offsets, sizes, counts). */
  varint64(): number {
    const v = this.varint64Big()
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`varint64 value ${v} is too large`)
    return Number(v)
  }

  varint64Big(): bigint {
    const b = this.bytes
    // Fast path: up to 7 bytes (49 bits) accumulate exactly in a double.
    let result = 0
    let scale = 1
    const start = this.pos
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.end) this.fail('truncated varint64')
      const byte = b[this.pos++]
      result += (byte & 0x7f) * scale
      scale *= 128
      if (byte < 0x80) return BigInt(result)
    }
    this.pos = start
    let big = 0n
    for (let i = 0; i < MAX_VARINT64_BYTES; i++) {
      if (this.pos >= this.end) this.fail('truncated varint64')
      const byte = b[this.pos++]
      if (i === 9 && byte > 1) this.fail('varint64 overflows 64 bits')
      big |= BigInt(byte & 0x7f) << BigInt(7 * i)
      if (byte < 0x80) return big
    }
    return this.fail('varint64 longer than 10 bytes')
  }

  /** Signed varint64 (zigzag), as RocksDB `GetVarsignedint64`. */
  varsigned64(): number {
    const u = this.varint64()
    // zigzag decode without losing precision above 2^31
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2
  }

  bytesOf(n: number): Uint8Array {
    if (n < 0 || n > this.end - this.pos) this.fail(`length ${n} runs past the end (${this.end - this.pos} bytes left)`)
    const out = this.bytes.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  /** varint32 length followed by that many bytes. */
  lengthPrefixed(): Uint8Array {
    return this.bytesOf(this.varint32())
  }
}

/** A varint32 of up to 4 bytes (< 2^28) at the start of `b`, or -1 (none, or longer: a Cursor reads it, or says why not). Without a Cursor: once per block of a Snappy file. */
export function shortVarint32(b: Uint8Array): number {
  let result = 0
  for (let i = 0, scale = 1; i < 4 && i < b.length; i++, scale *= 128) {
    const byte = b[i]
    result += (byte & 0x7f) * scale
    if (byte < 0x80) return result
  }
  return -1
}

export function readFixed32(b: Uint8Array, pos: number): number {
  return (b[pos] | (b[pos + 1] << 8) | (b[pos + 2] << 16)) + b[pos + 3] * 0x1000000
}

export function readFixed64(b: Uint8Array, pos: number): bigint {
  return BigInt(readFixed32(b, pos)) | (BigInt(readFixed32(b, pos + 4)) << 32n)
}

export function writeFixed32(b: Uint8Array, pos: number, v: number): void {
  b[pos] = v & 0xff
  b[pos + 1] = (v >>> 8) & 0xff
  b[pos + 2] = (v >>> 16) & 0xff
  b[pos + 3] = (v >>> 24) & 0xff
}

/** Encode a non-negative integer as a varint (for tests and the writer). */
export function encodeVarint(value: number | bigint): Uint8Array {
  // A safe integer needs no BigInt (an index block encodes two a data block: BigInt made them ~1 us each).
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    const out = new Uint8Array(varintLength(value))
    writeVarint(out, 0, value)
    return out
  }
  let v = BigInt(value)
  if (v < 0n) throw new RangeError('varint of a negative value')
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Uint8Array.from(out)
}

/** Write the varint of a non-negative safe integer at `pos` of `out` (room checked by the caller): the position after it. */
export function writeVarint(out: Uint8Array, pos: number, value: number): number {
  // Bit operations hold 32 bits: the high part by division.
  while (value >= 0x80) {
    out[pos++] = (value % 128) | 0x80
    value = Math.floor(value / 128)
  }
  out[pos++] = value
  return pos
}

export function utf8(bytes: Uint8Array): string {
  return TEXT_DECODER.decode(bytes)
}

/** The lower-case hex digits as bytes, for encoders that write hex byte by byte. */
export const HEX_DIGITS: Uint8Array = Uint8Array.from(Buffer.from('0123456789abcdef', 'latin1'))

/** A key for a message: escaped, at most `max` bytes of it, the rest counted ("...(+N bytes)"). */
export function escapeBytesShort(b: Uint8Array, max = 48): string {
  if (b.length <= max) return escapeBytes(b)
  return `${escapeBytes(b.subarray(0, max))}...(+${b.length - max} bytes)`
}

/** Scratch output for escapeBytes: worst case 4 bytes (\xNN) per input byte; grown on demand, reused. */
let escapeScratch = Buffer.allocUnsafe(4096)

/** Printable ASCII as is; other bytes as \xNN; backslash and quote escaped. */
export function escapeBytes(b: Uint8Array): string {
  // One pass writing ASCII bytes into a reused buffer, then one native latin1
  // decode: building the string a character at a time was the top self-time
  // function of `scan` (about 40% of a scan of mixed text/binary values).
  const need = b.length * 4
  if (escapeScratch.length < need) escapeScratch = Buffer.allocUnsafe(Math.max(need, escapeScratch.length * 2))
  const out = escapeScratch
  let o = 0
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (c >= 0x20 && c < 0x7f) {
      if (c === 0x5c || c === 0x27) out[o++] = 0x5c // \\ and \'
      out[o++] = c
    } else {
      out[o++] = 0x5c // \
      out[o++] = 0x78 // x
      out[o++] = HEX_DIGITS[c >> 4]
      out[o++] = HEX_DIGITS[c & 15]
    }
  }
  return out.toString('latin1', 0, o)
}

/**
 * A name or text read from a file (a meta block's name, a property's name or value), for people and JSON:
 * as it is when all printable ASCII, else its bytes (UTF-8, and a byte that was not UTF-8 as itself:
 * format/exact-text.ts) escaped as escapeBytes escapes keys, so that damage never puts raw control
 * bytes into a line.
 */
export function escapeText(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return s
  return escapeBytes(exactTextBytes(s))
}

/** Lower-case hex of the bytes: the one hex encoder (reports, sst_dump emulation, the browser). */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new RangeError(`not a hex string: ${hex}`)
  return Uint8Array.from(Buffer.from(hex, 'hex'))
}

/** Whether two byte strings are equal. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
}

/** Bytes of the varint encoding of `n` (n < 2^53). */
export function varintLength(n: number): number {
  let len = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    len++
  }
  return len
}

/** Bytewise comparison (RocksDB's BytewiseComparator). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength))
}

const utf8Encoder = new TextEncoder()

/**
 * A user key from a caller: bytes as they are, a string as its UTF-8 bytes. Anything else is
 * a TypeError saying what is expected (plain JavaScript callers get no type check otherwise).
 */
export function userKeyBytes(key: Uint8Array | string, what = 'key'): Uint8Array {
  if (key instanceof Uint8Array) return key
  if (typeof key === 'string') return utf8Encoder.encode(key)
  throw new TypeError(`${what} must be a Uint8Array (or Buffer) or a string (UTF-8), not ${describeValue(key)}`)
}

/** Bytes from a caller (an internal key, a value); anything else is a TypeError saying what is expected. */
export function requireBytes(v: Uint8Array, what: string): Uint8Array {
  if (v instanceof Uint8Array) return v
  throw new TypeError(`${what} must be a Uint8Array (or Buffer), not ${describeValue(v)}`)
}

function describeValue(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return `an object (${(v as object).constructor?.name ?? 'Object'})`
  return `a ${typeof v}`
}

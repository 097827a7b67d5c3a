/**
 * Block checksums (RocksDB `table/format.cc` ComputeBuiltinChecksum*,
 * `util/crc32c.h`, `table/format.h` ChecksumModifierForContext).
 *
 * Every function works on the caller's bytes in place (no copies): they run
 * over every block of multi-GB files.
 */
import { createRequire } from 'node:module'
import { NotSupportedError } from '../format/errors.js'
import { crc32cJs } from './crc32c.js'
import { kernelAddon } from './addon.js'
import { xxh3Low32, xxh3NativeFromStart } from './xxh3.js'
import { ChecksumType } from '../format/checksum-type.js'

// Libraries load on first use: a file uses one checksum type, so it pays for one.
const require = createRequire(import.meta.url)
let xxLib: typeof import('@node-rs/xxhash') | undefined
/**
 * The first bytes a process checksums are CRC'd in JavaScript: a footer and its properties and
 * metaindex blocks take less there than a library's load. No more than that: cold, JavaScript took
 * ~10 ms for 256 KiB of data blocks that the addon (SSE 4.2, ~0.5 ms to load) CRCs in a fraction of one.
 */
const JS_CRC32C_BUDGET = 8 * 1024
let jsCrcBudget = JS_CRC32C_BUDGET
let crcImpl: ((b: Uint8Array) => number) | undefined
const crc32c = (b: Uint8Array): number => {
  if (!crcImpl && b.length <= jsCrcBudget) {
    jsCrcBudget -= b.length
    return crc32cJs(b)
  }
  return (crcImpl ??= loadCrc32c())(b)
}

/**
 * Checksum natively from the first byte: for a command about to read a whole file's data blocks,
 * which loads the native hashes for them anyway. The JavaScript budgets above are for a process
 * that reads a few metadata blocks (props); cold, the drop-in's check of an 8 MB file spent ~2 ms
 * hashing its first 8 KiB in JavaScript before loading the addon for its data blocks.
 */
export function checksumNativelyFromStart(): void {
  jsCrcBudget = 0
  xxh3NativeFromStart()
}

/** The addon's CRC where it loads and the CPU has SSE 4.2, else @node-rs/crc32 (~3-10 ms to load). */
function loadCrc32c(): (b: Uint8Array) => number {
  const addon = kernelAddon()
  if (addon && typeof addon.crc32c === 'function' && (addon.init() & 4) !== 0) return (b) => addon.crc32c(b, b.length)
  const lib = require('@node-rs/crc32') as typeof import('@node-rs/crc32')
  return (b) => lib.crc32c(b)
}
const xxhash = () => (xxLib ??= require('@node-rs/xxhash') as typeof import('@node-rs/xxhash'))

// The type byte and its names belong to the format; re-exported for the codec's callers.
export { ChecksumType, type ChecksumTypeValue, checksumTypeName } from '../format/checksum-type.js'

const CRC_MASK_DELTA = 0xa282ead8

/** Stored CRCs are masked so that a CRC over data containing CRCs stays well-distributed. */
export function maskCrc32c(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + CRC_MASK_DELTA) >>> 0
}

export function unmaskCrc32c(masked: number): number {
  const rot = (masked - CRC_MASK_DELTA) >>> 0
  return ((rot >>> 17) | (rot << 15)) >>> 0
}

/** Multiplier RocksDB uses to fold the last byte into an XXH3 checksum. */
const XXH3_LAST_BYTE_MULTIPLIER = 0x6b9083d9

/**
 * The uint32 RocksDB stores for `bytes` (before any context modifier).
 *
 * For a block, `bytes` is the payload followed by the compression-type byte
 * (i.e. the `size + 1` bytes starting at the handle offset); for the fv ≥ 6
 * footer, the 53 footer bytes with the checksum field zeroed.
 *
 * XXH3 is not XXH3 of all bytes: RocksDB hashes all but the last byte and
 * XORs in `lastByte * 0x6b9083d9` (so the type byte needs no streaming state).
 */
export function blockChecksum(type: number, bytes: Uint8Array): number {
  switch (type) {
    case ChecksumType.None:
      return 0
    case ChecksumType.CRC32c:
      return maskCrc32c(crc32c(bytes))
    case ChecksumType.xxHash:
      return xxhash().xxh32(bytes, 0) >>> 0
    case ChecksumType.xxHash64:
      return Number(xxhash().xxh64(bytes, 0n) & 0xffffffffn)
    case ChecksumType.XXH3: {
      const n = bytes.length
      if (n === 0) return 0 // RocksDB's special case: no last byte to fold in
      const head = xxh3Low32(bytes, n - 1)
      return (head ^ Math.imul(bytes[n - 1], XXH3_LAST_BYTE_MULTIPLIER)) >>> 0
    }
    default:
      throw new NotSupportedError(`unknown checksum type ${type}`)
  }
}

/**
 * blockChecksum of a block's payload followed by its compression-type byte, without joining them: what
 * a reader verifies of a block whose payload is apart from its trailer (recompress's blocks, counted,
 * not written).
 */
export function blockChecksumOfPayload(type: number, payload: Uint8Array, compressionType: number): number {
  switch (type) {
    case ChecksumType.None:
      return 0
    case ChecksumType.CRC32c:
      return maskCrc32c(crc32cJs(Uint8Array.of(compressionType), crc32c(payload)))
    case ChecksumType.XXH3:
      // All bytes but the last hashed, the last (the type byte) folded in: the payload is what is hashed.
      return (xxh3Low32(payload, payload.length) ^ Math.imul(compressionType, XXH3_LAST_BYTE_MULTIPLIER)) >>> 0
    default: {
      const whole = new Uint8Array(payload.length + 1)
      whole.set(payload)
      whole[payload.length] = compressionType
      return blockChecksum(type, whole)
    }
  }
}

/**
 * fv ≥ 6 context modifier: stored = checksum + modifier (mod 2^32), binding
 * each block to its file offset and to the file (random per-file base).
 * `offset` is the block handle offset (or the footer's file offset).
 */
export function contextModifier(base: number, offset: number): number {
  if (base === 0) return 0
  const lo = offset % 0x1_0000_0000
  const hi = Math.floor(offset / 0x1_0000_0000)
  return (base ^ ((lo + hi) >>> 0)) >>> 0
}

/** Apply the context modifier to a plain checksum (what a writer stores). */
export function addContext(checksum: number, modifier: number): number {
  return (checksum + modifier) >>> 0
}

/** Remove the context modifier from a stored checksum (what a reader compares). */
export function removeContext(stored: number, modifier: number): number {
  return (stored - modifier) >>> 0
}

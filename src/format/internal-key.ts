/**
 * Internal keys (RocksDB `db/dbformat.h`):
 *
 *   internal_key = user_key | fixed64 LE ((sequence << 8) | value_type)
 *
 * Ordered by user key ascending (user comparator), then by the packed trailer
 * descending, so newer versions of a key come first.
 */
import { readFixed32 } from './coding.js'
import { CorruptionError } from './errors.js'

export const INTERNAL_KEY_TRAILER_BYTES = 8
/** kMaxSequenceNumber = 2^56 - 1. */
export const MAX_SEQUENCE_NUMBER = (1n << 56n) - 1n

/** A sequence number: a JS number when exact, else a bigint (above 2^53). */
export type SequenceNumber = number | bigint

export interface ParsedInternalKey {
  userKey: Uint8Array
  seq: SequenceNumber
  type: number
}

/** Decode the 8-byte trailer at the end of `key`. */
export function parseInternalKey(key: Uint8Array, offset?: number): ParsedInternalKey {
  const n = key.length
  if (n < INTERNAL_KEY_TRAILER_BYTES) {
    throw new CorruptionError(`internal key of ${n} bytes is shorter than its 8-byte trailer`, offset)
  }
  const lo = readFixed32(key, n - 8)
  const hi = readFixed32(key, n - 4)
  return { userKey: key.subarray(0, n - 8), seq: sequenceFrom(lo, hi), type: lo & 0xff }
}

/** seq = packed >> 8, from the two 32-bit halves of the packed trailer. */
export function sequenceFrom(lo: number, hi: number): SequenceNumber {
  // hi holds bits 32..63 of the packed value => seq bits 24..55.
  if (hi < 0x200000) return hi * 0x1000000 + (lo >>> 8) // < 2^53: exact as a double
  return (BigInt(hi) << 24n) | BigInt(lo >>> 8)
}

export function packTrailer(seq: SequenceNumber, type: number): bigint {
  return (BigInt(seq) << 8n) | BigInt(type)
}

export function encodeInternalKey(userKey: Uint8Array, seq: SequenceNumber, type: number): Uint8Array {
  const out = new Uint8Array(userKey.length + 8)
  out.set(userKey)
  const packed = packTrailer(seq, type)
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
  view.setBigUint64(userKey.length, packed, true)
  return out
}

/**
 * An ingested file's global sequence number (rocksdb.external_sst_file.global_seqno)
 * stands in for every key's stored seqno: bytes 1..7 of the packed trailer
 * (seq << 8 | type) are replaced, the type byte stays as stored.
 */
export class GlobalSeqnoPatch {
  /** Bytes 1..7 of the packed trailer for the global seqno. */
  private readonly seqBytes: Uint8Array
  private buffer = new Uint8Array(64)

  constructor(readonly seqno: number) {
    const trailer = new Uint8Array(INTERNAL_KEY_TRAILER_BYTES)
    new DataView(trailer.buffer).setBigUint64(0, BigInt(seqno) << 8n, true)
    this.seqBytes = trailer.subarray(1)
  }

  /** The key as RocksDB reads it, in a reused buffer (valid until the next call); a key shorter than a trailer as it is. */
  apply(key: Uint8Array): Uint8Array {
    const n = key.length
    if (n < INTERNAL_KEY_TRAILER_BYTES) return key
    if (this.buffer.length < n) this.buffer = new Uint8Array(n * 2)
    return this.write(key, this.buffer.subarray(0, n))
  }

  /** As apply, into a new array. */
  copy(key: Uint8Array): Uint8Array {
    if (key.length < INTERNAL_KEY_TRAILER_BYTES) return key
    return this.write(key, new Uint8Array(key.length))
  }

  private write(key: Uint8Array, out: Uint8Array): Uint8Array {
    out.set(key)
    out.set(this.seqBytes, key.length - 7)
    return out
  }
}

/** Compares two user keys. */
export type UserComparator = (a: Uint8Array, b: Uint8Array) => number

function bytewise(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i]
    if (d !== 0) return d
  }
  return a.length - b.length
}

/** The names of the comparators userComparatorByName implements. */
export const KNOWN_COMPARATORS: readonly string[] = [
  'leveldb.BytewiseComparator',
  'rocksdb.ReverseBytewiseComparator',
  'leveldb.BytewiseComparator.u64ts',
  'rocksdb.ReverseBytewiseComparator.u64ts',
]

/** Comparators RocksDB ships, by the name stored in `rocksdb.comparator`. */
export function userComparatorByName(name: string): UserComparator | null {
  switch (name) {
    case 'leveldb.BytewiseComparator':
      return bytewise
    case 'rocksdb.ReverseBytewiseComparator':
      return (a, b) => bytewise(b, a)
    case 'leveldb.BytewiseComparator.u64ts':
      return compareWithU64Timestamp
    case 'rocksdb.ReverseBytewiseComparator.u64ts':
      return (a, b) => {
        const r = bytewise(a.subarray(0, a.length - 8), b.subarray(0, b.length - 8))
        return r !== 0 ? -r : compareU64TsDescending(a, b)
      }
    default:
      return null
  }
}

export const bytewiseComparator: UserComparator = bytewise

/** Key bytes ascending, then the fixed64 timestamp suffix descending (newer first). */
function compareWithU64Timestamp(a: Uint8Array, b: Uint8Array): number {
  const r = bytewise(a.subarray(0, a.length - 8), b.subarray(0, b.length - 8))
  return r !== 0 ? r : compareU64TsDescending(a, b)
}

function compareU64TsDescending(a: Uint8Array, b: Uint8Array): number {
  const ta = readU64(a, a.length - 8)
  const tb = readU64(b, b.length - 8)
  return ta === tb ? 0 : ta > tb ? -1 : 1
}

function readU64(b: Uint8Array, pos: number): bigint {
  if (pos < 0) return -1n
  return BigInt(readFixed32(b, pos)) | (BigInt(readFixed32(b, pos + 4)) << 32n)
}

/** bytewise() over a[0, an) and b[0, bn) without creating subarray views. */
function bytewisePrefix(a: Uint8Array, an: number, b: Uint8Array, bn: number): number {
  const n = Math.min(an, bn)
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i]
    if (d !== 0) return d
  }
  return an - bn
}

/**
 * `user` applied to a user key and the user key of internal key `b` (an index separator against
 * a stored key); in place for the bytewise comparator. Throws as parseInternalKey for a short `b`.
 */
export function compareUserToInternal(user: UserComparator, a: Uint8Array, b: Uint8Array): number {
  if (user === bytewise && b.length >= INTERNAL_KEY_TRAILER_BYTES) return bytewisePrefix(a, a.length, b, b.length - INTERNAL_KEY_TRAILER_BYTES)
  return user(a, parseInternalKey(b).userKey)
}

/** Internal-key order: user key ascending, then packed trailer descending. */
export function internalKeyComparator(user: UserComparator): (a: Uint8Array, b: Uint8Array) => number {
  const isBytewise = user === bytewise
  return (a, b) => {
    // The bytewise case compares in place: two subarray() views per comparison
    // were the top cost of `verify` (one comparison per entry).
    const r =
      isBytewise && a.length >= 8 && b.length >= 8
        ? bytewisePrefix(a, a.length - 8, b, b.length - 8)
        : user(a.subarray(0, a.length - 8), b.subarray(0, b.length - 8))
    if (r !== 0) return r
    const ahi = readFixed32(a, a.length - 4)
    const bhi = readFixed32(b, b.length - 4)
    if (ahi !== bhi) return ahi > bhi ? -1 : 1
    const alo = readFixed32(a, a.length - 8)
    const blo = readFixed32(b, b.length - 8)
    return alo === blo ? 0 : alo > blo ? -1 : 1
  }
}

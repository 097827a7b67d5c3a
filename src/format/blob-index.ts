/**
 * BlobDB blob indexes: the values of kTypeBlobIndex entries
 * (RocksDB `db/blob/blob_index.h`).
 *
 *   kInlinedTTL (0): type u8 | varint64 expiration | value (rest of the bytes)
 *   kBlob       (1): type u8 | varint64 file_number | varint64 offset | varint64 size | u8 compression
 *   kBlobTTL    (2): type u8 | varint64 expiration | the kBlob fields
 *
 * The blob forms must end exactly after the compression byte. file_number 0
 * marks a blob stored in the same SST (embedded blob records, 11.6+).
 */
import { Cursor, encodeVarint } from './coding.js'
import { CorruptionError } from './errors.js'

/** An unsigned 64-bit field: a number when exactly representable, else a bigint. */
export type U64 = number | bigint

export type BlobIndex =
  | { kind: 'inlinedTtl'; expiration: U64; value: Uint8Array }
  | { kind: 'blob'; fileNumber: U64; offset: U64; size: U64; compression: number }
  | { kind: 'blobTtl'; expiration: U64; fileNumber: U64; offset: U64; size: U64; compression: number }

export const BlobIndexType = { InlinedTTL: 0, Blob: 1, BlobTTL: 2 } as const

/** `kCurrentFileBlobIndexFileNumber`: a blob reference into the same SST file. */
export const SAME_FILE_BLOB_FILE_NUMBER = 0

const WHAT = 'blob index'

/** Read a varint64 field at `pos`; errors name the field (`blob index <name>: ...`). */
function readU64(bytes: Uint8Array, pos: number, base: number, name: string): [U64, number] {
  const c = new Cursor(bytes, pos, bytes.length, base, `${WHAT} ${name}`)
  const v = c.varint64Big()
  return [v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v, c.pos]
}

/**
 * Decode a kTypeBlobIndex value. `base` is the file offset of `bytes[0]`,
 * used in error messages. The inlined value is a view into `bytes`.
 */
export function decodeBlobIndex(bytes: Uint8Array, base = 0): BlobIndex {
  if (bytes.length === 0) throw new CorruptionError(`${WHAT}: empty value`, base)
  const type = bytes[0]
  if (type > BlobIndexType.BlobTTL) {
    throw new CorruptionError(`${WHAT}: unknown type ${type} (expected 0 inlined-TTL, 1 blob or 2 blob-TTL)`, base)
  }
  let pos = 1
  let expiration: U64 = 0
  if (type !== BlobIndexType.Blob) [expiration, pos] = readU64(bytes, pos, base, 'expiration')
  if (type === BlobIndexType.InlinedTTL) {
    return { kind: 'inlinedTtl', expiration, value: bytes.subarray(pos) }
  }
  const [fileNumber, afterFileNumber] = readU64(bytes, pos, base, 'file number')
  const [offset, afterOffset] = readU64(bytes, afterFileNumber, base, 'offset')
  const [size, afterSize] = readU64(bytes, afterOffset, base, 'size')
  pos = afterSize
  const left = bytes.length - pos
  if (left === 0) {
    throw new CorruptionError(`${WHAT}: missing the compression type byte after the blob size`, base + pos)
  }
  if (left > 1) {
    throw new CorruptionError(`${WHAT}: ${left - 1} unexpected trailing byte(s) after the compression type byte`, base + pos + 1)
  }
  const compression = bytes[pos]
  return type === BlobIndexType.Blob
    ? { kind: 'blob', fileNumber, offset, size, compression }
    : { kind: 'blobTtl', expiration, fileNumber, offset, size, compression }
}

/** Encode a blob index as RocksDB's BlobIndex::EncodeBlob / EncodeBlobTTL / EncodeInlinedTTL write it. */
export function encodeBlobIndex(index: BlobIndex): Uint8Array {
  const parts: Uint8Array[] = []
  if (index.kind === 'inlinedTtl') parts.push(Uint8Array.of(BlobIndexType.InlinedTTL), encodeVarint(index.expiration), index.value)
  else {
    if (index.kind === 'blob') parts.push(Uint8Array.of(BlobIndexType.Blob))
    else parts.push(Uint8Array.of(BlobIndexType.BlobTTL), encodeVarint(index.expiration))
    parts.push(encodeVarint(index.fileNumber), encodeVarint(index.offset), encodeVarint(index.size), Uint8Array.of(index.compression))
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

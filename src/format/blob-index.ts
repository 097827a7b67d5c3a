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
import { Cursor } from './coding.js'
import { CorruptionError } from './errors.js'
import { LATEST_ROCKSDB, rocksDbAtLeast, sliceToString, type SstDumpFormatOptions } from './value-type.js'

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
  let fileNumber: U64, offset: U64, size: U64
  ;[fileNumber, pos] = readU64(bytes, pos, base, 'file number')
  ;[offset, pos] = readU64(bytes, pos, base, 'offset')
  ;[size, pos] = readU64(bytes, pos, base, 'size')
  const left = bytes.length - pos
  if (left === 0) {
    throw new CorruptionError(`${WHAT}: missing the compression type byte after the blob size`, base + pos)
  }
  if (left > 1) {
    throw new CorruptionError(
      `${WHAT}: ${left - 1} unexpected trailing byte(s) after the compression type byte`,
      base + pos + 1,
    )
  }
  const compression = bytes[pos]
  return type === BlobIndexType.Blob
    ? { kind: 'blob', fileNumber, offset, size, compression }
    : { kind: 'blobTtl', expiration, fileNumber, offset, size, compression }
}

/**
 * RocksDB `CompressionTypeToString` as used by `BlobIndex::DebugString`.
 * Since 10.4 unknown codes print as `CustomXX` (0x80–0xFE) or `ReservedXX`;
 * earlier (release builds) they print as the empty string, and before 10.0
 * 0x40 printed as `ZSTDNotFinal`.
 */
export function compressionTypeToString(code: number, opts: Pick<SstDumpFormatOptions, 'rocksdb'> = {}): string {
  const version = opts.rocksdb ?? LATEST_ROCKSDB
  switch (code) {
    case 0x00:
      return 'NoCompression'
    case 0x01:
      return 'Snappy'
    case 0x02:
      return 'Zlib'
    case 0x03:
      return 'BZip2'
    case 0x04:
      return 'LZ4'
    case 0x05:
      return 'LZ4HC'
    case 0x06:
      return 'Xpress'
    case 0x07:
      return 'ZSTD'
    case 0xff:
      return 'DisableOption'
  }
  if (code === 0x40 && !rocksDbAtLeast(version, 10, 0)) return 'ZSTDNotFinal'
  if (!rocksDbAtLeast(version, 10, 4)) return ''
  const hex = (code & 0xff).toString(16).toUpperCase().padStart(2, '0')
  return (code >= 0x80 && code <= 0xfe ? 'Custom' : 'Reserved') + hex
}

/**
 * `BlobIndex::DebugString(output_hex)`, what `sst_dump --decode_blob_index`
 * prints after ` => `:
 *
 *   `[inlined blob] value:<value> exp:<expiration>`
 *   `[blob ref] file:<n> offset:<o> size:<s> compression: <name>`   (note the space after `compression:`)
 *   `[blob ref] file:<n> offset:<o> size:<s> compression: <name> exp:<expiration>`
 *
 * Since 11.8 a file number of 0 prints as `file:same`.
 */
export function formatBlobIndex(idx: BlobIndex, opts: SstDumpFormatOptions = {}): string {
  const version = opts.rocksdb ?? LATEST_ROCKSDB
  let out: string
  if (idx.kind === 'inlinedTtl') {
    out = `[inlined blob] value:${sliceToString(idx.value, opts.hex ?? false)}`
  } else {
    const sameFile = rocksDbAtLeast(version, 11, 8) && Number(idx.fileNumber) === SAME_FILE_BLOB_FILE_NUMBER
    out =
      `[blob ref] file:${sameFile ? 'same' : String(idx.fileNumber)} offset:${idx.offset} size:${idx.size}` +
      ` compression: ${compressionTypeToString(idx.compression, { rocksdb: version })}`
  }
  if (idx.kind !== 'blob') out += ` exp:${idx.expiration}`
  return out
}

/**
 * Blob files of RocksDB's integrated BlobDB (`enable_blob_files`): the `NNNNNN.blob` files that
 * hold large values next to the SSTs (`db/blob/blob_log_format.{h,cc}`, written by
 * `BlobLogWriter` for `BlobFileBuilder`, read back by `BlobLogSequentialReader`). All integers
 * are little-endian.
 *
 *   +--------------------------------------------------------------+  offset 0
 *   | header (30 bytes)                                            |
 *   |   magic u32 (0x00248f37) | version u32 (1) | cf id u32       |
 *   |   flags u8 (bit 0: has_ttl) | compression u8                 |
 *   |   expiration range: u64 first | u64 second                   |
 *   +--------------------------------------------------------------+  offset 30
 *   | record 0 (32-byte header + key + value)                      |
 *   |   key length u64 | value length u64 | expiration u64         |
 *   |   header CRC u32: masked crc32c of the 24 bytes before it    |
 *   |   blob CRC u32:   masked crc32c of key + value               |
 *   |   key (key length bytes) | value (value length bytes)        |
 *   | ...                                                          |
 *   | record N-1                                                   |
 *   +--------------------------------------------------------------+  file size - 32
 *   | footer (32 bytes; written when the file is closed)           |
 *   |   magic u32 | blob count u64 | expiration range u64 u64      |
 *   |   footer CRC u32: masked crc32c of the 28 bytes before it    |
 *   +--------------------------------------------------------------+  end of file
 *
 * The key is the user key. The value is the blob as stored: compressed on its own with the
 * header's compression type and compress_format_version 2 (the size-prefixed framing of a table
 * with format_version >= 2; `codec/compression.ts` reads it), no dictionary, always stored
 * compressed even when that is larger. A blob index in an SST (`blob-index.ts`) points at the
 * value: its offset is the value's file offset, its size the stored value length.
 *
 * Integrated BlobDB writes has_ttl = 0, an expiration range of (0, 0) and record expirations of 0.
 * The legacy stacked BlobDB (`utilities/blob_db`) shares the layout but writes TTL files (has_ttl,
 * expiration ranges and per-record expirations), and its records fall back to uncompressed bytes
 * when compression does not pay, which the file does not record: such files are refused
 * (`NotSupportedError`) where they differ, that is, whenever a TTL or expiration is set.
 *
 * Checksums: like `log-record.ts`, this module takes the masked CRC32c as a function (`BlobCrc`),
 * since `format/` does not import `codec/`.
 */
import { readFixed32, readFixed64, writeFixed32 } from './coding.js'
import { CorruptionError, NotSupportedError } from './errors.js'

/** `kMagicNumber`: the first 4 bytes of every blob file and of its footer. */
export const BLOB_FILE_MAGIC = 0x00248f37
/** `kVersion1`, the only blob file version. */
export const BLOB_FILE_VERSION = 1
export const BLOB_HEADER_SIZE = 30
export const BLOB_RECORD_HEADER_SIZE = 32
export const BLOB_FOOTER_SIZE = 32
/** RocksDB's `compression_format_version` for blobs: the size-prefixed framing of format_version >= 2. */
export const BLOB_COMPRESS_FORMAT_VERSION = 2

/** The masked CRC32c of `bytes` (RocksDB `crc32c::Mask(crc32c::Value(...))`). */
export type BlobCrc = (bytes: Uint8Array) => number

/** An expiration range (seconds since the epoch); (0, 0) when the file holds no TTL data. */
export type ExpirationRange = readonly [bigint, bigint]

export interface BlobFileHeader {
  version: number
  columnFamilyId: number
  hasTtl: boolean
  /** The compression type byte every record's value is compressed with (`format/compression-type.ts`). */
  compression: number
  expirationRange: ExpirationRange
}

export interface BlobFileFooter {
  blobCount: bigint
  expirationRange: ExpirationRange
  crc: number
}

export interface BlobRecordHeader {
  keySize: bigint
  valueSize: bigint
  expiration: bigint
  headerCrc: number
  blobCrc: number
}

/** Whether `bytes` (a file's first bytes) start with the blob file magic. */
export function startsWithBlobMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && readFixed32(bytes, 0) === BLOB_FILE_MAGIC
}

const LEGACY = 'a TTL file of the legacy stacked BlobDB (utilities/blob_db), which sstkit does not read'

/** Decode the 30-byte header at offset 0. Throws CorruptionError (magic, version) or NotSupportedError (TTL, legacy BlobDB). */
export function decodeBlobFileHeader(bytes: Uint8Array): BlobFileHeader {
  if (bytes.length < BLOB_HEADER_SIZE) {
    throw new CorruptionError(`blob file header: the file has ${bytes.length} bytes, fewer than the header's ${BLOB_HEADER_SIZE}`, 0)
  }
  const magic = readFixed32(bytes, 0)
  if (magic !== BLOB_FILE_MAGIC) {
    throw new CorruptionError(`blob file header: magic number 0x${hex32(magic)}, expected 0x${hex32(BLOB_FILE_MAGIC)}`, 0)
  }
  const version = readFixed32(bytes, 4)
  if (version !== BLOB_FILE_VERSION) {
    throw new CorruptionError(`blob file header: unknown version ${version} (RocksDB writes ${BLOB_FILE_VERSION})`, 4)
  }
  const flags = bytes[12]
  const header: BlobFileHeader = {
    version,
    columnFamilyId: readFixed32(bytes, 8),
    hasTtl: (flags & 1) === 1,
    compression: bytes[13],
    expirationRange: [readFixed64(bytes, 14), readFixed64(bytes, 22)],
  }
  if (header.hasTtl) throw new NotSupportedError(`blob file header: has_ttl is set: ${LEGACY}`, 12)
  if (header.expirationRange[0] !== 0n || header.expirationRange[1] !== 0n) {
    throw new NotSupportedError(`blob file header: expiration range ${rangeText(header.expirationRange)} is set: ${LEGACY}`, 14)
  }
  return header
}

export function encodeBlobFileHeader(header: Omit<BlobFileHeader, 'version'> & { version?: number }): Uint8Array {
  const out = new Uint8Array(BLOB_HEADER_SIZE)
  const view = new DataView(out.buffer)
  writeFixed32(out, 0, BLOB_FILE_MAGIC)
  writeFixed32(out, 4, header.version ?? BLOB_FILE_VERSION)
  writeFixed32(out, 8, header.columnFamilyId)
  out[12] = header.hasTtl ? 1 : 0
  out[13] = header.compression
  view.setBigUint64(14, header.expirationRange[0], true)
  view.setBigUint64(22, header.expirationRange[1], true)
  return out
}

/**
 * Decode the 32 bytes at `offset` (the file size - 32) as a footer. Returns null when they are
 * not one (wrong magic: RocksDB's BlobDumpTool reads such a file as having no footer); throws
 * CorruptionError when the magic is there but the CRC does not match.
 */
export function decodeBlobFileFooter(bytes: Uint8Array, offset: number, crc: BlobCrc): BlobFileFooter | null {
  if (bytes.length !== BLOB_FOOTER_SIZE) throw new CorruptionError(`blob file footer: ${bytes.length} bytes, expected ${BLOB_FOOTER_SIZE}`, offset)
  if (readFixed32(bytes, 0) !== BLOB_FILE_MAGIC) return null
  const stored = readFixed32(bytes, 28)
  const computed = crc(bytes.subarray(0, 28))
  if (stored !== computed) {
    throw new CorruptionError(`blob file footer: CRC mismatch (stored 0x${hex32(stored)}, computed 0x${hex32(computed)})`, offset)
  }
  const footer: BlobFileFooter = {
    blobCount: readFixed64(bytes, 4),
    expirationRange: [readFixed64(bytes, 12), readFixed64(bytes, 20)],
    crc: stored,
  }
  if (footer.expirationRange[0] !== 0n || footer.expirationRange[1] !== 0n) {
    throw new NotSupportedError(`blob file footer: expiration range ${rangeText(footer.expirationRange)} is set: ${LEGACY}`, offset + 12)
  }
  return footer
}

export function encodeBlobFileFooter(blobCount: bigint | number, crc: BlobCrc, expirationRange: ExpirationRange = [0n, 0n]): Uint8Array {
  const out = new Uint8Array(BLOB_FOOTER_SIZE)
  const view = new DataView(out.buffer)
  writeFixed32(out, 0, BLOB_FILE_MAGIC)
  view.setBigUint64(4, BigInt(blobCount), true)
  view.setBigUint64(12, expirationRange[0], true)
  view.setBigUint64(20, expirationRange[1], true)
  writeFixed32(out, 28, crc(out.subarray(0, 28)))
  return out
}

/**
 * Decode a record's 32-byte header at file offset `offset`, its header CRC checked (CorruptionError
 * naming the offset). The lengths are not checked against the file here: the reader does, before
 * it reads (or allocates) anything they claim.
 */
export function decodeBlobRecordHeader(bytes: Uint8Array, offset: number, crc: BlobCrc): BlobRecordHeader {
  if (bytes.length !== BLOB_RECORD_HEADER_SIZE) {
    throw new CorruptionError(`blob record header: ${bytes.length} bytes, expected ${BLOB_RECORD_HEADER_SIZE}`, offset)
  }
  const stored = readFixed32(bytes, 24)
  const computed = crc(bytes.subarray(0, 24))
  if (stored !== computed) {
    throw new CorruptionError(`blob record header: CRC mismatch (stored 0x${hex32(stored)}, computed 0x${hex32(computed)})`, offset)
  }
  const header: BlobRecordHeader = {
    keySize: readFixed64(bytes, 0),
    valueSize: readFixed64(bytes, 8),
    expiration: readFixed64(bytes, 16),
    headerCrc: stored,
    blobCrc: readFixed32(bytes, 28),
  }
  if (header.expiration !== 0n) throw new NotSupportedError(`blob record: expiration ${header.expiration} is set: ${LEGACY}`, offset + 16)
  return header
}

/** Check a record's blob CRC over its key and value (contiguous in the file: `keyAndValue`); CorruptionError at `offset`. */
export function checkBlobCrc(header: BlobRecordHeader, keyAndValue: Uint8Array, offset: number, crc: BlobCrc): void {
  const computed = crc(keyAndValue)
  if (computed !== header.blobCrc) {
    throw new CorruptionError(`blob record: blob CRC mismatch over key and value (stored 0x${hex32(header.blobCrc)}, computed 0x${hex32(computed)})`, offset)
  }
}

/** One whole record (header, key, value as stored) as BlobLogWriter::AddRecord writes it. */
export function encodeBlobRecord(key: Uint8Array, value: Uint8Array, crc: BlobCrc, expiration = 0n): Uint8Array {
  const out = new Uint8Array(BLOB_RECORD_HEADER_SIZE + key.length + value.length)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(key.length), true)
  view.setBigUint64(8, BigInt(value.length), true)
  view.setBigUint64(16, expiration, true)
  writeFixed32(out, 24, crc(out.subarray(0, 24)))
  out.set(key, BLOB_RECORD_HEADER_SIZE)
  out.set(value, BLOB_RECORD_HEADER_SIZE + key.length)
  writeFixed32(out, 28, crc(out.subarray(BLOB_RECORD_HEADER_SIZE)))
  return out
}

/** The file offset of a record's value, from the record's offset (a blob index's offset is this). */
export function blobValueOffset(recordOffset: number, keySize: number): number {
  return recordOffset + BLOB_RECORD_HEADER_SIZE + keySize
}

function hex32(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0')
}

/** ldb's form of an expiration range: `nil` for (0, 0), else `(first, second)`. */
export function rangeText(range: ExpirationRange): string {
  return range[0] === 0n && range[1] === 0n ? 'nil' : `(${range[0]}, ${range[1]})`
}

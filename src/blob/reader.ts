/**
 * Reading a blob file of the integrated BlobDB (`format/blob-file.ts`) from a ByteSource: its
 * header and footer, its records in file order (lengths checked against the file before anything
 * they claim is read), one value decompressed, and one blob looked up by a blob index the way
 * RocksDB's BlobFileReader::GetBlob does (record header, key and blob CRC checked).
 */
import { blockChecksum, ChecksumType } from '../codec/checksum.js'
import { decompressBlock, declaredUncompressedSize } from '../codec/compression.js'
import { CorruptionError } from '../errors.js'
import {
  BLOB_COMPRESS_FORMAT_VERSION,
  BLOB_FOOTER_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_RECORD_HEADER_SIZE,
  type BlobFileFooter,
  type BlobFileHeader,
  type BlobRecordHeader,
  checkBlobCrc,
  decodeBlobFileFooter,
  decodeBlobFileHeader,
  decodeBlobRecordHeader,
} from '../format/blob-file.js'
import { equalBytes } from '../format/coding.js'
import { CompressionType } from '../format/compression-type.js'
import type { ByteSource } from '../io/byte-source.js'

/** The masked CRC32c of `bytes`, the checksum of every part of a blob file. */
export function blobCrc(bytes: Uint8Array): number {
  return blockChecksum(ChecksumType.CRC32c, bytes)
}

export interface BlobFile {
  readonly source: ByteSource
  readonly fileSize: number
  readonly header: BlobFileHeader
  /** The footer, or null when the last 32 bytes are not one (a file not closed: RocksDB never lists such a file). */
  readonly footer: BlobFileFooter | null
  /** Why the footer could not be read when its magic is there (a CRC mismatch); the records still end before it. */
  readonly footerError: CorruptionError | null
  /** File offset where the records end: the footer's offset, or the file size without one. */
  readonly recordsEnd: number
  close(): void
}

/** Open a blob file: its header (errors throw: not a blob file, legacy TTL file) and footer. Takes ownership of `source`. */
export function openBlobFile(source: ByteSource): BlobFile {
  const fileSize = source.size
  if (fileSize < BLOB_HEADER_SIZE) {
    throw new CorruptionError(`blob file: ${fileSize} bytes, fewer than the ${BLOB_HEADER_SIZE}-byte header`, 0)
  }
  const header = decodeBlobFileHeader(source.read(0, BLOB_HEADER_SIZE))
  let footer: BlobFileFooter | null = null
  let footerError: CorruptionError | null = null
  let recordsEnd = fileSize
  if (fileSize >= BLOB_HEADER_SIZE + BLOB_FOOTER_SIZE) {
    const at = fileSize - BLOB_FOOTER_SIZE
    try {
      footer = decodeBlobFileFooter(source.read(at, BLOB_FOOTER_SIZE), at, blobCrc)
      if (footer) recordsEnd = at
    } catch (e) {
      if (!(e instanceof CorruptionError)) throw e
      footerError = e
      recordsEnd = at
    }
  }
  return { source, fileSize, header, footer, footerError, recordsEnd, close: () => source.close() }
}

/** One record as stored: its offsets, lengths, key, and value bytes (compressed as the header says). */
export interface BlobRecord {
  /** File offset of the record's 32-byte header. */
  offset: number
  /** File offset of the value (what a blob index points at). */
  valueOffset: number
  header: BlobRecordHeader
  key: Uint8Array
  /** The value as stored (a view valid until the next read of the source). */
  value: Uint8Array
  /** Whether the blob CRC over key and value matched; undefined when not checked. */
  blobCrcError?: CorruptionError
}

export interface RecordWalkOptions {
  /** Check each record's blob CRC; a mismatch is set on the record (`blobCrcError`), not thrown. Default true. */
  checkBlobCrc?: boolean
}

/** A record's lengths as numbers, or a CorruptionError when they run past `end` (nothing is read or allocated for them). */
export function recordLengths(h: BlobRecordHeader, offset: number, end: number): { keySize: number; valueSize: number } {
  const room = BigInt(end - offset - BLOB_RECORD_HEADER_SIZE)
  if (h.keySize > room || h.valueSize > room || h.keySize + h.valueSize > room) {
    throw new CorruptionError(
      `blob record: key length ${h.keySize} and value length ${h.valueSize} run past the end of the records at offset ${end} (${room} bytes left)`,
      offset,
    )
  }
  return { keySize: Number(h.keySize), valueSize: Number(h.valueSize) }
}

/**
 * The records in file order. A record whose header cannot be trusted (CRC mismatch, lengths past
 * the records' end, a truncated header) throws a CorruptionError at its offset: the next record's
 * position is unknown, so the walk ends there. A blob CRC mismatch does not end it (the lengths
 * were checked by the header CRC): the record carries `blobCrcError`.
 */
export function* blobRecords(file: BlobFile, options: RecordWalkOptions = {}): Generator<BlobRecord> {
  const check = options.checkBlobCrc ?? true
  let offset = BLOB_HEADER_SIZE
  while (offset < file.recordsEnd) {
    if (file.recordsEnd - offset < BLOB_RECORD_HEADER_SIZE) {
      throw new CorruptionError(
        `blob record: ${file.recordsEnd - offset} bytes left before the ${file.footer || file.footerError ? 'footer' : 'end of the file'}, fewer than a record header's ${BLOB_RECORD_HEADER_SIZE}`,
        offset,
      )
    }
    const header = decodeBlobRecordHeader(file.source.read(offset, BLOB_RECORD_HEADER_SIZE), offset, blobCrc)
    const { keySize, valueSize } = recordLengths(header, offset, file.recordsEnd)
    const body = file.source.read(offset + BLOB_RECORD_HEADER_SIZE, keySize + valueSize)
    const record: BlobRecord = {
      offset,
      valueOffset: offset + BLOB_RECORD_HEADER_SIZE + keySize,
      header,
      key: body.subarray(0, keySize),
      value: body.subarray(keySize),
    }
    if (check) {
      try {
        checkBlobCrc(header, body, offset, blobCrc)
      } catch (e) {
        if (!(e instanceof CorruptionError)) throw e
        record.blobCrcError = e
      }
    }
    yield record
    offset += BLOB_RECORD_HEADER_SIZE + keySize + valueSize
  }
}

/** A stored value decompressed as RocksDB does (compress_format_version 2, no dictionary); CorruptionError at `valueOffset`. */
export function decompressBlobValue(compression: number, stored: Uint8Array, valueOffset: number): Uint8Array {
  if (compression === CompressionType.None) return stored
  return decompressBlock(compression, stored, { formatVersion: BLOB_COMPRESS_FORMAT_VERSION, offset: valueOffset })
}

/** The uncompressed size a stored value declares (its framing), without decoding it; undefined when the framing does not say. */
export function declaredBlobSize(compression: number, stored: Uint8Array, valueOffset: number): number | undefined {
  return declaredUncompressedSize(compression, stored, BLOB_COMPRESS_FORMAT_VERSION, valueOffset)
}

/**
 * The value a blob index points at (BlobFileReader::GetBlob): the record around it read back from
 * `valueOffset - 32 - key length`, its header CRC, lengths, key and blob CRC checked, then
 * decompressed with the index's compression type. Throws CorruptionError naming the offset.
 */
export function readBlob(file: BlobFile, userKey: Uint8Array, valueOffset: number, valueSize: number, compression: number): Uint8Array {
  const recordOffset = valueOffset - BLOB_RECORD_HEADER_SIZE - userKey.length
  if (recordOffset < BLOB_HEADER_SIZE || valueSize > file.recordsEnd || valueOffset > file.recordsEnd - valueSize) {
    throw new CorruptionError(
      `blob index: offset ${valueOffset} and size ${valueSize} do not fit the blob file's records (${BLOB_HEADER_SIZE}..${file.recordsEnd})`,
    )
  }
  if (compression !== file.header.compression) {
    throw new CorruptionError(`blob index: compression type ${compression} differs from the blob file's ${file.header.compression}`)
  }
  const header = decodeBlobRecordHeader(file.source.read(recordOffset, BLOB_RECORD_HEADER_SIZE), recordOffset, blobCrc)
  if (header.keySize !== BigInt(userKey.length) || header.valueSize !== BigInt(valueSize)) {
    throw new CorruptionError(
      `blob record: key length ${header.keySize} and value length ${header.valueSize}, but the blob index says ${userKey.length} and ${valueSize}`,
      recordOffset,
    )
  }
  const body = file.source.read(recordOffset + BLOB_RECORD_HEADER_SIZE, userKey.length + valueSize)
  if (!equalBytes(body.subarray(0, userKey.length), userKey))
    throw new CorruptionError("blob record: the key differs from the blob index entry's key", recordOffset)
  checkBlobCrc(header, body, recordOffset, blobCrc)
  return decompressBlobValue(compression, body.subarray(userKey.length), valueOffset)
}

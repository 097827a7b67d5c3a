/**
 * A blob file of the integrated BlobDB written again under another blob_compression_type, as
 * BlobFileBuilder would have written it: the same records in the same order (keys, and values
 * decompressed then compressed on their own at the library's default level, compress_format_version
 * 2, stored compressed even when larger), the header's compression byte changed, the footer's
 * count kept (`format/blob-file.ts`).
 *
 * A blob index in a table (`format/blob-index.ts`: file number, value offset, value size,
 * compression) points at a value by its offset, and RocksDB checks the index's compression against
 * the file's header and the record's lengths against the index (BlobFileReader::GetBlob): once the
 * values change size, every record after the first moves. The file's map (`BlobRemap`: each
 * record's old value offset, its new offset and size) is what the tables' rewrites apply to every
 * blob index pointing into the file (`remapBlobIndex`). The map lives in shared memory, so the
 * tables' worker threads read it without a copy and mark each record a live entry points at: the
 * records none points at are the file's garbage (the MANIFEST's garbage counts, in new bytes).
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import { type BlobFile, blobCrc, blobRecords, decompressBlobValue, openBlobFile } from '../blob/reader.js'
import { compressBlock } from '../codec/compression.js'
import { CorruptionError } from '../errors.js'
import { BLOB_COMPRESS_FORMAT_VERSION, BLOB_RECORD_HEADER_SIZE, encodeBlobFileFooter, encodeBlobFileHeader, encodeBlobRecord } from '../format/blob-file.js'
import { type BlobIndex, decodeBlobIndex, encodeBlobIndex } from '../format/blob-index.js'
import { equalBytes } from '../format/coding.js'
import { CompressionType, compressionShortName } from '../format/compression-type.js'
import { FileByteSource } from '../io/byte-source.js'

export interface BlobRemap {
  fileNumber: number
  /** The new file's compression type (the blob indexes' compression byte). */
  compression: number
  /** Per record, in file order: its value's offset in the source file (ascending), in the new file, and its new stored size. */
  from: Float64Array
  to: Float64Array
  size: Float64Array
  /** Per record: its key's length (the record's bytes are 32 + key + value). */
  keySize: Float64Array
  /** Per record: 1 once an entry of a rewritten table points at it (shared memory, set by the tables' threads). */
  referenced: Uint8Array
}

export interface BlobFileWritten {
  remap: BlobRemap
  records: number
  /** Σ (record header + key + stored value): the MANIFEST's total_blob_bytes. */
  blobBytes: number
  fileSize: number
  sourceCompression: number
}

/** Bytes collected before each write to the output. */
const WRITE_CHUNK = 1 << 20

/** Values for shared memory (SharedArrayBuffer where the runtime has it). */
function sharedFloats(n: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(Math.max(1, n) * 8))
}

/**
 * Write `input` (a blob file) to `output` (a new file) with every value under `compression`,
 * then read both back record by record: the same keys, the same values decompressed. Throws a
 * CorruptionError naming the input's offset where it does not read (not a closed blob file, a
 * record that fails its checks or does not decompress).
 */
export function recompressBlobFile(input: string, output: string, fileNumber: number, compression: number): BlobFileWritten {
  const file = openBlobFile(new FileByteSource(input))
  let records: number
  try {
    if (!file.footer)
      throw new CorruptionError(`${input}: blob file has no valid footer (${file.footerError?.message ?? 'not closed'}): RocksDB lists no such file`)
    records = Number(file.footer.blobCount)
  } catch (e) {
    file.close()
    throw e
  }
  const remap: BlobRemap = {
    fileNumber,
    compression,
    from: sharedFloats(records),
    to: sharedFloats(records),
    size: sharedFloats(records),
    keySize: sharedFloats(records),
    referenced: new Uint8Array(new SharedArrayBuffer(Math.max(1, records))),
  }
  const sourceCompression = file.header.compression
  const fd = openSync(output, 'wx')
  let blobBytes = 0
  let at = 0
  try {
    const out = new ChunkedWriter(fd)
    out.write(encodeBlobFileHeader({ columnFamilyId: file.header.columnFamilyId, hasTtl: false, compression, expirationRange: [0n, 0n] }))
    let i = 0
    for (const r of blobRecords(file)) {
      if (r.blobCrcError) throw withFile(input, r.blobCrcError)
      if (i >= records) throw new CorruptionError(`${input}: blob file holds more records than its footer's ${records}`, r.offset)
      const raw = decompressBlobValue(sourceCompression, r.value, r.valueOffset)
      const stored = compressBlob(compression, raw)
      const record = encodeBlobRecord(r.key, stored, blobCrc)
      remap.from[i] = r.valueOffset
      remap.to[i] = out.offset + BLOB_RECORD_HEADER_SIZE + r.key.length
      remap.size[i] = stored.length
      remap.keySize[i] = r.key.length
      out.write(record)
      blobBytes += record.length
      i++
    }
    if (i !== records) throw new CorruptionError(`${input}: blob file holds ${i} records, its footer says ${records}`)
    out.write(encodeBlobFileFooter(records, blobCrc))
    out.flush()
    at = out.offset
    fsyncSync(fd)
  } catch (e) {
    throw e instanceof CorruptionError ? withFile(input, e) : e
  } finally {
    closeSync(fd)
    file.close()
  }
  checkWritten(input, output, remap)
  return { remap, records, blobBytes, fileSize: at, sourceCompression }
}

/** A blob as BlobFileBuilder compresses it (no compression: the bytes as they are). */
function compressBlob(compression: number, raw: Uint8Array): Uint8Array {
  if (compression === CompressionType.None) return raw
  return compressBlock(compression, raw, { formatVersion: BLOB_COMPRESS_FORMAT_VERSION })
}

/** Both files read again: every record's key and decompressed value the same, at the offsets the map says. */
function checkWritten(input: string, output: string, remap: BlobRemap): void {
  const a = openBlobFile(new FileByteSource(input))
  let b: BlobFile | null = null
  try {
    b = openBlobFile(new FileByteSource(output))
    const fail = (what: string): never => {
      throw new CorruptionError(`verification of the written blob file ${output} failed: ${what}`)
    }
    if (!b.footer || b.footer.blobCount !== BigInt(remap.from.length) || b.header.compression !== remap.compression) fail('header or footer')
    const theirs = blobRecords(b)
    let i = 0
    for (const r of blobRecords(a)) {
      const w = theirs.next()
      if (w.done) return fail(`it ends after ${i} records`)
      const got = w.value
      if (got.blobCrcError) throw got.blobCrcError
      if (!equalBytes(got.key, r.key) || got.valueOffset !== remap.to[i] || got.value.length !== remap.size[i]) fail(`record ${i} differs`)
      const want = decompressBlobValue(a.header.compression, r.value, r.valueOffset)
      if (!equalBytes(decompressBlobValue(b.header.compression, got.value, got.valueOffset), want)) fail(`the value of record ${i} differs`)
      i++
    }
    if (!theirs.next().done) fail(`it has more than ${i} records`)
  } finally {
    b?.close()
    a.close()
  }
}

function withFile(file: string, e: CorruptionError): CorruptionError {
  // The message already says the offset.
  return e.message.includes(file) ? e : new CorruptionError(`${file}: ${e.message}`)
}

/** Writes in chunks of about WRITE_CHUNK bytes, counting the offset. */
class ChunkedWriter {
  private parts: Uint8Array[] = []
  private pending = 0
  offset = 0

  constructor(private readonly fd: number) {}

  write(bytes: Uint8Array): void {
    this.parts.push(bytes)
    this.pending += bytes.length
    this.offset += bytes.length
    if (this.pending >= WRITE_CHUNK) this.flush()
  }

  flush(): void {
    if (this.pending === 0) return
    const all = Buffer.concat(this.parts, this.pending)
    let done = 0
    while (done < all.length) done += writeSync(this.fd, all, done, all.length - done)
    this.parts = []
    this.pending = 0
  }
}

/**
 * A blob index's value with its offset, size and compression moved to where `remaps` put its
 * record; null when it points into no remapped file (kept as it is). Marks the record referenced.
 * Throws a CorruptionError when it points at no record of a remapped file.
 */
export function remapBlobIndex(value: Uint8Array, remaps: ReadonlyMap<number, BlobRemap>): Uint8Array | null {
  const index = decodeBlobIndex(value)
  if (index.kind === 'inlinedTtl') return null
  const remap = remaps.get(Number(index.fileNumber))
  if (!remap) return null
  const i = findOffset(remap.from, Number(index.offset))
  if (i < 0) {
    throw new CorruptionError(
      `blob index: offset ${index.offset} in blob file #${remap.fileNumber} is the value of none of its records: the table does not match the blob file`,
    )
  }
  remap.referenced[i] = 1
  const moved: BlobIndex = { ...index, offset: remap.to[i], size: remap.size[i], compression: remap.compression }
  return encodeBlobIndex(moved)
}

/** The index of `offset` in the ascending `from`, or -1. */
function findOffset(from: Float64Array, offset: number): number {
  let lo = 0
  let hi = from.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = from[mid]
    if (v === offset) return mid
    if (v < offset) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/** The records no table points at: the file's garbage, counted and in new bytes. */
export function unreferenced(remap: BlobRemap): { count: number; bytes: number } {
  let count = 0
  let bytes = 0
  for (let i = 0; i < remap.from.length; i++) {
    if (remap.referenced[i]) continue
    count++
    bytes += BLOB_RECORD_HEADER_SIZE + remap.keySize[i] + remap.size[i]
  }
  return { count, bytes }
}

/** e.g. "zstd → lz4": a remapped file's change, for notes. */
export function blobChangeLabel(from: number, to: number): string {
  return `${compressionShortName(from)} → ${compressionShortName(to)}`
}

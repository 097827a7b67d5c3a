/**
 * What `props`, `layout` and `verify` say about a blob file: counts and sizes from one walk of its
 * records, and the thorough check (every header CRC, every blob CRC, every value decompressed to
 * the size its framing declares, the footer's CRC and blob count, nothing after the last record).
 */
import { SstkitError } from '../errors.js'
import { BLOB_FOOTER_SIZE, BLOB_HEADER_SIZE, BLOB_RECORD_HEADER_SIZE } from '../format/blob-file.js'
import { CompressionType } from '../format/compression-type.js'
import { type BlobFile, blobRecords, declaredBlobSize, decompressBlobValue } from './reader.js'

export interface BlobFileStats {
  records: number
  keyBytes: number
  /** Value bytes as stored (compressed). */
  storedValueBytes: number
  /** Value bytes uncompressed, as each value's framing declares them (null when some value's framing does not say). */
  rawValueBytes: number | null
  /** Bytes of record headers, keys and stored values together. */
  recordBytes: number
  smallestValue: number | null
  largestValue: number | null
  /** Why the walk stopped before the records' end (its counts cover the records before it). */
  stopped?: { offset: number | null; message: string }
}

/** Counts and sizes of the records, from their headers and the sizes their framing declares (no value decoded). */
export function blobFileStats(file: BlobFile): BlobFileStats {
  const s: BlobFileStats = { records: 0, keyBytes: 0, storedValueBytes: 0, rawValueBytes: 0, recordBytes: 0, smallestValue: null, largestValue: null }
  try {
    for (const r of blobRecords(file, { checkBlobCrc: false })) {
      s.records++
      s.keyBytes += r.key.length
      s.storedValueBytes += r.value.length
      s.recordBytes += BLOB_RECORD_HEADER_SIZE + r.key.length + r.value.length
      let raw: number | undefined
      try {
        raw = declaredBlobSize(file.header.compression, r.value, r.valueOffset)
      } catch {
        raw = undefined
      }
      if (raw === undefined || s.rawValueBytes === null) s.rawValueBytes = null
      else s.rawValueBytes += raw
      if (raw !== undefined) {
        s.smallestValue = Math.min(s.smallestValue ?? raw, raw)
        s.largestValue = Math.max(s.largestValue ?? raw, raw)
      }
    }
  } catch (e) {
    if (!(e instanceof SstkitError)) throw e
    s.stopped = { offset: e.offset ?? null, message: bare(e) }
  }
  return s
}

/** One problem of a blob file: which part (`header`, `record`, `footer`), where, what. */
export interface BlobProblem {
  part: 'header' | 'record' | 'footer'
  offset: number | null
  message: string
}

export interface BlobVerifyResult {
  ok: boolean
  records: number
  /** Records whose value was decompressed (all of them in a compressed file without problems). */
  valuesDecompressed: number
  footerBlobCount: number | null
  problems: BlobProblem[]
}

/** Problems kept per file; more are counted in the last one's message. */
const MAX_PROBLEMS = 1000

/**
 * Check every byte RocksDB checks, and what it would fail on reading: each record's header CRC,
 * lengths, blob CRC and decompression, the footer (present, CRC, blob count equal to the records).
 * A record whose header is damaged ends the walk (where the next record starts is unknown).
 */
export function verifyBlobFile(file: BlobFile): BlobVerifyResult {
  const problems: BlobProblem[] = []
  let dropped = 0
  const add = (p: BlobProblem) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p)
    else dropped++
  }
  let records = 0
  let valuesDecompressed = 0
  const compressed = file.header.compression !== CompressionType.None
  let walkedToEnd = false
  try {
    for (const r of blobRecords(file)) {
      records++
      if (r.blobCrcError) {
        add({ part: 'record', offset: r.offset, message: bare(r.blobCrcError) })
        continue
      }
      if (!compressed) continue
      try {
        decompressBlobValue(file.header.compression, r.value, r.valueOffset)
        valuesDecompressed++
      } catch (e) {
        if (!(e instanceof SstkitError)) throw e
        add({ part: 'record', offset: r.offset, message: `value at offset ${r.valueOffset}: ${bare(e)}` })
      }
    }
    walkedToEnd = true
  } catch (e) {
    if (!(e instanceof SstkitError)) throw e
    add({ part: 'record', offset: e.offset ?? null, message: `${bare(e)}; the records after it cannot be located` })
  }
  if (file.footerError) add({ part: 'footer', offset: file.footerError.offset ?? null, message: bare(file.footerError) })
  else if (!file.footer) {
    add({
      part: 'footer',
      offset: file.fileSize >= BLOB_HEADER_SIZE + BLOB_FOOTER_SIZE ? file.fileSize - BLOB_FOOTER_SIZE : null,
      message: 'no footer: the file was not closed (RocksDB lists only closed blob files in the MANIFEST)',
    })
  } else if (walkedToEnd && file.footer.blobCount !== BigInt(records)) {
    add({ part: 'footer', offset: file.recordsEnd, message: `blob count ${file.footer.blobCount}, but the file holds ${records} records` })
  }
  if (dropped > 0) problems[problems.length - 1].message += ` (and ${dropped} more ${dropped === 1 ? 'problem' : 'problems'})`
  return {
    ok: problems.length === 0,
    records,
    valuesDecompressed,
    footerBlobCount: file.footer ? Number(file.footer.blobCount) : null,
    problems,
  }
}

/** An error's message without the ` (at offset N)` SstkitError appends: the problem carries the offset. */
function bare(e: Error): string {
  const offset = e instanceof SstkitError ? e.offset : undefined
  const suffix = offset === undefined ? '' : ` (at offset ${offset})`
  return suffix && e.message.endsWith(suffix) ? e.message.slice(0, -suffix.length) : e.message
}

/**
 * How `recompress FILE.blob` shows a blob file's matrix (`recompress/blob-matrix.ts`): the file as
 * stored, then one row per setting with the whole file's projected bytes (± their 95% interval when
 * the records were sampled), the change against the file, the values' ratio and speeds; JSON with
 * every figure and its interval.
 */
import { type BlobMatrixContext, type BlobMatrixReport, BLOB_MIN_TIMED_MS, type BlobSettingResult, type Interval } from '../recompress/blob-matrix.js'
import { CompressionType, compressionShortName } from '../format/compression-type.js'
import { type Cell, renderTable, type TableFormat } from './table.js'
import { formatCount, formatSize, NOISY_MARK, signedPercent } from './text.js'

export interface BlobRecompressJson
  extends Pick<BlobMatrixReport, 'fileSize' | 'records' | 'sampledRecords' | 'rate' | 'exact' | 'keyBytes' | 'storedValueBytes' | 'rawValueBytes'> {
  file: string
  kind: 'blob'
  /** The blob file's compression type, named. */
  compression: string
  release: string | null
  lz4: 'one-shot' | 'stream'
  stored: { fileBytes: number; decompressMBps: number | null; decompressNoisy: boolean }
  /** Each setting as the matrix measured it, its type named as the options name it (and the smallest marked). */
  results: (Omit<BlobSettingResult, 'setting'> & { type: string; level: number | null; checksum: boolean; smallest: boolean })[]
}

const round = (i: Interval): Interval => ({ estimate: Math.round(i.estimate), low: Math.round(i.low), high: Math.round(i.high) })

/** The settings whose projected file is the smallest (all of them on a tie). */
function smallestLabels(report: BlobMatrixReport): Set<string> {
  const least = Math.min(...report.results.map((r) => Math.round(r.fileBytes.estimate)))
  return new Set(report.results.filter((r) => Math.round(r.fileBytes.estimate) === least).map((r) => r.label))
}

export function blobRecompressJson(file: string, report: BlobMatrixReport, ctx: BlobMatrixContext): BlobRecompressJson {
  const smallest = smallestLabels(report)
  return {
    file,
    kind: 'blob',
    fileSize: report.fileSize,
    compression: compressionShortName(report.compression),
    records: report.records,
    sampledRecords: report.sampledRecords,
    rate: report.rate,
    exact: report.exact,
    keyBytes: report.keyBytes,
    storedValueBytes: report.storedValueBytes,
    rawValueBytes: round(report.rawValueBytes),
    release: ctx.release,
    lz4: ctx.lz4OneShot ? 'one-shot' : 'stream',
    stored: { fileBytes: report.fileSize, decompressMBps: report.storedDecompressMBps, decompressNoisy: report.storedDecompressNoisy },
    results: report.results.map((r) => ({
      type: compressionShortName(r.setting.type),
      level: r.setting.level,
      checksum: r.setting.checksum,
      label: r.label,
      valueBytes: round(r.valueBytes),
      fileBytes: round(r.fileBytes),
      ratio: r.ratio,
      vsStored: r.vsStored,
      compressMBps: r.compressMBps,
      decompressMBps: r.decompressMBps,
      compressNoisy: r.compressNoisy,
      decompressNoisy: r.decompressNoisy,
      needsBlobCompressionOpts: r.needsBlobCompressionOpts,
      smallest: smallest.has(r.label),
    })),
  }
}

function speed(v: number | null, noisy: boolean): string {
  if (v === null) return ''
  return `${noisy ? NOISY_MARK : ''}${v.toFixed(v >= 100 ? 0 : 1)}`
}

function sizeCell(i: Interval, exact: boolean, bytes: boolean): string {
  const text = formatSize(i.estimate, bytes)
  if (exact || !(i.estimate > 0)) return text
  if (!Number.isFinite(i.high)) return `${text} ±?`
  return `${text} ±${((100 * (i.high - i.low)) / 2 / i.estimate).toFixed(1)}%`
}

/** The matrix as a table (box, CSV or Markdown; CSV with exact numbers). */
export function renderBlobRecompress(report: BlobMatrixReport, format: TableFormat, view: { bytes?: boolean; color?: boolean; width?: number } = {}): string {
  const csv = format === 'csv'
  const bytes = csv || view.bytes === true
  const smallest = smallestLabels(report)
  const ratio = (raw: number, stored: number) => (stored > 0 ? (raw / stored).toFixed(2) : '')
  const columns = csv
    ? ['setting', 'file_bytes', 'file_bytes_low', 'file_bytes_high', 'vs_stored', 'ratio', 'compress_mbps', 'decompress_mbps', 'marks']
    : ['Setting', 'File bytes', 'vs stored', 'Ratio', 'Comp MB/s', 'Dec MB/s', 'Marks']
  const rows: Cell[][] = []
  const storedLabel = `stored (${compressionShortName(report.compression)})`
  const storedRatio = ratio(report.rawValueBytes.estimate, report.storedValueBytes)
  const storedDec = speed(report.storedDecompressMBps, report.storedDecompressNoisy && !csv)
  rows.push(
    csv
      ? [storedLabel, report.fileSize, report.fileSize, report.fileSize, 0, storedRatio, '', storedDec, '']
      : [storedLabel, formatSize(report.fileSize, bytes), '', storedRatio, '', storedDec, ''],
  )
  for (const r of report.results) {
    const marks = smallest.has(r.label) ? 'smallest' : ''
    const ratioText = Number.isFinite(r.ratio) ? r.ratio.toFixed(2) : ''
    rows.push(
      csv
        ? [
            r.label,
            Math.round(r.fileBytes.estimate),
            Math.round(r.fileBytes.low),
            Math.round(r.fileBytes.high),
            r.vsStored.toFixed(6),
            ratioText,
            speed(r.compressMBps, false),
            speed(r.decompressMBps, false),
            marks,
          ]
        : [
            r.label,
            sizeCell(r.fileBytes, report.exact, bytes),
            signedPercent(r.vsStored),
            ratioText,
            speed(r.compressMBps, r.compressNoisy),
            speed(r.decompressMBps, r.decompressNoisy),
            marks,
          ],
    )
  }
  const right = new Set([1, 2, 3, 4, 5])
  return renderTable({ columns: columns.map((header, i) => ({ header, align: right.has(i) && !csv ? 'right' : 'left' })), rows }, format, {
    color: view.color,
    width: view.width,
  })
}

/** The lines under the table: what was measured, and under which release's rules. */
export function blobRecompressNotes(report: BlobMatrixReport, ctx: BlobMatrixContext): string[] {
  const lines: string[] = []
  const values = `${formatSize(report.storedValueBytes)} of values stored ${compressionShortName(report.compression)}`
  if (report.exact) lines.push(`${formatCount(report.records)} records, ${values}: every record compressed alone as BlobDB does (exact sizes).`)
  else
    lines.push(
      `${formatCount(report.sampledRecords)} of ${formatCount(report.records)} records sampled (${(100 * report.rate).toFixed(1)}%), ${values}: sizes are estimates, ± their 95% interval.`,
    )
  if (report.results.some((r) => r.setting.type === CompressionType.LZ4))
    lines.push(
      `LZ4 compressed ${ctx.lz4OneShot ? 'one-shot, as RocksDB 10.8 and later do' : 'through a fresh stream, as RocksDB before 10.8 does'}${ctx.release ? ` (the database's release: ${ctx.release})` : ' (no OPTIONS or LOG beside the file names its release)'}.`,
    )
  if (report.results.some((r) => r.needsBlobCompressionOpts))
    lines.push('A level other than the library default, or +checksum, is set through blob_compression_opts (RocksDB 11.2 and later).')
  if (report.results.some((r) => r.compressNoisy || r.decompressNoisy) || report.storedDecompressNoisy)
    lines.push(`${NOISY_MARK}: under ${BLOB_MIN_TIMED_MS} ms measured, noise.`)
  return lines
}

/**
 * How advise shows the blob files of a column family (advise/blob.ts): one line with the
 * recommended blob_compression_type and why, and a table of the candidates (projected blob bytes
 * with their 95% interval, change against today, ratio, speeds). Shared by text, Markdown and HTML.
 */
import type { BlobAdvice, Interval } from '../types/advice.js'
import type { TableModel } from './table.js'
import { escapeName, formatSize, signedPercent } from './text.js'

function sizeWithInterval(i: Interval, exact: boolean): string {
  const text = formatSize(i.estimate, exact)
  if (i.high === i.low || !(i.estimate > 0)) return text
  if (!Number.isFinite(i.high)) return `${text} ±?`
  return `${text} ±${((100 * (i.high - i.low)) / 2 / i.estimate).toFixed(1)}%`
}

/** The column family's blob files and the advice, in one line. */
export function blobSummaryLine(b: BlobAdvice, exact = false): string {
  const garbage =
    b.garbageBytes > 0 ? `, ${formatSize(b.garbageBytes, exact)} of it garbage (${signedPercent(b.garbageBytes / b.bytes).slice(1)})` : ', no garbage'
  const read =
    b.sampledRecords === b.records && b.filesRead === b.files
      ? `every record of ${b.records} measured`
      : `${b.sampledRecords} of ${b.records} records in ${b.filesRead} of ${b.files} files measured`
  const files = `column family "${escapeName(b.columnFamily)}": ${b.files} blob file(s), ${formatSize(b.bytes, exact)}${garbage}; ${read}`
  if (b.status === 'not sampled') return `${files}: not sampled; ${b.reason}`
  return `${files}: blob_compression_type=${b.recommended} (today ${b.today ?? 'unknown'}): ${b.reason}`
}

/** The candidates of an advised column family (empty when not sampled). */
export function blobCandidatesModel(b: BlobAdvice, exact = false): TableModel {
  return {
    columns: [
      { header: 'Setting' },
      { header: 'Blob bytes', align: 'right' },
      { header: 'Change', align: 'right' },
      { header: 'Ratio', align: 'right' },
      { header: 'Comp s/GB', align: 'right' },
      { header: 'Dec MB/s', align: 'right' },
      { header: '' },
    ],
    rows: b.candidates.map((c) => [
      c.label,
      sizeWithInterval(c.bytes, exact),
      signedPercent(c.change.estimate),
      Number.isFinite(c.ratio) ? c.ratio.toFixed(2) : '',
      c.compressSecPerGB === null ? '' : c.compressSecPerGB.toFixed(c.compressSecPerGB < 1 ? 2 : 1),
      c.decompressMBps === null ? '' : c.decompressMBps.toFixed(0),
      [c.option === b.recommended ? 'recommended' : '', c.option === b.today ? 'today' : ''].filter(Boolean).join(', '),
    ]),
  }
}

/** The `rewrite` report: one row per file written. */
import type { RewriteResult } from '../index.js'
import type { DbRewriteResult } from '../rewrite/database.js'
import type { TableModel } from './table.js'
import { escapeName, formatBytes, signedPercent } from './text.js'

/**
 * One row per file, narrow enough for 100 columns with the paths whole: blocks stored raw
 * (rejected by the compression rule) are counted in the Blocks cell; --json has every field
 * and the time taken.
 */
export function rewriteModel(results: readonly RewriteResult[]): TableModel {
  return {
    columns: [
      { header: 'Input' },
      { header: 'Output' },
      { header: 'Before', align: 'right' },
      { header: 'After', align: 'right' },
      { header: 'Change', align: 'right' },
      { header: 'Blocks', align: 'right' },
      { header: 'fv', align: 'right' },
    ],
    rows: results.map((r) => [
      r.input,
      r.output,
      formatBytes(r.inputSize),
      formatBytes(r.fileSize),
      signedPercent(r.inputSize > 0 ? (r.fileSize - r.inputSize) / r.inputSize : null),
      r.blocksRejected > 0 ? `${r.dataBlocks} (${r.blocksRejected} raw)` : r.dataBlocks,
      r.formatVersion,
    ]),
  }
}

/**
 * A database's rewrite, one row per column family and level: files, bytes before and after, the
 * setting written, and with --advice the data and dictionary bytes written against advise's
 * projection (its 95% interval: "in" when they fall inside).
 */
export function rewriteDbModel(r: DbRewriteResult): TableModel {
  const advised = r.columnFamilies.some((cf) => cf.levels.some((l) => l.projected !== null))
  const columns: TableModel['columns'][number][] = [
    { header: 'Column family' },
    { header: 'Level', align: 'right' },
    { header: 'Files', align: 'right' },
    { header: 'Before', align: 'right' },
    { header: 'After', align: 'right' },
    { header: 'Change', align: 'right' },
    { header: 'Setting' },
  ]
  if (advised) columns.push({ header: 'Data written', align: 'right' }, { header: 'Projected (95%)', align: 'right' }, { header: 'In', align: 'right' })
  const rows = r.columnFamilies.flatMap((cf) =>
    cf.levels.map((l) => {
      const row = [
        escapeName(cf.name),
        `L${l.level}`,
        l.files,
        formatBytes(l.sourceBytes),
        formatBytes(l.writtenBytes),
        signedPercent(l.sourceBytes > 0 ? (l.writtenBytes - l.sourceBytes) / l.sourceBytes : null),
        l.setting,
      ]
      if (advised) {
        const p = l.projected
        row.push(
          formatBytes(l.dataBytes),
          p ? `${formatBytes(p.estimate)} (${formatBytes(p.low)}..${formatBytes(p.high)})` : '',
          p ? (p.within ? 'yes' : 'no') : '',
        )
      }
      return row
    }),
  )
  return { columns, rows }
}

/** The lines after the table: what was written, the WALs RocksDB replays, the blob files copied. */
export function rewriteDbSummary(r: DbRewriteResult): string[] {
  const out = [
    `${r.output}: ${formatBytes(r.sourceBytes)} of tables rewritten to ${formatBytes(r.writtenBytes)} (${signedPercent(r.sourceBytes > 0 ? (r.writtenBytes - r.sourceBytes) / r.sourceBytes : null)}); ${r.manifest}${r.options ? `, ${r.options}` : ''}, CURRENT, IDENTITY written${r.verified && !r.verification ? '; read back and checked' : ''}`,
  ]
  const v = r.verification
  if (v) {
    const blobs = v.blobValues > 0 ? ` (${v.blobValues} blob values read from both databases' blob files)` : ''
    const files = v.filesCompared > 0 ? `; ${v.filesCompared} copied file(s), ${formatBytes(v.bytesCompared)}, byte for byte` : ''
    out.push(
      `read back beside a second read of the source: ${v.tables} table(s), ${v.entries} entries${blobs} and ${v.rangeTombstones} range tombstones the same${files}`,
    )
  }
  const blobs = r.columnFamilies.reduce((n, cf) => n + cf.blobFiles, 0)
  const recompressed = r.columnFamilies.reduce((n, cf) => n + cf.blobRecompressed, 0)
  if (recompressed > 0) {
    const before = r.columnFamilies.reduce((n, cf) => n + (cf.blobRecompressed > 0 ? cf.blobBytes : 0), 0)
    const after = r.columnFamilies.reduce((n, cf) => n + (cf.blobRecompressed > 0 ? cf.blobWrittenBytes : 0), 0)
    out.push(
      `${recompressed} blob file(s) written again under the advised blob_compression_type: ${formatBytes(before)} to ${formatBytes(after)} (${signedPercent(before > 0 ? (after - before) / before : null)})${blobs > recompressed ? `; ${blobs - recompressed} copied as they are` : ''}`,
    )
  } else if (blobs > 0) out.push(`${blobs} blob file(s) copied as they are`)
  if (r.wals.length > 0)
    out.push(`write-ahead logs copied, replayed by RocksDB when it opens ${r.output}: ${r.wals.map((w) => `${w.file} (${formatBytes(w.bytes)})`).join(', ')}`)
  return out
}

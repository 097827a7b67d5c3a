/** The `rewrite` report: one row per file written. */
import type { RewriteResult } from '../index.js'
import type { TableModel } from './table.js'
import { formatBytes, signedPercent } from './text.js'

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

/** The `rewrite` report: one row per file written. */
import type { RewriteResult } from '../index.js'
import type { TableModel } from './table.js'
import { formatBytes, signedPercent } from './text.js'

export function rewriteModel(results: readonly RewriteResult[]): TableModel {
  return {
    columns: [
      { header: 'Input' },
      { header: 'Output' },
      { header: 'Before', align: 'right' },
      { header: 'After', align: 'right' },
      { header: 'Change', align: 'right' },
      { header: 'Blocks', align: 'right' },
      { header: 'Rejected', align: 'right' },
      { header: 'fv', align: 'right' },
      { header: 'ms', align: 'right' },
    ],
    rows: results.map((r) => [
      r.input,
      r.output,
      formatBytes(r.inputSize),
      formatBytes(r.fileSize),
      signedPercent(r.inputSize > 0 ? (r.fileSize - r.inputSize) / r.inputSize : null),
      r.dataBlocks,
      r.blocksRejected,
      r.formatVersion,
      Math.round(r.ms),
    ]),
  }
}

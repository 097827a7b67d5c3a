/** The `verify` report: one line per clean file, a CORRUPT (or NOT SUPPORTED) line and its problems otherwise. */
import { printableLine } from '../errors.js'
import { blockCountText } from './layout.js'

/** One verified file as `verify --json` prints it. */
export interface VerifyJson {
  file: string
  ok: boolean
  /** Every block, the footer included (as `layout` counts them). */
  blocksChecked: number
  dataBlocks: number
  entries: number
  rangeDeletions: number
  problems: VerifyProblemJson[]
  /** The comparator keys were ordered by, and where its name comes from. */
  comparator: string
  comparatorSource: 'recorded' | 'stated' | 'assumed'
  keyFormat: 'internal' | 'raw'
  /** Whether out-of-order keys count as problems: false when the file's comparator is unknown or only assumed. */
  orderChecked: boolean
  orderSkippedReason?: string
  /** Not damage: e.g. keys not in bytewise order in a table that records no comparator. */
  notes: VerifyProblemJson[]
}

export interface VerifyProblemJson {
  block: string
  offset: number | null
  message: string
  /** sstkit does not read this format or codec: not damage. */
  unsupported?: true
}

/**
 * The human report of one verified file: OK with counts, or CORRUPT with each problem (NOT
 * SUPPORTED when every problem is a format or codec sstkit does not read: an intact file is never
 * called corrupt for that); then its notes, and one line when key order was not checked at all.
 */
export function verifyText(r: VerifyJson): string {
  const verdict = r.problems.length > 0 && r.problems.every((p) => p.unsupported) ? 'NOT SUPPORTED' : 'CORRUPT'
  const lines = r.ok
    ? [`${r.file}: OK (${blockCountText(r.blocksChecked)}, ${r.dataBlocks} data blocks, ${r.entries} entries, ${r.rangeDeletions} range deletions)`]
    : [`${r.file}: ${verdict} (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'})`]
  for (const p of r.problems) lines.push(`  ${problemLine(p)}`)
  for (const n of r.notes) lines.push(`  note: ${problemLine(n)}`)
  // A table that records no comparator was still compared bytewise: its notes say what that found.
  if (!r.orderChecked && r.comparatorSource !== 'assumed') lines.push(printableLine(`  key order not checked: ${r.orderSkippedReason}`))
  return lines.join('\n')
}

function problemLine(p: VerifyProblemJson): string {
  return printableLine(`${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`)
}

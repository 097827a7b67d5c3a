/** The `verify` report: one line per clean file, a CORRUPT line and its problems otherwise. */
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
  problems: { block: string; offset: number | null; message: string }[]
}

/** The human report of one verified file: OK with counts, or CORRUPT with each problem. */
export function verifyText(r: VerifyJson): string {
  if (r.ok) return `${r.file}: OK (${blockCountText(r.blocksChecked)}, ${r.dataBlocks} data blocks, ${r.entries} entries, ${r.rangeDeletions} range deletions)`
  const lines = [`${r.file}: CORRUPT (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'})`]
  for (const p of r.problems) lines.push(`  ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`)
  return lines.join('\n')
}

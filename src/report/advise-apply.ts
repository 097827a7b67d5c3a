/** advise's plan for applying the advice to a database that stays online (advise/apply-plan.ts), in words. */
import type { ApplyPlan } from '../types/advice.js'
import { escapeName, formatBytes } from './text.js'

export function applyPlanLines(plan: ApplyPlan | null | undefined): string[] {
  if (!plan) return []
  return plan.columnFamilies.map((cf) => {
    const block = cf.blockSize == null ? [] : [`block_size to ${cf.blockSize}`]
    const levels = [cf.changedLevels.map((l) => `L${l}`).join(', '), ...block].filter(Boolean).join(' and ')
    const cpu =
      cf.cpuSeconds === null
        ? 'CPU unknown (a speed was not measured)'
        : `about ${cf.cpuSeconds < 10 ? cf.cpuSeconds.toFixed(2) : cf.cpuSeconds.toFixed(0)} s of CPU at the speeds above`
    return (
      `applying it online, column family "${escapeName(cf.name)}" (the advice changes ${levels}): options change only what RocksDB writes next; ` +
      `a full compaction rewrites all ${formatBytes(cf.rewriteBytes)} of its tables (${formatBytes(cf.uncompressedBytes)} uncompressed) into the bottommost level under ${cf.bottommostSetting}${cf.blockSize == null ? '' : ` at block_size ${cf.blockSize}`}, ` +
      `${cpu}, up to ${formatBytes(cf.temporaryBytes)} of temporary space: in the application ${cf.online}; ` +
      `with the database closed and its OPTIONS file holding the advice (--write-options), \`${cf.ldb}\` (ldb's compact is that CompactRange); ` +
      'the upper levels take their setting as new data is flushed and compacted. Offline, `sstkit rewrite DB -o OUT --advice ADVICE.json` writes every level with its own setting'
    )
  })
}

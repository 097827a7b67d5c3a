/**
 * How the advice reaches the bytes of a database that stays online. Changing options changes only
 * what RocksDB writes next: a level is re-encoded when compaction rewrites it, and the bottommost
 * level may wait for months. What does it at once is a full manual compaction, CompactRange over
 * the whole key range with bottommost_level_compaction=kForceOptimized (what `ldb compact` runs:
 * tools/ldb_cmd.cc CompactorCommand): it merges every level of the column family into the
 * bottommost one, so every table is rewritten, under the bottommost level's setting; the upper
 * levels take theirs as new data is flushed and compacted. Per column family whose advice changes
 * a level or its block_size (written by the same compaction): the bytes rewritten, the CPU at the speeds the decision used (compressing every byte
 * under the bottommost setting, decompressing today's tables), and the temporary space (a
 * compaction's outputs exist before its inputs are deleted: up to the projected size).
 */
import type { Advice, ApplyPlan, ApplyPlanColumnFamily, LevelAdvice } from '../types/advice.js'

export type { ApplyPlan, ApplyPlanColumnFamily }

function changed(l: LevelAdvice): boolean {
  const rec = l.recommended.estimate.setting
  const files = l.todayCompression
    .toLowerCase()
    .replace(/compression$/, '')
    .replace(/^no$/, 'none')
  return (l.today !== null && l.today.setting.label !== rec.label) || files !== rec.type
}

/** The plan for a database's advice (null for plain files and LevelDB, which has no CompactRange options to set). */
export function applyPlan(advice: Advice): ApplyPlan | null {
  if (advice.source.kind !== 'database' || advice.source.engine === 'leveldb') return null
  const db = advice.source.paths[0]
  const columnFamilies: ApplyPlanColumnFamily[] = []
  for (const cf of advice.columnFamilies) {
    const levels = cf.levels.filter((l) => l.level !== null)
    const changedLevels = levels.filter(changed).map((l) => l.level as number)
    // A new block_size (a table option) reaches the existing tables the same way: when they are rewritten.
    const b = cf.blockSize
    const blockSize = b && b.recommended !== null && b.recommended !== b.today ? b.recommended : null
    if (changedLevels.length === 0 && blockSize === null) continue
    const bottom = levels.reduce((a, b) => ((b.level as number) > (a.level as number) ? b : a))
    const speed = bottom.recommended.estimate.compressSecPerGB.value
    let cpu: number | null = 0
    let uncompressed = 0
    for (const l of levels) {
      const e = l.recommended.estimate
      const bytes = e.bytes.estimate * e.ratio
      uncompressed += bytes
      const decompress = l.today?.decompressMBps.value ?? null
      cpu = cpu === null || speed === null || decompress === null || decompress <= 0 ? null : cpu + (bytes / 1e9) * speed + bytes / 1e6 / decompress
    }
    const projected = bottom.recommended.estimate.ratio > 0 ? uncompressed / bottom.recommended.estimate.ratio : 0
    columnFamilies.push({
      name: cf.name,
      changedLevels,
      blockSize,
      rewriteBytes: levels.reduce((s, l) => s + l.fileBytes, 0),
      uncompressedBytes: uncompressed,
      bottommostSetting: bottom.recommended.estimate.setting.label,
      cpuSeconds: cpu,
      temporaryBytes: projected,
      online: `SetOptions(cf "${cf.name}", the advised options), then CompactRange(CompactRangeOptions{bottommost_level_compaction=kForceOptimized}, cf "${cf.name}", nullptr, nullptr)`,
      ldb: `ldb --db=${db} --try_load_options --column_family=${cf.name} compact`,
    })
  }
  return { columnFamilies }
}

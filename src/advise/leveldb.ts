/**
 * The one compression option of a LevelDB database (leveldb/options.h: kSnappyCompression, the
 * default, or kNoCompression), from the same evaluation as RocksDB's levels: snappy when it saves
 * at least MIN_GAIN of the bytes no compression would take, summed over every level. The per-level
 * RocksDB recommendation stays, as a separate suggestion for a migration to RocksDB.
 */
import { MIN_GAIN } from '../decide/rule.js'
import type { Advice, LevelDbAdvice, SettingEstimate } from '../types/advice.js'

export const LEVELDB_OPTION = { snappy: 'kSnappyCompression', none: 'kNoCompression' } as const

/** null when the matrix evaluated (--types) lacks snappy or no compression on a level that holds data. */
export function levelDbAdvice(advice: Advice): LevelDbAdvice | null {
  let snappyBytes = 0
  let noneBytes = 0
  let todayBytes = 0
  for (const l of advice.columnFamilies.flatMap((cf) => cf.levels)) {
    if (l.dataBlocks === 0) continue
    const find = (type: string) => l.matrix.find((m: SettingEstimate) => m.setting.type === type && m.setting.level === null && m.setting.dict === 'none')
    const snappy = find('snappy')
    const none = find('none')
    if (!snappy || !none || !Number.isFinite(snappy.bytes.estimate) || !Number.isFinite(none.bytes.estimate)) return null
    snappyBytes += snappy.bytes.estimate
    noneBytes += none.bytes.estimate
    todayBytes += l.dataBytes + l.todayDictBytes
  }
  const saves = noneBytes > 0 ? 1 - snappyBytes / noneBytes : 0
  const snappy = saves >= MIN_GAIN
  const pct = `${(saves * 100).toFixed(1)}%`
  return {
    compression: snappy ? LEVELDB_OPTION.snappy : LEVELDB_OPTION.none,
    snappyBytes,
    noneBytes,
    todayBytes,
    reason: snappy
      ? `snappy saves ${pct} of the bytes without compression`
      : `snappy saves ${pct} of the bytes without compression, under the ${(MIN_GAIN * 100).toFixed(0)}% that pays for its CPU`,
  }
}

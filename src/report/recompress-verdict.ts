/**
 * The verdict under the `recompress` table in words: recompress/verdict.ts decides (by the
 * decision core's rule, the one advise uses), this file says it in the table's units.
 */
import { decideRecompress } from '../recompress/verdict.js'
import type { LevelLimits, SettingEstimate, Timing } from '../types/advice.js'
import type { RecompressReport, RecompressResult } from '../index.js'
import { NOISY_MARK, signedPercent } from './text.js'

export { estimateOfResult, layoutFieldsShown, layoutOfResult, resultLabel, VERDICT_RULE } from '../recompress/verdict.js'

export interface RecompressChoice {
  type: string
  level: number | null
  dict: string
  checksum: boolean
  /** CompressionOptions::strategy of a zlib row under --compression-strategy (null: not given). */
  strategy: number | null
  /** The table layout (the file's own blocks: blockSize null). */
  blockSize: number | null
  restartInterval: number | null
  separateKeyValue: boolean | null
  indexCompression: boolean
  formatVersion: number
  /** As the table's Setting column shows it, e.g. "zstd 3 dict=finalize" (with several layouts, "zstd 3 16KiB"). */
  label: string
  reason: string
}

export interface RecompressVerdict {
  recommended: RecompressChoice
  runnerUp: RecompressChoice | null
  /** Whether compression CPU (and decompression speed) entered the choice; false when timings are noise. */
  rankedOnSpeed: boolean
  /** The whole verdict in words, for the line under the table. */
  text: string
}

function choiceOf(x: SettingEstimate, reason: string, results: Map<SettingEstimate, RecompressResult>): RecompressChoice {
  const r = results.get(x)!
  const { blockSize, restartInterval, separateKeyValue, indexCompression, formatVersion } = r
  return {
    type: r.type,
    level: r.level,
    dict: r.dict,
    checksum: r.checksum,
    strategy: r.strategy,
    blockSize,
    restartInterval,
    separateKeyValue,
    indexCompression,
    formatVersion,
    label: x.setting.label,
    reason,
  }
}

/** "1/20", "0.6x", "4.1x", "60x": how much compression CPU `a` takes against `b`. */
function cpuMultiple(a: Timing, b: Timing): string | null {
  if (a.value === null || b.value === null || !(a.value > 0) || !(b.value > 0)) return null
  const k = a.value / b.value
  return k <= 0.5 ? `1/${Math.round(1 / k)}` : `${k.toFixed(k < 10 ? 1 : 0)}x`
}

/** The runner-up in the table's units: "-0.1% bytes, 4.1x the compression CPU". */
function runnerUpReason(other: SettingEstimate, chosen: SettingEstimate, limits: LevelLimits, outside: boolean): string {
  const bytes = signedPercent(other.bytes.estimate / chosen.bytes.estimate - 1)
  const cpu = cpuMultiple(other.compressSecPerGB, chosen.compressSecPerGB)
  return `${bytes} bytes${cpu ? `, ${cpu} the compression CPU` : ''}${outside ? `, outside the limits (${limits.describe})` : ''}`
}

/** The verdict for one file, or null when nothing was evaluated (every row an auto-skip variant). */
export function recompressVerdict(report: RecompressReport, opts: { repeats?: number } = {}): RecompressVerdict | null {
  const d = decideRecompress(report, opts.repeats ?? 1)
  if (d === null) return null
  const { recommended, runnerUp, smallest, limits, results, rankedOnSpeed } = d
  const chosen = recommended.estimate
  let reason = recommended.reason
  let beside = ''
  if (chosen !== smallest) {
    // decide names the smallest when it gave way to a simpler or cheaper setting: say what that saves; else show what the limit left out.
    const cpu = cpuMultiple(chosen.compressSecPerGB, smallest.compressSecPerGB)
    if (reason.includes(`(${smallest.setting.label})`)) reason += cpu ? ` (${cpu} its compression CPU)` : ''
    else if (runnerUp?.estimate !== smallest) beside = `; smallest ${smallest.setting.label} (${runnerUpReason(smallest, chosen, limits, false)})`
  }
  const rec = choiceOf(chosen, reason, results)
  const other = runnerUp?.estimate
  const up = other ? choiceOf(other, runnerUpReason(other, chosen, limits, !d.runnerUpMeets), results) : null
  const noise = rankedOnSpeed ? '' : `; the speeds marked ${NOISY_MARK} are noise and were not weighed`
  const text = `verdict: ${rec.label} — ${rec.reason}${up ? `; runner-up ${up.label} (${up.reason})` : ''}${beside}${noise}`
  return { recommended: rec, runnerUp: up, rankedOnSpeed, text }
}

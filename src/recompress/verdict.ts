/**
 * recompress's verdict, decided: which setting to pick for one file, by the decision core's rule
 * (decide/rule.ts), the one advise uses, not a second one. Each RecompressResult becomes the
 * decision's SettingEstimate (exact sizes: the interval is the point; timings as Timing, a
 * decompression speed from the round trip's sample with its interval), then `decide` picks under
 * the objective advise applies to SST files without levels (balanced, not bottommost: the smallest
 * within a small multiple of the fastest setting's compression CPU; VERDICT_RULE says which).
 * report/recompress-verdict.ts words it.
 *
 * Noise: a timing the engine flags as noisy (isNoisyTiming) enters as not measured, and a CPU or
 * decompression limit is applied only when every compressing setting's timing is sound (the limit
 * is a multiple of the fastest, which a noisy timing could be). Otherwise the choice is by size
 * alone and the verdict says so.
 */
import { emptySums } from '../decide/estimate.js'
import type { Choice, LevelLimits, DictMode, SettingEstimate, SettingSpec, Timing } from '../types/advice.js'
import { decide, limitsFor, meets } from '../decide/rule.js'
import { settingLabel } from '../decide/settings.js'
import { type LayoutField, layoutLabel, strategyLabel, type TableLayout, varyingLayoutFields } from './config.js'
import type { RecompressReport, RecompressResult } from './engine.js'

/**
 * "zstd 19 dict=finalize +checksum": advise's label; a --dict-file dictionary reads dict=file; a zlib row under
 * --compression-strategy adds it ("zlib strategy=2"); with several layouts, the layout that varies ("zstd 3 16KiB").
 */
export function resultLabel(
  r: Pick<RecompressResult, 'type' | 'level' | 'dict' | 'checksum'> & Partial<LayoutFields & Pick<RecompressResult, 'strategy'>>,
  layoutShown: ReadonlySet<LayoutField> = new Set(),
): string {
  const setting = settingLabel({ type: r.type, level: r.level, dict: r.dict as DictMode, checksum: r.checksum }) + strategyLabel(r.strategy)
  const layout = layoutShown.size > 0 && r.blockSize !== undefined ? layoutLabel(layoutOfResult(r as LayoutFields), layoutShown) : ''
  return layout ? `${setting} ${layout}` : setting
}

type LayoutFields = Pick<RecompressResult, 'blockSize' | 'restartInterval' | 'separateKeyValue' | 'indexCompression' | 'formatVersion'>

/** A result's table layout (config.ts TableLayout). */
export function layoutOfResult(r: LayoutFields): TableLayout {
  return {
    blockSize: r.blockSize,
    restartInterval: r.restartInterval,
    separateKeyValue: r.separateKeyValue ?? null,
    indexCompression: r.indexCompression,
    formatVersion: r.formatVersion,
  }
}

/** The layout fields that differ between the results (none: one layout): their labels name those. */
export function layoutFieldsShown(results: readonly LayoutFields[]): Set<LayoutField> {
  return varyingLayoutFields(results.map(layoutOfResult))
}

/** advise's dictionary modes; an external dictionary weighs like a trained one (one to build and ship). */
function dictMode(dict: string): DictMode {
  return dict === 'file' ? 'train' : (dict as DictMode)
}

/** A sound timing as advise's Timing: one run has no interval; with repeats, the observed spread centred on the median. A noisy one is not measured. */
function timingOf(value: number | null, noisy: boolean, spread: number, repeats: number): Timing {
  if (value === null || noisy || !Number.isFinite(value)) return { value: null, low: null, high: null, noisy }
  if (repeats < 2) return { value, low: null, high: null, noisy: false }
  return { value, low: value * (1 - spread / 2), high: value * (1 + spread / 2), noisy: false }
}

/** A decompression speed as a Timing: a sampled one with its 95% interval (widened to the repeats' spread, if wider). */
function decompressTiming(r: RecompressResult, repeats: number): Timing {
  const t = timingOf(r.decompressMBps, r.decompressNoisy, r.decompressSpread, repeats)
  const i = r.decompressInterval
  if (t.value === null || !i || i.high === null) return t
  return { value: t.value, low: Math.min(i.low, t.low ?? i.low), high: Math.max(i.high, t.high ?? i.high), noisy: false }
}

/** One result as advise's estimate of a setting (the sizes are exact; a sampled decompression speed carries its interval). */
export function estimateOfResult(r: RecompressResult, repeats: number, layoutShown: ReadonlySet<LayoutField> = new Set()): SettingEstimate {
  const bytes = r.dataBytes + r.dictBytes
  const setting: SettingSpec = { type: r.type, level: r.level, dict: dictMode(r.dict), checksum: r.checksum, label: resultLabel(r, layoutShown) }
  const secPerGB = r.compressMBps === null ? null : 1000 / r.compressMBps
  return {
    setting,
    bytes: { estimate: bytes, low: bytes, high: bytes },
    change: { estimate: r.vsStored, low: r.vsStored, high: r.vsStored },
    ratio: r.ratio,
    dictSecPerGB: 0,
    // s/GB is the inverse of MB/s; the spread of a rate and of its inverse are the same share.
    compressSecPerGB: timingOf(secPerGB, r.compressNoisy, r.compressSpread, repeats),
    decompressMBps: decompressTiming(r, repeats),
    rejectedShare: r.blocksAttempted > 0 ? r.blocksRejected / r.blocksAttempted : 0,
    dictBytes: r.dictBytes,
    dictFilesBuilt: r.dictBytes > 0 ? 1 : 0,
    dictBytesBuilt: r.dictBytes,
    dictMsPerFile: r.dictMs,
    dictReferenceMsPerFile: r.dictMs,
    pareto: r.marks.includes('pareto'),
    // Sampling sums: every block's size was measured, so only the totals mean anything (no variance to carry; a
    // sampled decompression time is already scaled to every block, its interval in decompressMBps).
    sums: {
      ...emptySums(),
      n: r.blocks,
      sumC: r.dataBytes,
      sumU: r.uncompressedBytes,
      rejected: r.blocksRejected,
      compressMs: r.compressMs,
      decompressMs: r.decompressMs,
      decompressedBytes: r.blocksCompressed > 0 ? r.uncompressedBytes : 0,
    },
  }
}

/** The limit the verdict applies when the timings are sound, in words ("within 2x the fastest codec's CPU"). */
export const VERDICT_RULE = limitsFor('balanced', false, [], null, null).describe

const compressing = (x: SettingEstimate): boolean => x.setting.type !== 'none' && x.rejectedShare < 1

/** advise's limits for files without levels, keeping only those every compressing setting's timing can be judged against. */
function soundLimits(xs: SettingEstimate[]): { limits: LevelLimits; rankedOnSpeed: boolean } {
  const c = xs.filter(compressing)
  const cpuSound = c.length > 0 && c.every((x) => !x.compressSecPerGB.noisy)
  const decSound = c.length > 0 && c.every((x) => !x.decompressMBps.noisy)
  const l = limitsFor('balanced', false, xs, null, null)
  const limits: LevelLimits = {
    maxCompressSecPerGB: cpuSound ? l.maxCompressSecPerGB : null,
    minDecompressMBps: decSound ? l.minDecompressMBps : null,
    describe: cpuSound ? l.describe : 'by size',
  }
  return { limits, rankedOnSpeed: cpuSound }
}

/** The verdict's decision: the candidates as estimates, the choice and runner-up, the limits it applied. */
export interface VerdictDecision {
  candidates: SettingEstimate[]
  /** Each candidate's result. */
  results: Map<SettingEstimate, RecompressResult>
  recommended: Choice
  runnerUp: Choice | null
  /** The smallest candidate (the choice may have given way to a simpler or cheaper one). */
  smallest: SettingEstimate
  limits: LevelLimits
  /** Whether compression CPU (and decompression speed) entered the choice; false when timings are noise. */
  rankedOnSpeed: boolean
  /** Whether the runner-up meets the limits. */
  runnerUpMeets: boolean
}

/** The decision for one file, or null when nothing was evaluated (every row an auto-skip variant). */
export function decideRecompress(report: RecompressReport, repeats = 1): VerdictDecision | null {
  const rows = report.results.filter((r) => r.autoSkip === null && r.blocks > 0)
  if (rows.length === 0) return null
  const results = new Map<SettingEstimate, RecompressResult>()
  const shown = layoutFieldsShown(rows)
  const candidates = rows.map((r) => {
    const x = estimateOfResult(r, repeats, shown)
    results.set(x, r)
    return x
  })
  const { limits, rankedOnSpeed } = soundLimits(candidates)
  const { recommended, runnerUp } = decide(candidates, limits)
  const smallest = candidates.reduce((a, b) => (b.bytes.estimate < a.bytes.estimate ? b : a))
  return { candidates, results, recommended, runnerUp, smallest, limits, rankedOnSpeed, runnerUpMeets: runnerUp ? meets(runnerUp.estimate, limits) : true }
}

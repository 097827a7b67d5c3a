/**
 * The verdict under the `recompress` table: which setting to pick for this
 * file, decided by advise's rule (src/advise/decide.ts), not a second one.
 *
 * It lives here, above both feature modules, so that neither depends on the
 * other: each RecompressResult becomes advise's SettingEstimate (exact
 * sizes: the interval is the point; timings as Timing, a decompression speed
 * from the round trip's sample with its interval), then `decide`
 * picks under the objective advise applies to SST files without levels
 * (balanced, not bottommost: the smallest within a small multiple of the
 * fastest setting's compression CPU; VERDICT_RULE says which).
 *
 * Noise: a timing the engine flags as noisy (isNoisyTiming) enters as not
 * measured, and a CPU or decompression limit is applied only when every
 * compressing setting's timing is sound (the limit is a multiple of the
 * fastest, which a noisy timing could be). Otherwise the choice is by size
 * alone and the verdict says so.
 */
import { decide, limitsFor, meets, type LevelLimits } from '../advise/decide.js'
import { emptySums } from '../advise/estimate.js'
import type { DictMode, SettingEstimate, SettingSpec, Timing } from '../advise/model.js'
import { settingLabel } from '../advise/settings.js'
import type { RecompressReport, RecompressResult } from '../index.js'
import { type LayoutField, layoutLabel, type TableLayout, varyingLayoutFields } from '../recompress/config.js'
import { NOISY_MARK, signedPercent } from './text.js'

export interface RecompressChoice {
  type: string
  level: number | null
  dict: string
  checksum: boolean
  /** The table layout (the file's own blocks: blockSize null). */
  blockSize: number | null
  restartInterval: number | null
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

/** "zstd 19 dict=finalize +checksum": advise's label; a --dict-file dictionary reads dict=file. */
export function resultLabel(
  r: Pick<RecompressResult, 'type' | 'level' | 'dict' | 'checksum'> & Partial<LayoutFields>,
  layoutShown: ReadonlySet<LayoutField> = new Set(),
): string {
  const setting = settingLabel({ type: r.type, level: r.level, dict: r.dict as DictMode, checksum: r.checksum })
  const layout = layoutShown.size > 0 && r.blockSize !== undefined ? layoutLabel(layoutOfResult(r as LayoutFields), layoutShown) : ''
  return layout ? `${setting} ${layout}` : setting
}

type LayoutFields = Pick<RecompressResult, 'blockSize' | 'restartInterval' | 'indexCompression' | 'formatVersion'>

/** A result's table layout (recompress/config.ts TableLayout). */
export function layoutOfResult(r: LayoutFields): TableLayout {
  return { blockSize: r.blockSize, restartInterval: r.restartInterval, indexCompression: r.indexCompression, formatVersion: r.formatVersion }
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

const compressing = (x: SettingEstimate) => x.setting.type !== 'none' && x.rejectedShare < 1

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

function choiceOf(x: SettingEstimate, reason: string, results: Map<SettingEstimate, RecompressResult>): RecompressChoice {
  const r = results.get(x)!
  const { blockSize, restartInterval, indexCompression, formatVersion } = r
  return {
    type: r.type,
    level: r.level,
    dict: r.dict,
    checksum: r.checksum,
    blockSize,
    restartInterval,
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
  const candidates = report.results.filter((r) => r.autoSkip === null && r.blocks > 0)
  if (candidates.length === 0) return null
  const results = new Map<SettingEstimate, RecompressResult>()
  const shown = layoutFieldsShown(candidates)
  const xs = candidates.map((r) => {
    const x = estimateOfResult(r, opts.repeats ?? 1, shown)
    results.set(x, r)
    return x
  })
  const { limits, rankedOnSpeed } = soundLimits(xs)
  const { recommended, runnerUp } = decide(xs, limits)
  const chosen = recommended.estimate
  const smallest = xs.reduce((a, b) => (b.bytes.estimate < a.bytes.estimate ? b : a))
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
  const up = other ? choiceOf(other, runnerUpReason(other, chosen, limits, !meets(other, limits)), results) : null
  const noise = rankedOnSpeed ? '' : `; the speeds marked ${NOISY_MARK} are noise and were not weighed`
  const text = `verdict: ${rec.label} — ${rec.reason}${up ? `; runner-up ${up.label} (${up.reason})` : ''}${beside}${noise}`
  return { recommended: rec, runnerUp: up, rankedOnSpeed, text }
}

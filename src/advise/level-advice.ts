/**
 * One level's decision: its matrix of estimates, ranked on this run's timings or on the reference
 * speeds where those are noisy, the objective's limits and decider (decide/), the recommendation
 * and runner-up; a level not sampled keeps today's setting.
 */
import type { Choice, LevelLimits, LevelAdvice, SettingEstimate, SettingSpec, Timing } from '../types/advice.js'
import { decide, limitsFor, markPareto, meets, NOT_SAMPLED } from '../decide/rule.js'
import { emptySums } from '../decide/estimate.js'
import { atLeast, laterRelease, minimumRelease, supportedBy } from '../db/option-syntax.js'
import { nominalTimings } from '../decide/nominal.js'
import { spec, withRunOptions } from '../decide/settings.js'
import { balancedDecider, costDecider, DEFAULT_PRICES, pricedWorkload, rateWeightedLimits } from '../decide/cost.js'
import type { AdviseOptions } from './engine-options.js'
import { dictSecPerGB, estimateOf, type GroupState, sampled, scaleOf, todayInterval, todayOf, todaySetting, withDictionary } from './level-estimate.js'

/**
 * A level's matrix (this run's timings, shown), and the same with the CPU figures decisions rank
 * on: the reference speeds (decide/nominal.ts) and the reference model of each dictionary's
 * building. Bytes are this run's sample, exact for a seed; CPU from the model is the same on any
 * run, so the same database and seed get the same advice however busy the machine (docs/cpu.md).
 */
function rankedMatrix(st: GroupState): { matrix: SettingEstimate[]; ranked: SettingEstimate[]; today: SettingEstimate | null } {
  const todayBytes = todayOf(st)
  const matrix = st.settings.map((_, i) => estimateOf(st, i, todayBytes))
  markPareto(matrix)
  const today = st.todayIndex !== null ? matrix[st.todayIndex] : null
  const ranked = matrix.map((x, i) => {
    const dictSec = dictSecPerGB(st, i, true)
    return {
      ...x,
      compressSecPerGB: withDictionary(nominalTimings(x.setting).compress, dictSec),
      decompressMBps: nominalTimings(x.setting).decompress,
      dictSecPerGB: dictSec,
      dictMsPerFile: x.dictReferenceMsPerFile,
    }
  })
  return { matrix, ranked, today }
}

/** The ranked settings within the explicit CPU and decompression limits (all of them when none is). */
export function withinOtherLimits(st: GroupState, opts: AdviseOptions): SettingEstimate[] {
  const { ranked: all, matrix, today } = rankedMatrix(st)
  // Only what the database's RocksDB release parses (see option-syntax.ts).
  const version = opts.rocksdbVersion
  const parsed = version ? all.filter((x) => supportedBy(version, x.setting)) : all
  const ranked = parsed.length ? parsed : all
  // today's own row, even where its release filter left it out of ranked
  const limits = levelLimits(st, opts, ranked, today ? all[matrix.indexOf(today)] : null)
  const ok = ranked.filter((x) => meets(x, limits) && Number.isFinite(x.bytes.estimate))
  return ok.length ? ok : ranked.filter((x) => Number.isFinite(x.bytes.estimate))
}

type Decider = (
  candidates: SettingEstimate[],
  limits: LevelLimits,
  today: SettingEstimate | null,
  speeds: string | null,
) => { recommended: Choice; runnerUp: Choice | null }

/** The objective's limits for a level, weighted by the LOG's measured write rate where balanced has one (cost.ts). */
function levelLimits(st: GroupState, opts: AdviseOptions, ranked: SettingEstimate[], today: SettingEstimate | null): LevelLimits {
  const objective = deciding(opts)
  const limits = limitsFor(objective, st.group.bottommost, ranked, today, opts.limits)
  return rateWeightedLimits(limits, objective, opts.limits !== null, st.group, ranked, opts.workload)
}

/** The objective that decides: cost without a workload it may price on (measured over a long enough span, or --write-rate) is decided by the balanced rules. */
function deciding(opts: AdviseOptions): AdviseOptions['objective'] {
  return opts.objective === 'cost' && !pricedWorkload(opts.workload) ? 'balanced' : opts.objective
}

/**
 * The settings whose own timings in this run, clear of noise, put them on the other side of the
 * CPU limit than the reference speeds do ("zstd 3 inside"): said with the choice, never acted on,
 * so that the decision stays the same from run to run.
 */
function timingsDisagree(st: GroupState, opts: AdviseOptions, matrix: SettingEstimate[], ranked: SettingEstimate[], limits: LevelLimits): string[] {
  if (limits.maxCompressSecPerGB === null) return []
  const today = st.todayIndex !== null ? matrix[st.todayIndex] : null
  const own = levelLimits(st, opts, matrix, today).maxCompressSecPerGB
  if (own === null) return []
  const out: string[] = []
  matrix.forEach((x, i) => {
    const t = x.compressSecPerGB
    if (x.setting.type === 'none' || t.noisy || t.low === null || t.high === null || !Number.isFinite(x.bytes.estimate)) return
    const inside = (ranked[i].compressSecPerGB.value ?? 0) <= (limits.maxCompressSecPerGB as number)
    if (inside && t.low > own) out.push(`${x.setting.label} outside`)
    else if (!inside && t.high <= own) out.push(`${x.setting.label} inside`)
  })
  return out
}

/** The objective's decider for a level: with a measured workload, cost.ts's (dictionary building counted under balanced, pricing under cost); else decide(). */
function levelDecider(st: GroupState, opts: AdviseOptions): Decider {
  if (opts.limits !== null || !opts.workload?.measured) return decide
  const s0 = st.sums[0]
  const todayRatio = s0.sumS + s0.certainS > 0 ? s0.sumU / (s0.sumS + s0.certainS) : 0
  const objective = deciding(opts)
  if (objective === 'balanced') return balancedDecider(st.group, todayRatio, opts.workload)
  if (objective !== 'cost') return decide
  return costDecider(st.group, todayRatio, st.blocks > 0 ? s0.sumU / st.blocks : 0, opts.workload, opts.prices ?? DEFAULT_PRICES)
}

export function levelAdvice(
  st: GroupState,
  opts: AdviseOptions,
  filter: ((s: SettingSpec) => boolean) | null,
  decider: Decider = levelDecider(st, opts),
): LevelAdvice {
  if (!sampled(st)) {
    const advice = notSampledAdvice(st, opts)
    // A shard's part keeps every setting's (empty) sums, so that the parts merge; the merge decides.
    if (opts.shard !== null) advice.matrix = st.settings.map((_, i) => estimateOf(st, i, todayOf(st)))
    return advice
  }
  const { matrix, ranked, today } = rankedMatrix(st)
  const limits = levelLimits(st, opts, ranked, today ? ranked[matrix.indexOf(today)] : null)
  const candidates = filter ? ranked.filter((x) => filter(x.setting)) : ranked
  const rankedToday = today ? ranked[matrix.indexOf(today)] : null
  const choice = decider(candidates.length ? candidates : ranked, limits, rankedToday, 'reference speeds')
  // The figures shown with a choice are those it was ranked on: the reference speeds.
  const otherSide = timingsDisagree(st, opts, matrix, ranked, limits)
  const recommended = otherSide.length
    ? {
        ...choice.recommended,
        reason: `${choice.recommended.reason}; this run's own timings put ${otherSide.join(', ')} of the limit (ranked on the reference speeds, as every run is)`,
      }
    : choice.recommended
  const runnerUp = choice.runnerUp
  const sums0 = st.sums[0]
  const todayRatio = sums0.sumS + sums0.certainS > 0 ? sums0.sumU / (sums0.sumS + sums0.certainS) : 0
  const incompressible = recommended.estimate.rejectedShare
  return {
    columnFamily: st.group.columnFamily,
    level: st.group.level,
    bottommost: st.group.bottommost,
    // With files left unread, the figures the index gives are scaled by file size from the files read.
    files: st.totals.files + st.group.unread.files,
    fileBytes: st.totals.fileBytes + st.group.unread.fileBytes,
    dataBytes: Math.round(st.totals.dataBytes * scaleOf(st)),
    dataBlocks: Math.round(st.totals.dataBlocks * scaleOf(st)),
    entries: st.totals.entries === null ? null : Math.round(st.totals.entries * scaleOf(st)),
    todayDictBytes: Math.round(st.totals.dictBytes * scaleOf(st)),
    todayCompression: st.todayCompression,
    todayOptions: st.group.optionsSetting && withRunOptions(st.group.optionsSetting, opts.dict, opts.maxCompressedBytesPerKb),
    todayRatio,
    today: rankedToday,
    cpuBasis: 'reference',
    sample: {
      blocks: st.blocks,
      uncompressedBytes: sums0.sumU,
      share: st.rate,
      // What ended this level's sampling. Files left unread with the precision reached are the two-stage design's
      // (files drawn by size until the interval was narrow enough); left unread otherwise, the clock stopped it.
      stopped: st.done === null || (st.group.unread.files > 0 && st.done === 'all-blocks') ? 'time-budget' : st.done,
      filesRead: st.totals.files,
    },
    recommended,
    runnerUp,
    matrix,
    autoSkip: autoSkipAdvice(recommended.estimate, incompressible),
  }
}

/**
 * With the release known: the level's choice without that limit, when a later release is needed
 * for it and it saves bytes (the separate "with RocksDB >= X" line).
 */
/** `sharing`: the release that would let the level leave the shared compression_opts (its own since then), when it shares them. */
export function withNewerRelease(advice: LevelAdvice, st: GroupState, opts: AdviseOptions, sharing: string | null = null): LevelAdvice {
  const version = opts.rocksdbVersion
  if (!version) return advice
  const free = levelAdvice(st, opts, null).recommended.estimate
  const chosen = advice.recommended.estimate
  const since = sharing === null ? minimumRelease(free.setting) : laterRelease(minimumRelease(free.setting), sharing)
  if ((supportedBy(version, free.setting) && (sharing === null || atLeast(version, sharing))) || free.bytes.estimate >= chosen.bytes.estimate)
    return { ...advice, newerRelease: null }
  const saved = chosen.bytes.estimate - free.bytes.estimate
  return {
    ...advice,
    newerRelease: {
      since,
      setting: free.setting,
      bytes: free.bytes,
      savedBytes: saved,
      savedShare: chosen.bytes.estimate > 0 ? saved / chosen.bytes.estimate : 0,
    },
  }
}

/** The type of the placeholder setting of a level neither sampled nor known today. */
export const UNKNOWN_TYPE = 'unknown'

/**
 * A level with no evidence (the time budget ended before any of its blocks was evaluated): it keeps today's
 * setting, projected at today's bytes (with the spread between files where not every file was read), and
 * evaluates nothing else.
 */
function notSampledAdvice(st: GroupState, opts: AdviseOptions): LevelAdvice {
  const found = todaySetting(st.group)
  const setting = found ? withRunOptions(found, opts.dict, opts.maxCompressedBytesPerKb) : spec(UNKNOWN_TYPE, null, 'none', false)
  if (!found) setting.label = `today's (${st.todayCompression})`
  const bytes = todayInterval(st)
  const unmeasured: Timing = { value: null, low: null, high: null, noisy: false }
  const estimate: SettingEstimate = {
    setting,
    bytes,
    change: { estimate: 0, low: bytes.low / bytes.estimate - 1 || 0, high: bytes.high / bytes.estimate - 1 || 0 },
    ratio: 0,
    compressSecPerGB: unmeasured,
    decompressMBps: unmeasured,
    dictSecPerGB: 0,
    rejectedShare: 0,
    dictBytes: Math.round(st.totals.dictBytes * scaleOf(st)),
    dictFilesBuilt: 0,
    dictBytesBuilt: 0,
    dictMsPerFile: 0,
    dictReferenceMsPerFile: 0,
    pareto: false,
    sums: emptySums(),
  }
  return {
    columnFamily: st.group.columnFamily,
    level: st.group.level,
    bottommost: st.group.bottommost,
    files: st.totals.files + st.group.unread.files,
    fileBytes: st.totals.fileBytes + st.group.unread.fileBytes,
    dataBytes: Math.round(st.totals.dataBytes * scaleOf(st)),
    dataBlocks: Math.max(1, Math.round(st.totals.dataBlocks * scaleOf(st))),
    entries: st.totals.entries === null ? null : Math.round(st.totals.entries * scaleOf(st)),
    todayDictBytes: Math.round(st.totals.dictBytes * scaleOf(st)),
    todayCompression: st.todayCompression,
    todayOptions: st.group.optionsSetting && withRunOptions(st.group.optionsSetting, opts.dict, opts.maxCompressedBytesPerKb),
    todayRatio: 0,
    today: null,
    cpuBasis: 'reference',
    sample: { blocks: st.blocks, uncompressedBytes: 0, share: st.rate, stopped: 'not-sampled', filesRead: st.totals.files },
    recommended: { estimate, reason: `${NOT_SAMPLED}: keep today's setting` },
    runnerUp: null,
    matrix: [],
    autoSkip: null,
  }
}

/** Where many blocks do not compress, ratio-aware auto-skip would not spend CPU on them. */
function autoSkipAdvice(x: SettingEstimate, share: number): LevelAdvice['autoSkip'] {
  if (x.setting.type === 'none' || share < 0.2 || x.sums.compressMs <= 0) return null
  const saved = x.sums.rejectedMs / x.sums.compressMs
  return {
    incompressibleShare: share,
    cpuSavedShare: saved,
    note: `${(share * 100).toFixed(0)}% of the blocks do not compress under ${x.setting.label}; RocksDB's ratio-aware auto-skip would save up to ${(saved * 100).toFixed(0)}% of its compression CPU here`,
  }
}

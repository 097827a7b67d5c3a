/**
 * The decision: per level, one recommended setting, the runner-up, and why.
 *
 * Objectives, in the terms a RocksDB engineer weighs them (limits are relative
 * to the fastest compressing setting measured on this data, so they hold on any
 * machine):
 * - balanced (default): upper levels, which compaction rewrites again and again,
 *   get the smallest setting that compresses within 2x the CPU of the fastest
 *   codec; the bottommost level, which holds most bytes and serves most reads,
 *   gets the smallest setting within 8x that CPU that still decompresses at
 *   least 1/5 as fast as the fastest.
 * - size: the smallest setting on the bottommost level whatever its CPU; upper
 *   levels within 4x the fastest codec's CPU.
 * - speed: every level gets the smallest setting within 1.25x the fastest
 *   codec's CPU that decompresses at least half as fast as the fastest.
 * Then, a setting must save at least MIN_GAIN over a cheaper or simpler one to
 * be chosen (a dictionary, a higher level and a checksum all cost something
 * the size figures do not show), and timings are compared only where their
 * intervals say the difference is not noise.
 */
import { clearlyBelow } from './estimate.js'
import type { Objective, SettingEstimate, SettingSpec } from './model.js'

/** A setting must be this much smaller than a cheaper one to be worth its cost. */
export const MIN_GAIN = 0.01

export interface ExplicitLimits {
  /** Compression CPU at most this multiple of today's setting's (or of the fastest codec's when today does not compress). */
  maxCompressCpuRatio?: number
  minDecompressMBps?: number
  /** The projected total (every column family and level, dictionaries included) at most this many bytes... */
  maxBytes?: number
  /** ...or at most this share of the total today (`--max-bytes 80%`). */
  maxBytesShare?: number
}

export interface LevelLimits {
  maxCompressSecPerGB: number | null
  minDecompressMBps: number | null
  /** What the limits are, in a phrase for the reason. */
  describe: string
}

export const OBJECTIVES: Record<Objective, string> = {
  balanced:
    'upper levels, which compaction rewrites again and again, get the smallest setting within 3x the compression CPU of the fastest codec; the bottommost level, which holds most bytes and serves most reads, the smallest within 8x that CPU that decompresses at least 1/5 as fast as the fastest',
  size: 'the smallest setting on the bottommost level whatever its CPU; upper levels the smallest within 4x the compression CPU of the fastest codec',
  speed: 'every level the smallest setting within 1.25x the compression CPU of the fastest codec that decompresses at least half as fast as the fastest',
  cost: 'every level the setting of least total cost a month: its compression CPU at the write rate the info LOG measured (--cpu-price per core-hour) plus its bytes (--storage-price per GB-month)',
}

function compressing(xs: SettingEstimate[]): SettingEstimate[] {
  return xs.filter((x) => x.setting.type !== 'none' && x.rejectedShare < 1)
}

/** Fastest compression (s/GB) and decompression (MB/s) among the settings that compress. */
export function references(xs: SettingEstimate[]): { fastestCpu: number | null; fastestDecompress: number | null } {
  const cpus = compressing(xs)
    .map((x) => x.compressSecPerGB.value)
    .filter((v): v is number => v !== null && v > 0)
  const decs = compressing(xs)
    .map((x) => x.decompressMBps.value)
    .filter((v): v is number => v !== null && v > 0)
  return { fastestCpu: cpus.length ? Math.min(...cpus) : null, fastestDecompress: decs.length ? Math.max(...decs) : null }
}

export function limitsFor(
  objective: Objective,
  bottommost: boolean,
  xs: SettingEstimate[],
  today: SettingEstimate | null,
  explicit: ExplicitLimits | null,
): LevelLimits {
  const { fastestCpu, fastestDecompress } = references(xs)
  const cpu = (k: number) => (fastestCpu === null ? null : k * fastestCpu)
  const dec = (k: number) => (fastestDecompress === null ? null : k * fastestDecompress)
  if (explicit) {
    const todayCpu = today?.compressSecPerGB.value ?? null
    const base = todayCpu !== null && todayCpu > 0 ? todayCpu : fastestCpu
    const maxCpu = explicit.maxCompressCpuRatio !== undefined && base !== null ? explicit.maxCompressCpuRatio * base : null
    const parts = [
      ...(explicit.maxCompressCpuRatio !== undefined ? [`≤ ${explicit.maxCompressCpuRatio}x ${todayCpu ? "today's" : "the fastest codec's"} CPU`] : []),
      ...(explicit.minDecompressMBps !== undefined ? [`≥ ${explicit.minDecompressMBps} MB/s to decompress`] : []),
    ]
    return { maxCompressSecPerGB: maxCpu, minDecompressMBps: explicit.minDecompressMBps ?? null, describe: parts.join(', ') || 'no limits' }
  }
  switch (objective) {
    case 'balanced':
      return bottommost
        ? { maxCompressSecPerGB: cpu(8), minDecompressMBps: dec(1 / 5), describe: "within 8x the fastest codec's CPU" }
        : { maxCompressSecPerGB: cpu(3), minDecompressMBps: null, describe: "within 3x the fastest codec's CPU" }
    case 'size':
      return bottommost
        ? { maxCompressSecPerGB: null, minDecompressMBps: null, describe: 'whatever the CPU' }
        : { maxCompressSecPerGB: cpu(4), minDecompressMBps: null, describe: "within 4x the fastest codec's CPU" }
    case 'speed':
      return { maxCompressSecPerGB: cpu(1.25), minDecompressMBps: dec(1 / 2), describe: "within 1.25x the fastest codec's CPU" }
    case 'cost':
      // priced per level by cost.ts's decider: no multiple of the fastest codec
      return { maxCompressSecPerGB: null, minDecompressMBps: null, describe: 'least total cost' }
  }
}

export function meets(x: SettingEstimate, l: LevelLimits): boolean {
  const cpu = x.compressSecPerGB.value ?? 0
  if (l.maxCompressSecPerGB !== null && x.setting.type !== 'none' && cpu > l.maxCompressSecPerGB) return false
  const dec = x.decompressMBps.value
  if (l.minDecompressMBps !== null && dec !== null && dec < l.minDecompressMBps) return false
  return true
}

/** How much a setting asks beyond its size: dictionary, level, checksum (lower is simpler). */
function complexity(x: SettingEstimate): number {
  const s = x.setting
  if (s.type === 'none') return 0
  return 10 + (s.dict === 'none' ? 0 : s.dict === 'raw' ? 2 : 1) * 100 + (s.checksum ? 50 : 0) + Math.max(0, s.level ?? 0)
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`
}

export interface Choice {
  estimate: SettingEstimate
  reason: string
}

/** Why a level has no estimate: none of its blocks was evaluated in this run. */
export const NOT_SAMPLED = 'not sampled (the time budget ended before any block of this level was evaluated)'

/** "4.1 s/GB": a CPU figure as reasons quote it. */
function cpuFigure(v: number): string {
  return `${v < 1 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} s/GB`
}

/**
 * "1.2x the compression CPU (4.9 vs 4.1 s/GB)": a ratio always with the two
 * figures it divides, named as what they are (`speeds`: "reference speeds"
 * when the decision ranked on those, not on this run's noisy timings).
 */
export function cpuComparison(other: SettingEstimate, chosen: SettingEstimate, speeds: string | null): string {
  const a = chosen.compressSecPerGB.value
  const b = other.compressSecPerGB.value
  if (!a || !b) return ''
  const noisy = speeds === null && (other.compressSecPerGB.noisy || chosen.compressSecPerGB.noisy) ? ', noisy' : ''
  return `, ${(b / a).toFixed(1)}x the compression CPU (${cpuFigure(b)} vs ${cpuFigure(a)}${speeds ? ` at ${speeds}` : ''}${noisy})`
}

/**
 * Recommended and runner-up among `xs` under the limits. A level of which no block was
 * evaluated keeps `today`'s setting: nothing measured speaks for a change. A setting other
 * than today's (when today is among `xs` and meets the limits) must be at least MIN_GAIN
 * smaller than today's; else today's is kept. `speeds`: what the CPU figures are, when they
 * are not this run's own (reference speeds).
 */
export function decide(
  xs: SettingEstimate[],
  limits: LevelLimits,
  today: SettingEstimate | null = null,
  speeds: string | null = null,
): { recommended: Choice; runnerUp: Choice | null } {
  const size = (x: SettingEstimate) => x.bytes.estimate
  const ok = xs.filter((x) => meets(x, limits) && Number.isFinite(size(x)))
  if (!xs.some((x) => Number.isFinite(size(x)))) {
    if (!today) throw new RangeError(`decide: ${NOT_SAMPLED}, and today's setting unknown`)
    return { recommended: { estimate: today, reason: `keep today's setting: ${NOT_SAMPLED}` }, runnerUp: null }
  }
  if (ok.length === 0) {
    const fallback = [...xs].filter((x) => Number.isFinite(size(x))).sort((a, b) => (a.compressSecPerGB.value ?? 0) - (b.compressSecPerGB.value ?? 0))[0]
    return { recommended: { estimate: fallback, reason: `no setting meets the limits (${limits.describe}): the cheapest to compress` }, runnerUp: null }
  }
  const smallest = ok.reduce((a, b) => (size(b) < size(a) ? b : a))
  // Settings within MIN_GAIN of the smallest: prefer clearly less CPU, then the simplest.
  const ties = ok.filter((x) => size(x) <= size(smallest) * (1 + MIN_GAIN))
  let chosen = smallest
  for (const x of ties) {
    if (x === chosen) continue
    const cheaper = clearlyBelow(x.compressSecPerGB, chosen.compressSecPerGB) || (x.setting.type === 'none' && chosen.setting.type !== 'none')
    const sameCost = !clearlyBelow(chosen.compressSecPerGB, x.compressSecPerGB)
    if (cheaper || (sameCost && complexity(x) < complexity(chosen))) chosen = x
  }
  let reason: string
  // Storing raw data that does not compress saves all of today's compression CPU: that change pays without a byte.
  const rawPays = chosen.setting.type === 'none' && chosen === smallest
  const todayCounts = today !== null && ok.includes(today) && today !== chosen && !rawPays
  if (todayCounts && size(chosen) > size(today) * (1 - MIN_GAIN)) {
    // No change without a gain: what the others would save is not worth changing anything.
    const saving = 1 - size(chosen) / size(today)
    reason = `keep today's setting: ${chosen.setting.label} would ${saving > 0 ? `save only ${pct(saving)}` : 'save nothing'} (a change must save at least ${pct(MIN_GAIN)})`
    const bytes = size(chosen) / size(today) - 1
    return {
      recommended: { estimate: today, reason },
      runnerUp: { estimate: chosen, reason: `${bytes >= 0 ? '+' : '−'}${pct(Math.abs(bytes))} bytes${cpuComparison(chosen, today, speeds)}` },
    }
  }
  if (chosen.setting.type === 'none' && chosen === smallest) reason = 'the data does not compress: store it raw'
  else if (chosen === smallest) reason = `smallest ${limits.describe}`
  else {
    const saving = 1 - size(smallest) / size(chosen)
    const what =
      smallest.setting.dict !== 'none' && chosen.setting.dict === 'none' && smallest.setting.type === chosen.setting.type
        ? `no dictionary: it saves only ${pct(saving)} here`
        : `within ${pct(saving)} of the smallest (${smallest.setting.label}) at ${clearlyBelow(chosen.compressSecPerGB, smallest.compressSecPerGB) ? 'less CPU' : 'less cost'}`
    reason = what
  }
  if (today !== null && today !== chosen && !ok.includes(today) && Number.isFinite(size(today)))
    reason += `; today's is outside the limits (${limits.describe})`
  const rest = ok.filter((x) => x !== chosen).sort((a, b) => size(a) - size(b))
  let runnerUp: Choice | null = null
  const other = rest[0] ?? xs.filter((x) => x !== chosen && Number.isFinite(size(x))).sort((a, b) => size(a) - size(b))[0]
  if (other) {
    const bytes = size(other) / size(chosen) - 1
    runnerUp = {
      estimate: other,
      reason: `${bytes >= 0 ? '+' : '−'}${pct(Math.abs(bytes))} bytes${cpuComparison(other, chosen, speeds)}${meets(other, limits) ? '' : `; outside the limits (${limits.describe})`}`,
    }
  }
  return { recommended: { estimate: chosen, reason }, runnerUp }
}

/** Mark the Pareto front of size against compression CPU. */
export function markPareto(xs: SettingEstimate[]): void {
  const cpu = (x: SettingEstimate) => x.compressSecPerGB.value ?? 0
  const size = (x: SettingEstimate) => x.bytes.estimate
  for (const x of xs) {
    x.pareto = !xs.some((o) => o !== x && size(o) <= size(x) && cpu(o) <= cpu(x) && (size(o) < size(x) || cpu(o) < cpu(x)))
  }
}

/**
 * `--max-bytes`: a limit on the projected total, met at the least compression
 * CPU. A level's CPU is its setting's s/GB times the level's uncompressed GB,
 * so the bytes are saved where they cost least (usually the bottommost level,
 * which holds most of them). The levels are coupled only through the total:
 * the choice is exact, over every combination, kept small by dropping any
 * partial combination that another beats on both bytes and CPU (a Pareto
 * front per column family, then across them). Levels of one column family
 * that are not the bottommost share compression_opts, so each family's front
 * is the union over the settings that could carry them.
 */
export interface BudgetLevel {
  /** Levels with the same family and `sharesOpts` must agree on compression_opts. */
  family: string
  sharesOpts: boolean
  /** The settings within the other limits, with the CPU figures decide() ranks on. */
  candidates: SettingEstimate[]
  /** Uncompressed GB of the level: what its s/GB figures are per. */
  inputGB: number
}

export interface BudgetResult {
  /** Per level, its candidate chosen. */
  picks: SettingEstimate[]
  met: boolean
  projected: number
}

/** A partial choice: some levels' settings, their bytes and CPU seconds. */
interface Combination {
  bytes: number
  cpu: number
  picks: (SettingEstimate | undefined)[]
}

/** Fronts are thinned beyond this many combinations (never reached with a few levels and the default matrix). */
const MAX_FRONT = 4096

/** The combinations no other beats on both bytes and CPU, fewest bytes first. */
function paretoFront(xs: Combination[]): Combination[] {
  const sorted = [...xs].sort((a, b) => a.bytes - b.bytes || a.cpu - b.cpu)
  const out: Combination[] = []
  for (const x of sorted) if (out.length === 0 || x.cpu < out[out.length - 1].cpu) out.push(x)
  if (out.length <= MAX_FRONT) return out
  const step = out.length / MAX_FRONT
  return out.filter((_, i) => i === 0 || i === out.length - 1 || Math.floor(i / step) !== Math.floor((i - 1) / step))
}

function combine(a: Combination[], b: Combination[]): Combination[] {
  const out: Combination[] = []
  for (const x of a) for (const y of b) out.push({ bytes: x.bytes + y.bytes, cpu: x.cpu + y.cpu, picks: x.picks.map((p, i) => p ?? y.picks[i]) })
  return paretoFront(out)
}

export function withinBytes(levels: BudgetLevel[], maxBytes: number, compatible: (s: SettingSpec, carrier: SettingSpec) => boolean): BudgetResult {
  const cpuOf = (l: BudgetLevel, x: SettingEstimate) => (x.setting.type === 'none' ? 0 : (x.compressSecPerGB.value ?? 0) * l.inputGB)
  const levelFront = (i: number, xs: SettingEstimate[]): Combination[] =>
    paretoFront(
      xs.map((x) => {
        const picks: (SettingEstimate | undefined)[] = new Array(levels.length).fill(undefined)
        picks[i] = x
        return { bytes: x.bytes.estimate, cpu: cpuOf(levels[i], x), picks }
      }),
    )
  const empty: Combination[] = [{ bytes: 0, cpu: 0, picks: new Array(levels.length).fill(undefined) }]
  let all = empty
  for (const family of new Set(levels.map((l) => l.family))) {
    const own = levels.flatMap((l, i) => (l.family === family && !l.sharesOpts ? [i] : []))
    const upper = levels.flatMap((l, i) => (l.family === family && l.sharesOpts ? [i] : []))
    let fronts = own.reduce((acc, i) => combine(acc, levelFront(i, levels[i].candidates)), empty)
    if (upper.length > 0) {
      const carriers = new Map(upper.flatMap((i) => levels[i].candidates.map((x) => [x.setting.label, x.setting] as const)))
      const shared: Combination[] = []
      for (const carrier of carriers.values()) {
        const options = upper.map((i) => levels[i].candidates.filter((x) => compatible(x.setting, carrier)))
        if (options.some((o) => o.length === 0)) continue
        shared.push(...upper.reduce((acc, i, k) => combine(acc, levelFront(i, options[k])), empty))
      }
      // No carrier suits every upper level (the other limits left them nothing in common): each takes its own.
      if (shared.length === 0) shared.push(...upper.reduce((acc, i) => combine(acc, levelFront(i, levels[i].candidates)), empty))
      fronts = combine(fronts, paretoFront(shared))
    }
    all = combine(all, fronts)
  }
  const fitting = all.filter((c) => c.bytes <= maxBytes)
  // The front is sorted by bytes with CPU falling: the last that fits needs the least CPU; the first is the smallest.
  const chosen = fitting.length > 0 ? fitting[fitting.length - 1] : all[0]
  const picks = chosen.picks.map((p, i) => p ?? levels[i].candidates[0])
  return { picks, met: fitting.length > 0, projected: chosen.bytes }
}

/** The recommendation and runner-up of one level under `--max-bytes`, from the allocation's pick. */
export function budgetChoice(
  candidates: SettingEstimate[],
  pick: SettingEstimate,
  met: boolean,
  describe: string,
): { recommended: Choice; runnerUp: Choice | null } {
  const cpu = (x: SettingEstimate) => (x.setting.type === 'none' ? 0 : (x.compressSecPerGB.value ?? 0))
  const cheapest = candidates.reduce((a, b) => (cpu(b) < cpu(a) || (cpu(b) === cpu(a) && b.bytes.estimate < a.bytes.estimate) ? b : a))
  const reason = !met
    ? `the smallest: no choice of settings fits ${describe}`
    : pick === cheapest
      ? `the cheapest to compress: the total fits ${describe}`
      : `least CPU for the total to fit ${describe}`
  // The runner-up: the next smaller setting (what squeezing this level further would cost), else the next cheaper.
  const smaller = candidates
    .filter((x) => x !== pick && x.bytes.estimate < pick.bytes.estimate)
    .sort((a, b) => b.bytes.estimate - a.bytes.estimate || cpu(a) - cpu(b))
  const cheaper = candidates.filter((x) => x !== pick && cpu(x) <= cpu(pick)).sort((a, b) => a.bytes.estimate - b.bytes.estimate)
  const other = smaller[0] ?? cheaper[0] ?? null
  if (!other) return { recommended: { estimate: pick, reason }, runnerUp: null }
  const bytes = other.bytes.estimate / pick.bytes.estimate - 1
  const ratio = cpuComparison(other, pick, null)
  return { recommended: { estimate: pick, reason }, runnerUp: { estimate: other, reason: `${bytes >= 0 ? '+' : '−'}${pct(Math.abs(bytes))} bytes${ratio}` } }
}

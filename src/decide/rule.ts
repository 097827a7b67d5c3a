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
 *   least 1/16 as fast as the fastest (BOTTOMMOST_MIN_DECOMPRESS_SHARE).
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
import type { Choice, ExplicitLimits, LevelLimits, Objective, SettingEstimate } from '../types/advice.js'

/** A setting must be this much smaller than a cheaper one to be worth its cost. */
export const MIN_GAIN = 0.01

/**
 * balanced's floor on the bottommost level's decompression speed, a share of the fastest codec's.
 * It keeps zlib- and bzip2-class decoders off the level that serves most reads, not zstd: timed as
 * RocksDB decodes (the codec kernel, no per-call overhead) LZ4 decodes 4 KiB blocks at memory
 * speed, 10-11x zstd at any level (docs/cpu.md), while zlib is 1/20 of it and bzip2 1/200. The 1/5
 * of earlier releases was set when per-call overhead hid that gap, and ruled zstd out.
 */
export const BOTTOMMOST_MIN_DECOMPRESS_SHARE = 1 / 16

export const OBJECTIVES: Record<Objective, string> = {
  balanced:
    'upper levels, which compaction rewrites again and again, get the smallest setting within 3x the compression CPU of the fastest codec; the bottommost level, which holds most bytes and serves most reads, the smallest within 8x that CPU that decompresses at least 1/16 as fast as the fastest',
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
        ? { maxCompressSecPerGB: cpu(8), minDecompressMBps: dec(BOTTOMMOST_MIN_DECOMPRESS_SHARE), describe: "within 8x the fastest codec's CPU" }
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

export function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`
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
  if (today !== null && chosen === today && chosen !== smallest) {
    // Today's won the tie among settings within MIN_GAIN of the smallest: the smallest saves too little to change.
    const saving = 1 - size(smallest) / size(today)
    reason = `keep today's setting: ${smallest.setting.label} would save only ${pct(saving)} (a change must save at least ${pct(MIN_GAIN)})`
  } else if (chosen.setting.type === 'none' && chosen === smallest) reason = 'the data does not compress: store it raw'
  else if (chosen === smallest) reason = `smallest ${limits.describe}`
  else {
    const saving = 1 - size(smallest) / size(chosen)
    const what =
      smallest.setting.dict !== 'none' && chosen.setting.dict === 'none' && smallest.setting.type === chosen.setting.type
        ? `no dictionary: it saves only ${pct(saving)} here`
        : `within ${pct(saving)} of the smallest (${smallest.setting.label}) at ${clearlyBelow(chosen.compressSecPerGB, smallest.compressSecPerGB) ? 'less CPU' : 'less cost'}`
    reason = what
  }
  // Today's is outside the limits only when its own figures are (the candidates may leave it out for other reasons).
  if (today !== null && today !== chosen && !meets(today, limits) && Number.isFinite(size(today)))
    reason += `; today's is outside the limits (${limits.describe})`
  // The runner-up is an alternative: smaller, or cheaper to compress; never one worse in both.
  const cpuOf = (x: SettingEstimate) => (x.setting.type === 'none' ? 0 : (x.compressSecPerGB.value ?? 0))
  const alternative = (x: SettingEstimate) => x !== chosen && Number.isFinite(size(x)) && !(size(x) > size(chosen) && cpuOf(x) > cpuOf(chosen))
  const rest = ok.filter(alternative).sort((a, b) => size(a) - size(b))
  let runnerUp: Choice | null = null
  const other = rest[0] ?? xs.filter(alternative).sort((a, b) => size(a) - size(b))[0]
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

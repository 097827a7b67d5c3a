/**
 * Advice priced on the database's own workload: what each setting costs at the rate this database
 * is written, as its info LOGs record it (src/db/event-log.ts).
 *
 * Per column family and level, from the LOGs' span:
 * - written: bytes flushes and compactions wrote there per second (what RocksDB compressed, as
 *   stored); input: the same before compression, data blocks' bytes on disk (data_size) times the
 *   level's sampled uncompressed/stored ratio (the unit sstkit's CPU figures are per), or the raw
 *   key and value bytes when the level was not sampled;
 * - a setting's compression cores = its seconds per GB of input × input GB per second, plus its
 *   dictionary building (ms per file × files written per second); CPU-hours per day = cores × 24;
 *   bytes saved against today: the level's projected size (stored) and per day written;
 * - the compaction CPU RocksDB measured (compaction_time_cpu_micros) against sstkit's model of
 *   today's setting on the same bytes (compression plus decompression of as many bytes): how far
 *   apart they are (the rest is RocksDB's reading, merging and writing); on L0 likewise the flush
 *   CPU of the flushes' "Flush lasted" lines against the model's compression of the bytes those
 *   flushes wrote (the rest is building the table from the memtable and writing it). Without such
 *   lines (RocksDB before 6.24, or only a WAL recovery's flushes) L0 is priced on the model only,
 *   and says so.
 * Reads: the statistics dumps' rocksdb.block.cache.data.miss (data blocks read from the files, so
 * decompressed) per second; decompression cores for a setting = misses/s × the level's mean
 * uncompressed block / its decompression speed. RocksDB counts them for the whole database, so
 * they are put on each column family's bottommost level (which serves most reads) and said so.
 *
 * Decisions with it: `balanced` weighs each level's CPU multiple by its measured write rate
 * (a level written at w times the average rate gets the multiple divided by w, between 1.25x and
 * 32x); `cost` picks per level the setting of least compression CPU plus storage, in dollars a
 * month at --cpu-price and --storage-price.
 */
import type {
  Choice,
  LevelLimits,
  LevelAdvice,
  LevelCost,
  MeasuredLevel,
  MeasuredWorkload,
  Prices,
  SettingCost,
  SettingEstimate,
  WorkloadAdvice,
} from '../types/advice.js'
import { decide, references } from './rule.js'
import { nominalTimings } from './nominal.js'

/**
 * Below this span the LOGs are a short span: rates from minutes may not be the day's (a burst, a
 * bulk load, a benchmark). `--objective cost` prices on a short span's rates only when the user
 * gives the rate (--write-rate); else the balanced rules decide, and a note says so.
 */
export const SHORT_SPAN_SECONDS = 3600

/** The workload `--objective cost` may price on: measured over at least SHORT_SPAN_SECONDS, or at a rate the user gave. */
export function pricedWorkload(workload: WorkloadAdvice | null | undefined): MeasuredWorkload | null {
  const m = workload?.measured
  return m && !m.shortSpan ? m : null
}
export const HOURS_PER_DAY = 24
/** Hours in a month (365.25 × 24 / 12), for $/core-hour → $/month. */
export const HOURS_PER_MONTH = 730.5
/** Multiples a rate-weighted balanced level is held between (the speed objective's and well past size's). */
export const WEIGHTED_MULTIPLE_MIN = 1.25
export const WEIGHTED_MULTIPLE_MAX = 32
/** balanced's fixed multiples (decide.ts OBJECTIVES), weighted per level when the LOG has rates. */
const BALANCED_UPPER = 3
const BALANCED_BOTTOM = 8

/** On-demand cloud prices of 2026 as a starting point: a vCPU-hour, a GB-month of block storage. */
export const DEFAULT_PRICES: Readonly<Prices> = Object.freeze({ cpuPerCoreHour: 0.04, storagePerGBMonth: 0.08 })

/**
 * A setting's compression s/GB and decompression MB/s as prices and decisions take them: the
 * reference speeds (nominal.ts), the same on every run; this run's own timings are shown in the
 * matrix, never priced on.
 */
export function speedsOf(x: SettingEstimate): { compressSecPerGB: number; decompressMBps: number | null; reference: boolean } {
  if (x.setting.type === 'none') return { compressSecPerGB: 0, decompressMBps: null, reference: true }
  const nominal = nominalTimings(x.setting)
  return { compressSecPerGB: nominal.compress.value ?? 0, decompressMBps: nominal.decompress.value, reference: true }
}

export function spanText(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(1)} s`
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`
  if (seconds < 2 * 86400) return `${(seconds / 3600).toFixed(1)} h`
  return `${(seconds / 86400).toFixed(1)} days`
}

export function measuredLevel(workload: WorkloadAdvice | null | undefined, columnFamily: string, level: number | null): MeasuredLevel | null {
  if (!workload?.measured || level === null) return null
  return workload.measured.levels.find((l) => l.columnFamily === columnFamily && l.level === level) ?? null
}

/** What sstkit's figures need of a level besides its matrix. */
export interface LevelShape {
  columnFamily: string
  level: number | null
  bottommost: boolean
  /** Uncompressed / stored data blocks, sampled (0 when not). */
  todayRatio: number
  /** Mean uncompressed bytes of a data block (for reads); 0 when unknown. */
  meanBlockBytes: number
}

/** Input bytes per second (uncompressed data blocks) of a measured level. */
function inputPerSecond(m: MeasuredLevel, shape: LevelShape, span: number): number {
  const input = shape.todayRatio > 0 && m.dataBytes > 0 ? m.dataBytes * shape.todayRatio : m.rawBytes
  // the files the LOG lists; compactions may have written more (outputs of cancelled ones)
  const unlisted = m.fileBytes > 0 ? Math.max(1, m.writtenBytes / m.fileBytes) : 1
  return (input * unlisted) / span
}

/** One setting's cost at a measured level. */
export function settingCost(
  x: SettingEstimate,
  today: SettingEstimate | null,
  m: MeasuredLevel,
  shape: LevelShape,
  workload: MeasuredWorkload,
  prices: Prices | null,
): SettingCost {
  const span = workload.spanSeconds
  const inputGBps = inputPerSecond(m, shape, span) / 1e9
  const speeds = speedsOf(x)
  const compress = speeds.compressSecPerGB * inputGBps
  const dictCores = x.setting.dict === 'none' ? 0 : (x.dictReferenceMsPerFile / 1000) * (m.files / span)
  const cores = compress + dictCores
  const readCores = readCoresOf(x, shape, workload)
  const writtenPerDay = (m.writtenBytes / span) * 86400
  const relative = today && today.bytes.estimate > 0 ? x.bytes.estimate / today.bytes.estimate : 1
  const todayBytes = today ? today.bytes.estimate : x.bytes.estimate / (1 + x.change.estimate)
  const dollars = prices ? (cores + (readCores ?? 0)) * prices.cpuPerCoreHour * HOURS_PER_MONTH + (x.bytes.estimate / 1e9) * prices.storagePerGBMonth : null
  return {
    label: x.setting.label,
    cores,
    cpuHoursPerDay: cores * HOURS_PER_DAY,
    dictCores,
    readCores,
    writtenPerDay: writtenPerDay * relative,
    savedBytes: todayBytes - x.bytes.estimate,
    savedPerDay: writtenPerDay * (1 - relative),
    dollarsPerMonth: dollars,
    referenceSpeeds: speeds.reference,
  }
}

function readCoresOf(x: SettingEstimate, shape: LevelShape, workload: MeasuredWorkload): number | null {
  if (!shape.bottommost || workload.reads === null || shape.meanBlockBytes <= 0) return null
  if (x.setting.type === 'none') return 0
  const mbps = speedsOf(x).decompressMBps
  if (mbps === null || mbps <= 0) return null
  return (workload.reads.dataBlockMissesPerSec * shape.meanBlockBytes) / (mbps * 1e6)
}

/** A level's costs, once decided: every setting, today's and the recommendation's, and the model check. */
export function levelCost(l: LevelAdvice, workload: WorkloadAdvice | null | undefined): LevelCost | null {
  const m = measuredLevel(workload, l.columnFamily, l.level)
  if (!m || !workload?.measured) return null
  const w = workload.measured
  const shape = shapeOf(l)
  const span = w.spanSeconds
  const today = l.today
  const settings = l.matrix.map((x) => settingCost(x, today, m, shape, w, workload.prices))
  const at = (x: SettingEstimate | null) => (x ? (settings[l.matrix.indexOf(x)] ?? settingCost(x, today, m, shape, w, workload.prices)) : null)
  const recommended = at(l.recommended.estimate)!
  const todayCost = at(today)
  const measuredCores = m.compactions > 0 ? m.compactionCpuSeconds / span : null
  let modelCores: number | null = null
  let modelCheck: string | null = null
  if (measuredCores !== null && today && m.compactions > 0) {
    const compactedInput = (inputPerSecond(m, shape, span) * (m.compactionOutputBytes / m.writtenBytes)) / 1e9
    const speeds = speedsOf(today)
    const mbps = speeds.decompressMBps
    const decompress = mbps === null || mbps <= 0 ? 0 : 1000 / mbps
    const compress = speeds.compressSecPerGB
    modelCores = compactedInput * (compress + decompress)
    if (measuredCores > 0) {
      const share = modelCores / measuredCores
      modelCheck = `RocksDB spent ${formatCores(measuredCores)} cores compacting into L${l.level}; sstkit's model of ${today.setting.label}${speeds.reference ? ' (reference speeds)' : ''} (compress and decompress those bytes) ${formatCores(modelCores)}, ${percent(share)} of it${share > 1.5 ? ': the model is above the measured total, its speeds or the LOG’s rate are off here' : ' (the rest: reading, merging, writing)'}`
    }
  }
  const flush = flushCheckOf(l, m, shape, w, today)
  return {
    writtenPerDay: (m.writtenBytes / span) * 86400,
    inputPerDay: inputPerSecond(m, shape, span) * 86400,
    filesPerDay: (m.files / span) * 86400,
    settings,
    today: todayCost,
    recommended,
    measuredCompactionCores: measuredCores,
    modelCompactionCores: modelCores,
    modelCheck,
    measuredFlushCores: flush.measured,
    modelFlushCores: flush.model,
    flushCheck: flush.line,
  }
}

/** Which flushes the logged flush CPU covers: all of them, or a share of the bytes flushed. */
function coverage(m: MeasuredLevel): string {
  const flushes = `${m.flushCpuFlushes} flush${m.flushCpuFlushes === 1 ? '' : 'es'}`
  const share = m.flushBytes > 0 ? m.flushCpuFileBytes / m.flushBytes : 1
  if (share >= 0.995) return flushes
  return `${flushes}, ${percent(share)} of the bytes flushed; the rest logged no CPU (a WAL recovery at open, or RocksDB before 6.24)`
}

/** A share as a percentage people read: whole above 10%, one decimal below. */
function percent(share: number): string {
  return `${(share * 100).toFixed(share >= 0.1 ? 0 : 1)}%`
}

/**
 * L0: the CPU the flushes' "Flush lasted" lines logged against sstkit's model of today's setting
 * compressing the bytes those flushes wrote (a flush reads the memtable: nothing to decompress);
 * without such lines, the line saying L0 is priced on the model only.
 */
function flushCheckOf(
  l: LevelAdvice,
  m: MeasuredLevel,
  shape: LevelShape,
  w: MeasuredWorkload,
  today: SettingEstimate | null,
): { measured: number | null; model: number | null; line: string | null } {
  if (l.level !== 0 || m.flushFiles === 0) return { measured: null, model: null, line: null }
  if (m.flushCpuFlushes === 0)
    return {
      measured: null,
      model: null,
      line: `no flush into L0 logged its CPU (the "Flush lasted … cpu microseconds" lines are written by RocksDB 6.24 and later, not by a WAL recovery's flush at open): L0 is priced on sstkit's speed model only, unchecked against RocksDB`,
    }
  const span = w.spanSeconds
  const measured = m.flushCpuSeconds / span
  if (!today || !(measured > 0) || m.writtenBytes <= 0) return { measured, model: null, line: null }
  const covers = coverage(m)
  if (today.setting.type === 'none')
    return {
      measured,
      model: 0,
      line: `RocksDB spent ${formatCores(measured)} cores flushing into L0 (${covers}); today's setting none compresses nothing: all of it is building the table from the memtable and writing it`,
    }
  const speeds = speedsOf(today)
  const flushedInputGBps = (inputPerSecond(m, shape, span) * (m.flushCpuFileBytes / m.writtenBytes)) / 1e9
  const model = flushedInputGBps * speeds.compressSecPerGB
  const share = model / measured
  const line = `RocksDB spent ${formatCores(measured)} cores flushing into L0 (${covers}); sstkit's model of ${today.setting.label}${speeds.reference ? ' (reference speeds)' : ''} (compress those bytes) ${formatCores(model)}, ${percent(share)} of it${share > 1.5 ? ': the model is above the measured total, its speeds or the LOG’s rate are off here' : ' (the rest: building the table from the memtable, writing)'}`
  return { measured, model, line }
}

function shapeOf(l: LevelAdvice): LevelShape {
  return {
    columnFamily: l.columnFamily,
    level: l.level,
    bottommost: l.bottommost,
    todayRatio: l.todayRatio,
    meanBlockBytes: l.sample.blocks > 0 ? l.sample.uncompressedBytes / l.sample.blocks : 0,
  }
}

/** Adds each measured level's costs to the advice (nothing when the LOG gave no workload). */
export function attachCosts(columnFamilies: { levels: LevelAdvice[] }[], workload: WorkloadAdvice | null | undefined): void {
  if (!workload?.measured) return
  for (const cf of columnFamilies) for (const l of cf.levels) l.cost = levelCost(l, workload)
}

/**
 * Compression CPU below this many cores at a level's measured write rate weighs nothing against
 * bytes: `balanced` lets any setting under it through, whatever its multiple of the fastest codec
 * (a database written at a GB a day can afford zstd 12 with a dictionary on L2 and below).
 */
export const NEGLIGIBLE_CORES = 0.01
/**
 * L0 (flushes) and L1 (L0→L1 compactions) are on the write path: their speed in a burst, not
 * their average rate, decides write stalls, so they keep the multiple of the fastest codec.
 */
const LAST_WRITE_PATH_LEVEL = 1

/**
 * `balanced` with a LOG: the level's CPU multiple of the fastest codec (3x upper, 8x bottommost)
 * divided by its write rate relative to the average measured level (raw bytes per second), held
 * within [1.25x, 32x]. A level the LOG saw no write to gets 32x. Other objectives, explicit
 * limits, and levels without a LOG keep `limits`.
 */
export function rateWeightedLimits(
  limits: LevelLimits,
  objective: string,
  explicit: boolean,
  group: { columnFamily: string; level: number | null; bottommost: boolean },
  ranked: SettingEstimate[],
  workload: WorkloadAdvice | null | undefined,
): LevelLimits {
  if (objective !== 'balanced' || explicit || !workload?.measured || group.level === null) return limits
  const { fastestCpu } = references(ranked)
  if (fastestCpu === null) return limits
  const measured = workload.measured.levels.filter((l) => l.rawBytes > 0)
  if (measured.length === 0) return limits
  const mean = measured.reduce((a, l) => a + l.rawBytes, 0) / measured.length
  const own = measuredLevel(workload, group.columnFamily, group.level)
  const weight = own ? own.rawBytes / mean : 0
  const base = group.bottommost ? BALANCED_BOTTOM : BALANCED_UPPER
  const multiple = weight > 0 ? Math.min(WEIGHTED_MULTIPLE_MAX, Math.max(WEIGHTED_MULTIPLE_MIN, base / weight)) : WEIGHTED_MULTIPLE_MAX
  const shown = Number(multiple.toFixed(multiple < 10 ? 2 : 1))
  const why =
    weight > 0
      ? `${base}x weighted by this level's measured write rate, ${weight.toFixed(2)}x the average level's`
      : `${base}x weighted: the LOG shows no write to this level`
  return { ...limits, maxCompressSecPerGB: multiple * fastestCpu, describe: `within ${shown}x the fastest codec's CPU (${why})` }
}

/** The money of one setting at a level: compression (and measured reads') CPU plus storage, $ a month. */
function dollarsOf(x: SettingEstimate, today: SettingEstimate | null, m: MeasuredLevel | null, shape: LevelShape, w: MeasuredWorkload | null, prices: Prices) {
  const storage = (x.bytes.estimate / 1e9) * prices.storagePerGBMonth
  if (!m || !w) return { total: storage, cpu: 0, storage }
  const c = settingCost(x, today, m, shape, w, prices)
  const cpu = (c.cores + (c.readCores ?? 0)) * prices.cpuPerCoreHour * HOURS_PER_MONTH
  return { total: cpu + storage, cpu, storage }
}

/** Cores for people: one decimal from 10, two from 0.01, two significant digits below (0.000040). */
export function formatCores(n: number): string {
  if (n === 0) return '0'
  if (n >= 10) return n.toFixed(1)
  if (n >= 0.01) return n.toFixed(2)
  return n.toPrecision(2)
}

/** Dollars for people: whole above $100, cents above $1, two significant digits below, "<$0.0001" below that. */
export function money(d: number): string {
  if (d === 0) return '$0'
  if (d < 0.0001) return '<$0.0001'
  return `$${d >= 100 ? d.toFixed(0) : d >= 1 ? d.toFixed(2) : Number(d.toPrecision(2)).toString()}`
}

/**
 * `--objective cost`: per level, the setting of least compression CPU plus storage a month at the
 * measured rate and the given prices; a level the LOG saw no write to pays storage only.
 */
export function costDecider(
  group: { columnFamily: string; level: number | null; bottommost: boolean },
  todayRatio: number,
  meanBlockBytes: number,
  workload: WorkloadAdvice | null | undefined,
  prices: Prices,
): (candidates: SettingEstimate[], limits: LevelLimits, today: SettingEstimate | null) => { recommended: Choice; runnerUp: Choice | null } {
  const m = measuredLevel(workload, group.columnFamily, group.level)
  const shape: LevelShape = { ...group, todayRatio, meanBlockBytes }
  const w = workload?.measured ?? null
  return (candidates, _limits, today) => {
    const priced = candidates
      .filter((x) => Number.isFinite(x.bytes.estimate))
      .map((x) => ({ x, d: dollarsOf(x, today, m, shape, w, prices) }))
      .sort((a, b) => a.d.total - b.d.total)
    if (priced.length === 0) return { recommended: { estimate: today ?? candidates[0], reason: "keep today's setting: nothing evaluated" }, runnerUp: null }
    const [best, next] = priced
    const rate = m ? '' : ' (no write to this level in the LOG: storage only)'
    // The arithmetic behind the figures: what the compression is priced on, what the storage is.
    const input = m && w ? (inputPerSecond(m, shape, w.spanSeconds) * 86400) / 1e9 : 0
    const cpuWhy =
      m && w && best.x.setting.type !== 'none'
        ? ` (${input.toPrecision(3)} GB/day of input at ${speedsOf(best.x).compressSecPerGB.toPrecision(3)} s/GB, $${prices.cpuPerCoreHour}/core-hour)`
        : m && w
          ? ` (stored raw: ${input.toPrecision(3)} GB/day of input compressed by nothing)`
          : ''
    const storageWhy = ` (${(best.x.bytes.estimate / 1e9).toPrecision(3)} GB at $${prices.storagePerGBMonth}/GB-month)`
    const reason = `least total ${money(best.d.total)}/month: compression ${money(best.d.cpu)}${cpuWhy} + storage ${money(best.d.storage)}${storageWhy}${rate}`
    return {
      recommended: { estimate: best.x, reason },
      runnerUp: next
        ? { estimate: next.x, reason: `+${money(next.d.total - best.d.total)}/month (compression ${money(next.d.cpu)}, storage ${money(next.d.storage)})` }
        : null,
    }
  }
}

/**
 * `balanced` with a LOG: decide() among the settings whose compression CPU plus dictionary
 * building, at this level's measured rate (ms per file × files per second, per input GB per
 * second), stays within the level's CPU limit: a dictionary trained for every one of many small
 * files can cost more than its compression. On L2 and below the limit is never tighter than
 * NEGLIGIBLE_CORES at the level's rate. Without a rate for the level: decide() as is.
 */
export function balancedDecider(
  group: { columnFamily: string; level: number | null; bottommost: boolean },
  todayRatio: number,
  workload: WorkloadAdvice | null | undefined,
): (candidates: SettingEstimate[], limits: LevelLimits, today: SettingEstimate | null) => { recommended: Choice; runnerUp: Choice | null } {
  const m = measuredLevel(workload, group.columnFamily, group.level)
  const w = workload?.measured ?? null
  if (!m || !w) return decide
  const shape: LevelShape = { ...group, todayRatio, meanBlockBytes: 0 }
  const inputGBps = inputPerSecond(m, shape, w.spanSeconds) / 1e9
  const filesPerSec = m.files / w.spanSeconds
  const dictSecPerGB = (x: SettingEstimate) => (x.setting.dict === 'none' || inputGBps <= 0 ? 0 : ((x.dictReferenceMsPerFile / 1000) * filesPerSec) / inputGBps)
  return (candidates, given, today) => {
    if (given.maxCompressSecPerGB === null) return decide(candidates, given, today)
    // What NEGLIGIBLE_CORES buys per input GB at this level's rate: a looser limit than the multiple on a database written slowly.
    const floor = inputGBps > 0 && (group.level ?? 0) > LAST_WRITE_PATH_LEVEL ? NEGLIGIBLE_CORES / inputGBps : 0
    const limits =
      floor > given.maxCompressSecPerGB
        ? { ...given, maxCompressSecPerGB: floor, describe: `${given.describe}, or under ${NEGLIGIBLE_CORES} cores at this level's measured write rate` }
        : given
    const max = limits.maxCompressSecPerGB as number
    const within = candidates.filter((x) => x.setting.type === 'none' || (x.compressSecPerGB.value ?? 0) + dictSecPerGB(x) <= max)
    const dropped = candidates.filter((x) => !within.includes(x) && (x.compressSecPerGB.value ?? 0) <= max)
    const choice = decide(within.length > 0 ? within : candidates, limits, today)
    if (dropped.length > 0 && within.length > 0)
      choice.recommended = {
        ...choice.recommended,
        reason: `${choice.recommended.reason}; dictionary building at the measured rate (${(filesPerSec * 86400).toFixed(0)} files/day) puts ${dropped.map((x) => x.setting.label).join(', ')} over it`,
      }
    return choice
  }
}

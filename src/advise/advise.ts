/**
 * `advise`: from the live files of a database (or plain files) to one
 * compression decision per column family and level, with error bars.
 *
 * Per (column family, level) the engine samples data blocks at a rate p that
 * grows round by round (samples are nested, see sampling.ts) until every
 * setting's 95% interval is within ±precision, every block has been read, or
 * the time budget is spent; the level with the widest interval in bytes goes
 * next. Each round's files are evaluated in worker lanes (pool.ts), each lane
 * a share of the settings, so results do not depend on --jobs.
 */
import { availableParallelism } from 'node:os'
import type { DictionaryOptions } from '../recompress/dictionary.js'
import { budgetChoice, type Choice, decide, type ExplicitLimits, type LevelLimits, limitsFor, markPareto, meets, OBJECTIVES, withinBytes } from './decide.js'
import { addTimings, betweenFilesVariance, emptySums, mergeSums, rateFor, regressionEstimate, relativeHalfWidth, t95, timing } from './estimate.js'
import { dictKey, type FileDictionaries, type FileTask, type FileTaskResult } from './evaluate.js'
import type { Advice, ColumnFamilyAdvice, Interval, LevelAdvice, Objective, SampleSums, SettingEstimate, SettingSpec, StopReason } from './model.js'
import { needsOpts, optionsFor, optionsNeed, optionsText, sharesOpts, type LevelChoice } from './options.js'
import { minimumRelease, type RocksdbVersion, supportedBy } from './option-syntax.js'
import { nominalTimings } from './nominal.js'
import { AdvisePool } from './pool.js'
import { compressionNames, levelTotals, readPopulation, type GroupInput, type LevelGroup } from './population.js'
import { inShard, roundRate, type Shard } from './sampling.js'
import { sameSetting, typeByte, withRunOptions } from './settings.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { attachCosts, balancedDecider, costDecider, DEFAULT_PRICES, type Prices, rateWeightedLimits, type WorkloadAdvice } from './cost.js'
import { UsageError } from '../errors.js'

/** Levels with at most this many blocks are evaluated whole. */
const SMALL_LEVEL_BLOCKS = 256
/** Share of the time budget kept back for finishing (assembling, printing, start-up). */
const BUDGET_MARGIN = 0.05
/** The fewest blocks a level's estimate rests on (the normal interval needs them). */
const MIN_SAMPLE_BLOCKS = 128
/** First round: about this many blocks per level. */
const FIRST_ROUND_BLOCKS = 256
/** The next rate aims a little inside the target so one more round usually suffices. */
const AIM = 0.85
/** The first pass (every file's index and dictionary framing) gets at most this share of the time budget. */
const FIRST_PASS_SHARE = 0.5

export interface AdviseOptions {
  settings: SettingSpec[]
  objective: Objective
  limits: ExplicitLimits | null
  precision: number
  timeBudgetMs: number
  seed: number
  jobs?: number
  shard: Shard | null
  /** Fixed sampling rate (0..1]: no adaptive rounds (required with shards). */
  fixedRate: number | null
  dict: DictionaryOptions
  maxCompressedBytesPerKb: number
  /** The write workload of the database's info LOGs (cost.ts measureWorkload); null or absent: none. */
  workload?: WorkloadAdvice | null
  /** Prices for the cost objective (default DEFAULT_PRICES). */
  prices?: Prices | null
  /** Also dynamic level bytes, per column family, when the OPTIONS file says so. */
  dynamicLevels?: Map<string, boolean>
  source: Advice['source']
  onProgress?: (message: string) => void
  /** Milliseconds, for the time budget (default performance.now; tests inject their own). */
  clock?: () => number
  /** The database's RocksDB release: recommend only what it parses, in its syntax (null/absent: unknown). */
  rocksdbVersion?: RocksdbVersion | null
}

interface GroupState {
  group: LevelGroup
  totals: ReturnType<typeof levelTotals>
  settings: SettingSpec[]
  todayIndex: number | null
  rate: number
  sums: SampleSums[]
  /** Dictionaries built per setting: how many files, their bytes (trailers included) and build time. */
  dict: { files: number; bytes: number; ms: number }[]
  todayCompression: string
  done: StopReason | null
  blocks: number
  msPerBlock: number | null
  /** Each file's dictionaries (by file index), built once in the first round. */
  fileDicts: Map<number, FileDictionaries>
  /** Per file read (by index) and setting: its sampled sums, for the spread between files when some were left unread. */
  fileSums: Map<number, Pick<SampleSums, 'sumC' | 'sumS' | 'certainC' | 'certainS'>[]>
}

function todaySetting(g: LevelGroup): SettingSpec | null {
  if (g.optionsSetting) return g.optionsSetting
  const counts = new Map<string, { s: SettingSpec; n: number }>()
  for (const f of g.files)
    if (f.propertiesSetting) counts.set(f.propertiesSetting.label, { s: f.propertiesSetting, n: (counts.get(f.propertiesSetting.label)?.n ?? 0) + f.dataBytes })
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.s ?? null
}

function initState(group: LevelGroup, settings: SettingSpec[], opts: Pick<AdviseOptions, 'dict' | 'maxCompressedBytesPerKb'>): GroupState {
  const all = [...settings]
  // Today with today's own options: the matrix's entry where they are the run's, else its own entry.
  const found = todaySetting(group)
  const today = found && withRunOptions(found, opts.dict, opts.maxCompressedBytesPerKb)
  let todayIndex: number | null = null
  if (today) {
    todayIndex = all.findIndex((s) => sameSetting(s, today))
    if (todayIndex < 0) {
      all.push(today)
      todayIndex = all.length - 1
    }
  }
  const totals = levelTotals(group)
  return {
    group,
    totals,
    settings: all,
    todayIndex,
    rate: 0,
    sums: all.map(() => emptySums()),
    dict: all.map(() => ({ files: 0, bytes: 0, ms: 0 })),
    todayCompression: compressionNames(group),
    done: totals.dataBlocks === 0 ? 'all-blocks' : null,
    blocks: 0,
    msPerBlock: null,
    fileDicts: new Map(),
    fileSums: new Map(),
  }
}

/** Relative cost of a setting, for dealing settings to lanes of similar work. */
function cost(s: SettingSpec): number {
  if (s.type !== 'zstd') return s.type === 'lz4hc' ? 4 : s.type === 'zlib' ? 3 : s.type === 'bzip2' ? 8 : 1
  const l = s.level ?? 3
  const base = l <= 3 ? 1 : l <= 9 ? 1 + (l - 3) : l <= 15 ? 8 + (l - 9) * 2 : 20 + (l - 15) * 15
  return base * (s.dict === 'train' ? 1.3 : 1)
}

function lanesOf(settings: SettingSpec[], n: number): number[][] {
  const lanes = Array.from({ length: n }, () => ({ cost: 0, items: [] as number[] }))
  const order = settings.map((_, i) => i).sort((a, b) => cost(settings[b]) - cost(settings[a]) || a - b)
  for (const i of order) {
    const lane = lanes.reduce((best, x) => (x.cost < best.cost ? x : best))
    lane.cost += cost(settings[i])
    lane.items.push(i)
  }
  return lanes.filter((l) => l.items.length).map((l) => l.items.sort((a, b) => a - b))
}

function dictTotal(st: GroupState, i: number): number {
  const d = st.dict[i]
  if (st.settings[i].dict === 'none' || d.files === 0) return 0
  // Files whose dictionary was not built (none of their blocks drawn yet) are taken at the mean.
  return d.files >= st.totals.files ? d.bytes : (d.bytes / d.files) * st.totals.files
}

/** Level bytes over bytes of the files read: 1 unless the time budget left files unread. */
function scaleOf(st: GroupState): number {
  const unread = st.group.unread.fileBytes
  return unread > 0 && st.totals.fileBytes > 0 ? (st.totals.fileBytes + unread) / st.totals.fileBytes : 1
}

/** The level's bytes today (data and dictionary blocks), scaled from the files read when some were not. */
function todayOf(st: GroupState): number {
  return (st.totals.dataBytes + st.totals.dictBytes) * scaleOf(st)
}

/** Each read file's own estimated total under setting i (its sampled ratio, else the level's), and its size on disk. */
function fileTotals(st: GroupState, i: number, dict: number): { ys: number[]; xs: number[] } {
  const level = st.sums[i]
  const pooled = level.sumS > 0 ? level.sumC / level.sumS : 1
  const perFileDict = st.group.files.length > 0 ? dict / st.group.files.length : 0
  const ys: number[] = []
  const xs: number[] = []
  st.group.files.forEach((f, fi) => {
    const s = st.fileSums.get(fi)?.[i]
    const ratio = s && s.sumS > 0 ? s.sumC / s.sumS : pooled
    ys.push((s?.certainC ?? 0) + ratio * (f.dataBytes - (s?.certainS ?? 0)) + perFileDict)
    xs.push(f.fileSize)
  })
  return { ys, xs }
}

/**
 * Setting i's projected bytes for the level. `withinOnly`: the block sampling's
 * part of the interval alone (what more blocks can narrow), for the stopping rule.
 */
function levelBytes(st: GroupState, i: number, withinOnly: boolean): Interval {
  const data = regressionEstimate(st.sums[i], st.totals.dataBytes, st.totals.dataBlocks, st.rate)
  const dict = dictTotal(st, i)
  const read: Interval = { estimate: data.estimate + dict, low: data.low + dict, high: data.high + dict }
  const k = scaleOf(st)
  if (k === 1 || withinOnly) return read
  // Scaled by file size from the files read; the interval adds the spread between files (estimate.ts).
  const { ys, xs } = fileTotals(st, i, dict)
  const between = betweenFilesVariance(ys, xs, st.totals.files + st.group.unread.files) ?? 0
  const withinHalf = (read.high - read.low) / 2
  const half = Math.sqrt((k * withinHalf) ** 2 + t95(ys.length - 1) ** 2 * between)
  const estimate = read.estimate * k
  return { estimate, low: estimate - half, high: estimate + half }
}

function estimateOf(st: GroupState, i: number, todayBytes: number, withinOnly = false): SettingEstimate {
  const sums = st.sums[i]
  const bytes = levelBytes(st, i, withinOnly)
  const dict = dictTotal(st, i) * scaleOf(st)
  const change: Interval = {
    estimate: bytes.estimate / todayBytes - 1,
    low: bytes.low / todayBytes - 1,
    high: bytes.high / todayBytes - 1,
  }
  const uncompressed = sums.sumS + sums.certainS > 0 ? (sums.sumU / (sums.sumS + sums.certainS)) * st.totals.dataBytes * scaleOf(st) : 0
  const compressValue = sums.timedBytes > 0 && sums.compressMs > 0 ? sums.compressMs / 1000 / (sums.timedBytes / 1e9) : null
  const decompressValue = sums.decompressedBytes > 0 && sums.decompressMs > 0 ? sums.decompressedBytes / 1e6 / (sums.decompressMs / 1000) : null
  const files = Math.max(1, st.dict[i].files)
  return {
    setting: st.settings[i],
    bytes,
    change,
    ratio: bytes.estimate > 0 ? uncompressed / bytes.estimate : 0,
    compressSecPerGB: st.settings[i].type === 'none' ? { value: null, low: null, high: null, noisy: false } : timing(compressValue, sums.compressRates),
    decompressMBps: st.settings[i].type === 'none' ? { value: null, low: null, high: null, noisy: false } : timing(decompressValue, sums.decompressRates),
    rejectedShare: sums.n > 0 ? sums.rejected / sums.n : 0,
    dictBytes: dict,
    dictFilesBuilt: st.dict[i].files,
    dictBytesBuilt: st.dict[i].bytes,
    dictMsPerFile: st.dict[i].ms / files,
    pareto: false,
    sums,
  }
}

/** The widest relative interval of the level's settings from block sampling (the part more blocks narrow). */
function widest(st: GroupState): number {
  let w = 0
  for (let i = 0; i < st.settings.length; i++) w = Math.max(w, relativeHalfWidth(levelBytes(st, i, true)))
  return w
}

export async function advise(inputs: GroupInput[], opts: AdviseOptions): Promise<Advice> {
  const clock = opts.clock ?? (() => performance.now())
  const started = clock()

  // Population: each live file's index and properties (files outside this shard included, so every shard sees the same
  // levels). Within FIRST_PASS_SHARE of the budget; a fixed sample (shards) reads every file, so that shards add up.
  const usesDictionaries = opts.settings.some((s) => s.dict !== 'none')
  const population = readPopulation(inputs, {
    dict: usesDictionaries ? opts.dict : null,
    seed: opts.seed,
    deadline: opts.fixedRate === null ? started + FIRST_PASS_SHARE * opts.timeBudgetMs : Number.POSITIVE_INFINITY,
    clock,
  })
  return advisePopulation(population, opts, started)
}

/**
 * The engine after the first pass: sampling rounds over the files read, the
 * timing passes, and the decision. `started` is when the run began on
 * `opts.clock`, so the first pass counts against the time budget.
 */
export async function advisePopulation({ groups, problems }: ReturnType<typeof readPopulation>, opts: AdviseOptions, started: number): Promise<Advice> {
  const clock = opts.clock ?? (() => performance.now())
  const elapsed = () => clock() - started
  const jobs = Math.max(1, opts.jobs ?? availableParallelism())
  const notes: string[] = []
  const unread = groups.filter((g) => g.unread.files > 0)
  if (unread.length > 0) notes.push(unreadNote(unread))
  const states = groups.filter((g) => g.files.length > 0).map((g) => initState(g, opts.settings, opts))
  let position = 0
  const shardFiles = new Map<GroupState, boolean[]>()
  for (const st of states)
    shardFiles.set(
      st,
      st.group.files.map(() => inShard(opts.shard, position++)),
    )

  const lanes = lanesOf(states[0]?.settings ?? opts.settings, jobs)
  const pool = new AdvisePool(Math.min(jobs, lanes.length))
  let budgetHit = false
  // Leave room inside the budget for the last round's overrun, the report and the process's own start.
  const samplingBudget = opts.timeBudgetMs * (1 - BUDGET_MARGIN)
  try {
    for (;;) {
      const open = states.filter((s) => s.done === null)
      if (open.length === 0) break
      if (elapsed() >= samplingBudget && opts.fixedRate === null) {
        for (const s of open) s.done = 'time-budget'
        budgetHit = true
        break
      }
      // The level whose interval is widest in bytes goes next; unsampled levels first.
      const pick = open.reduce((a, b) => (priority(b) > priority(a) ? b : a))
      const next = nextRate(pick, opts, elapsed(), samplingBudget)
      if (next === null) {
        pick.done = 'time-budget'
        budgetHit = true
        continue
      }
      await runRound(pick, next, opts, pool, lanesOf(pick.settings, jobs), shardFiles.get(pick)!, problems)
      if (pick.rate >= 1) pick.done = 'all-blocks'
      else if (opts.fixedRate !== null) pick.done = 'fixed-sample'
      else if (widest(pick) <= opts.precision) pick.done = 'precision'
      opts.onProgress?.(`${label(pick.group)}: ${pick.blocks} blocks sampled (${(pick.rate * 100).toFixed(1)}%)`)
    }
    // Timings: settings whose speed is still noisy are timed again on the sampled blocks, while time remains.
    // A fixed sample (--sample) has no time budget: timing again takes at most TIMING_SHARE of the time sampling took.
    const timingEnd = opts.fixedRate === null ? Math.min(opts.timeBudgetMs, elapsed() + TIMING_SHARE * opts.timeBudgetMs) : elapsed() * (1 + TIMING_SHARE)
    const retimed = new Set(states)
    retiming: for (let pass = 0; pass < TIMING_PASSES && retimed.size > 0; pass++) {
      for (const st of [...retimed]) {
        if (elapsed() >= timingEnd) break retiming
        // A level whose noisy settings did not get fewer is not timed again: the machine, not the sample, is the noise.
        const before = noisyCount(st)
        if (before === 0 || !(await retime(st, opts, pool, jobs, shardFiles.get(st)!)) || noisyCount(st) >= before) retimed.delete(st)
      }
    }
  } finally {
    await pool.close()
  }
  if (budgetHit)
    notes.push(`the time budget (${(opts.timeBudgetMs / 1000).toFixed(0)} s) ended sampling before every level reached ±${(opts.precision * 100).toFixed(1)}%`)

  const advice = assemble(states, opts, notes)
  advice.problems = problems
  advice.elapsedSec = elapsed() / 1000
  return advice
}

/**
 * Combine the JSON of `--shard K/N` runs into the advice one run gives: the
 * integer sums add up exactly, and the decision is recomputed from them.
 */
export function mergeAdvice(parts: Advice[]): Advice {
  if (parts.length === 0) throw new MergeError('--merge needs the JSON of every shard')
  const first = parts[0]
  const count = first.shard?.count
  if (count === undefined) throw new MergeError('--merge takes the JSON of --shard runs; the first part is not a shard')
  const seen = new Set<number>()
  for (const p of parts) {
    if (p.version !== 1) throw new MergeError(`--merge: unknown advice version ${String(p.version)}`)
    if (!p.shard || p.shard.count !== count) throw new MergeError(`--merge: parts come from different shard counts`)
    if (seen.has(p.shard.index)) throw new MergeError(`--merge: shard ${p.shard.index}/${count} given twice`)
    seen.add(p.shard.index)
    if (p.seed !== first.seed || JSON.stringify(p.evaluation) !== JSON.stringify(first.evaluation))
      throw new MergeError('--merge: parts were run with different seeds or settings')
  }
  if (seen.size !== count) throw new MergeError(`--merge: ${count - seen.size} of ${count} shards missing`)
  const states: GroupState[] = []
  for (const cf of first.columnFamilies) {
    for (const level of cf.levels) {
      const same = parts.map((p) => p.columnFamilies.find((c) => c.name === cf.name)?.levels.find((l) => l.level === level.level))
      if (same.some((l) => !l || l.matrix.length !== level.matrix.length)) throw new MergeError(`--merge: ${cf.name} L${level.level} differs between the parts`)
      const settings = level.matrix.map((m) => m.setting)
      const todayIndex = level.today ? settings.findIndex((s) => sameSetting(s, level.today!.setting)) : -1
      states.push({
        group: {
          columnFamily: cf.name,
          level: level.level,
          bottommost: level.bottommost,
          optionsSetting: level.todayOptions,
          files: [],
          unread: { files: 0, fileBytes: 0 },
        },
        totals: {
          files: level.files,
          fileBytes: level.fileBytes,
          dataBytes: level.dataBytes,
          dataBlocks: level.dataBlocks,
          entries: level.entries,
          dictBytes: level.todayDictBytes,
        },
        settings,
        todayIndex: todayIndex >= 0 ? todayIndex : null,
        rate: level.sample.share,
        sums: settings.map((_, i) => same.reduce((acc, l) => mergeSums(acc, l!.matrix[i].sums), emptySums())),
        dict: settings.map((_, i) => ({
          files: same.reduce((a, l) => a + l!.matrix[i].dictFilesBuilt, 0),
          bytes: same.reduce((a, l) => a + l!.matrix[i].dictBytesBuilt, 0),
          ms: same.reduce((a, l) => a + l!.matrix[i].dictMsPerFile * l!.matrix[i].dictFilesBuilt, 0),
        })),
        todayCompression: level.todayCompression,
        done: level.sample.stopped,
        blocks: same.reduce((a, l) => a + l!.sample.blocks, 0),
        msPerBlock: null,
        fileDicts: new Map(),
        fileSums: new Map(),
      })
    }
  }
  const dynamicLevels = new Map(first.columnFamilies.map((c) => [c.name, c.dynamicLevels]))
  const { sampleRate, maxCompressedBytesPerKb, ...dict } = first.evaluation
  const advice = assemble(
    states,
    {
      settings: [],
      objective: first.objective.name === 'limits' ? 'balanced' : first.objective.name,
      limits: first.objective.name === 'limits' ? (first.objective.limits as ExplicitLimits) : null,
      precision: first.precision,
      timeBudgetMs: first.timeBudgetSec * 1000,
      seed: first.seed,
      shard: null,
      fixedRate: sampleRate,
      dict,
      maxCompressedBytesPerKb,
      dynamicLevels,
      source: { ...first.source, paths: [...new Set(parts.flatMap((p) => p.source.paths))] },
    },
    [...new Set(parts.flatMap((p) => p.notes))],
  )
  // Every shard of a database reports its missing live files: each problem once.
  const problems = new Map(parts.flatMap((p) => p.problems ?? []).map((q) => [JSON.stringify([q.file, q.offset, q.message]), q]))
  advice.problems = [...problems.values()]
  advice.elapsedSec = Math.max(...parts.map((p) => p.elapsedSec))
  return advice
}

export class MergeError extends UsageError {
  override name = 'MergeError'
}

/** Timing passes at most, and the work one timing measurement aims at. */
const TIMING_PASSES = 3
/** Timing passes take at most this share of the time budget, after sampling. */
const TIMING_SHARE = 0.1
const TIMING_MEASUREMENT_MS = 25

function noisyCount(st: GroupState): number {
  const today = todayOf(st)
  return st.settings.filter((s, i) => s.type !== 'none' && (estimateOf(st, i, today).compressSecPerGB.noisy || estimateOf(st, i, today).decompressMBps.noisy))
    .length
}

/** Time the noisy settings of a level again; false when none is noisy. */
async function retime(st: GroupState, opts: AdviseOptions, pool: AdvisePool, jobs: number, mine: boolean[]): Promise<boolean> {
  if (st.rate === 0 || st.blocks === 0) return false
  const today = todayOf(st)
  const noisy = st.settings.flatMap((s, i) => {
    if (s.type === 'none') return []
    const e = estimateOf(st, i, today)
    return e.compressSecPerGB.noisy || e.decompressMBps.noisy ? [{ i, secPerGB: e.compressSecPerGB.value ?? 5 }] : []
  })
  if (noisy.length === 0) return false
  const lanes = lanesOf(st.settings, jobs)
  const laneOf = new Map(lanes.flatMap((items, lane) => items.map((i) => [i, lane] as [number, number])))
  const files = st.group.files.filter((_, fi) => mine[fi])
  const tasks = noisy.flatMap(({ i, secPerGB }) => {
    const bytesPerRate = Math.min(
      8 << 20,
      Math.max(64 << 10, Math.round(((TIMING_MEASUREMENT_MS / 1000) * 1e9) / Math.max(secPerGB, 0.05) / Math.max(1, files.length))),
    )
    return files.map((f) => ({
      lane: laneOf.get(i) ?? 0,
      i,
      task: {
        path: f.path,
        key: f.key,
        seed: opts.seed,
        rateLow: 0,
        rateHigh: st.rate,
        certain: [],
        dictionaries: st.fileDicts.get(st.group.files.indexOf(f)),
        settings: [{ id: i, spec: st.settings[i] }],
        dict: opts.dict,
        maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb,
        timing: { rates: 3, bytesPerRate },
      } satisfies FileTask,
    }))
  })
  const results = await pool.run(tasks.map(({ lane, task }) => ({ lane, task })))
  results.forEach((r, k) => {
    const i = tasks[k].i
    st.sums[i] = addTimings(st.sums[i], r.sums[i])
  })
  return true
}

/** What the time budget left unread in the first pass, and what that means for the estimates. */
function unreadNote(groups: LevelGroup[]): string {
  const files = groups.reduce((a, g) => a + g.unread.files, 0)
  const all = groups.reduce((a, g) => a + g.unread.files + g.files.length, 0)
  const where = groups.map((g) => `${label(g)} ${g.files.length} of ${g.files.length + g.unread.files}`).join(', ')
  const single = groups.some((g) => g.files.length < 2)
  return `the time budget ended the first pass with ${files} of ${all} files in ${groups.length} level(s) unread (files read: ${where}): their levels are estimated from the files read, scaled by size on disk, and their intervals include the spread between files${single ? '; where only one file was read that spread is unknown and left out' : ''}`
}

function label(g: LevelGroup): string {
  return g.level === null ? g.columnFamily : `${g.columnFamily} L${g.level}`
}

/** Levels not sampled yet first, then the one furthest from the precision asked for. */
function priority(st: GroupState): number {
  if (st.rate === 0) return Number.POSITIVE_INFINITY
  return widest(st)
}

/**
 * Build each file's dictionaries once, in parallel across files, before its
 * blocks are sampled: every setting with a dictionary compresses that file's
 * blocks with the one RocksDB would have built for it, and the level's
 * dictionary bytes are exact.
 */
async function buildDictionaries(st: GroupState, opts: AdviseOptions, pool: AdvisePool, mine: boolean[]): Promise<void> {
  const needing = st.settings.flatMap((spec, id) => (spec.dict !== 'none' ? [{ id, spec }] : []))
  if (needing.length === 0) return
  const files = st.group.files.flatMap((f, fi) => (mine[fi] ? [{ f, fi }] : []))
  const results = await pool.run(
    files.map(({ f }, k) => ({
      lane: k,
      task: {
        path: f.path,
        key: f.key,
        seed: opts.seed,
        rateLow: 0,
        rateHigh: 0,
        certain: [],
        settings: needing,
        dict: opts.dict,
        maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb,
        dictionariesOnly: true,
      } satisfies FileTask,
    })),
  )
  results.forEach((r, k) => {
    const dicts = r.dictionaries ?? {}
    st.fileDicts.set(files[k].fi, dicts)
    for (const { id, spec } of needing) {
      const d = dicts[dictKey(spec, typeByte(spec))]
      if (!d) continue
      const acc = st.dict[id]
      acc.files++
      // A dictionary ZDICT could not build means none, as in RocksDB: no dictionary block.
      acc.bytes += d.bytes.length > 0 ? d.bytes.length + BLOCK_TRAILER_BYTES : 0
      acc.ms += d.ms
    }
  })
}

/** The next sampling rate for a level, or null when the budget leaves no room for another round. */
function nextRate(st: GroupState, opts: AdviseOptions, spentMs: number, budgetMs: number): number | null {
  const n = st.totals.dataBlocks
  // A level this small is evaluated whole, and no level is estimated from fewer than MIN_SAMPLE_BLOCKS.
  if (opts.fixedRate !== null) return n <= SMALL_LEVEL_BLOCKS ? 1 : Math.min(1, Math.max(opts.fixedRate, MIN_SAMPLE_BLOCKS / n))
  if (st.rate === 0) return n <= SMALL_LEVEL_BLOCKS ? 1 : roundRate(Math.min(1, FIRST_ROUND_BLOCKS / n))
  const w = widest(st)
  let rate = rateFor(w, st.rate, opts.precision * AIM)
  rate = Math.min(1, Math.max(rate, st.rate * 1.5), st.rate * 8)
  if (rate * n - st.rate * n < 16) rate = Math.min(1, st.rate + 16 / n)
  // Most of the level: all of it, when the budget affords it (below), so that its totals are exact.
  rate = roundRate(rate)
  if (st.msPerBlock !== null) {
    const left = budgetMs - spentMs
    const affordable = left / st.msPerBlock
    if (affordable < 8) return null
    rate = Math.min(rate, st.rate + affordable / n)
  }
  return rate
}

async function runRound(
  st: GroupState,
  rate: number,
  opts: AdviseOptions,
  pool: AdvisePool,
  lanes: number[][],
  mine: boolean[],
  problems: Advice['problems'],
): Promise<void> {
  if (st.rate === 0) await buildDictionaries(st, opts, pool, mine)
  const tasks: { lane: number; task: FileTask; indices: number[]; fi: number }[] = []
  st.group.files.forEach((f, fi) => {
    if (!mine[fi]) return
    lanes.forEach((indices, lane) => {
      tasks.push({
        lane,
        indices,
        fi,
        task: {
          path: f.path,
          key: f.key,
          seed: opts.seed,
          rateLow: st.rate,
          rateHigh: rate,
          certain: f.certain,
          dictionaries: st.fileDicts.get(fi),
          settings: indices.map((i) => ({ id: i, spec: st.settings[i] })),
          dict: opts.dict,
          maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb,
        },
      })
    })
  })
  const clock = opts.clock ?? (() => performance.now())
  const t0 = clock()
  const results: FileTaskResult[] = await pool.run(tasks.map(({ lane, task }) => ({ lane, task })))
  const ms = clock() - t0
  let blocks = 0
  results.forEach((r, k) => {
    const { indices, lane, fi } = tasks[k]
    if (lane === 0) {
      blocks += r.blocks
      for (const sk of r.skipped) problems.push({ file: tasks[k].task.path, offset: sk.offset, message: `data block left out of the sample: ${sk.message}` })
    }
    let perFile = st.fileSums.get(fi)
    if (!perFile) st.fileSums.set(fi, (perFile = st.settings.map(() => ({ sumC: 0, sumS: 0, certainC: 0, certainS: 0 }))))
    for (const i of indices) {
      st.sums[i] = mergeSums(st.sums[i], r.sums[i])
      const f = perFile[i]
      f.sumC += r.sums[i].sumC
      f.sumS += r.sums[i].sumS
      f.certainC += r.sums[i].certainC
      f.certainS += r.sums[i].certainS
    }
  })
  st.blocks += blocks
  if (blocks > 0) st.msPerBlock = ms / blocks
  st.rate = rate
}

function assemble(states: GroupState[], opts: AdviseOptions, inherited: string[]): Advice {
  const notes = [...inherited]
  const byFamily = new Map<string, GroupState[]>()
  for (const st of states) byFamily.set(st.group.columnFamily, [...(byFamily.get(st.group.columnFamily) ?? []), st])
  const families: ColumnFamilyAdvice[] = []
  let todayTotal = 0
  let projected = 0
  let variance = 0
  const budget = bytesBudget(states, opts)
  for (const [name, sts] of byFamily) {
    const version = opts.rocksdbVersion ?? null
    const parses = version ? (s: SettingSpec) => supportedBy(version, s) : () => true
    const levels: LevelAdvice[] = sts.map((st) => {
      const pick = budget?.picks.get(st)
      if (!pick) return withNewerRelease(levelAdvice(st, opts, version ? parses : null), st, opts)
      return levelAdvice(st, opts, null, () => budgetChoice(pick.candidates, pick.pick, budget!.met, budget!.describe))
    })
    // Upper levels share one compression_opts: the largest upper level whose choice needs them (a level, a dictionary,
    // a checksum) sets them; the others choose among settings that behave as evaluated under them.
    // (Under --max-bytes the allocation has chosen them sharing already.)
    const upper = levels.filter((l) => !l.bottommost && l.level !== null && l.dataBlocks > 0)
    const needing = upper.filter((l) => needsOpts(l.recommended.estimate.setting))
    if (needing.length > 0 && !budget) {
      const lead = needing.reduce((a, b) => (b.dataBytes > a.dataBytes ? b : a))
      const carrier = lead.recommended.estimate.setting
      for (const l of upper) {
        if (l === lead || sharesOpts(l.recommended.estimate.setting, carrier)) continue
        const at = levels.indexOf(l)
        const fixed = withNewerRelease(
          levelAdvice(sts[at], opts, (s) => parses(s) && sharesOpts(s, carrier)),
          sts[at],
          opts,
        )
        fixed.recommended.reason += ` (shares compression_opts with L${lead.level})`
        levels[at] = fixed
      }
    }
    const choices: LevelChoice[] = levels
      .filter((l) => l.level !== null && l.dataBlocks > 0)
      .map((l) => ({ level: l.level!, bottommost: l.bottommost, setting: l.recommended.estimate.setting }))
    const single = levels.length === 1 && levels[0].level === null ? levels[0].recommended.estimate.setting : null
    const options = optionsFor(
      {
        columnFamily: name,
        levels: single ? null : choices,
        single,
        dynamicLevels: opts.dynamicLevels?.get(name) ? { baseLevel: Math.min(...choices.filter((c) => c.level > 0).map((c) => c.level), 1) } : null,
      },
      opts.dict,
      version,
    )
    families.push({
      name,
      dynamicLevels: opts.dynamicLevels?.get(name) ?? false,
      levels,
      options,
      optionsText: optionsText(name, options),
      optionsNeed: optionsNeed(options),
    })
    for (const l of levels) {
      if (l.dataBlocks === 0) continue
      todayTotal += todayOf(sts[levels.indexOf(l)])
      const b = l.recommended.estimate.bytes
      projected += b.estimate
      const half = (b.high - b.low) / 2 / 1.959964
      variance += half * half
    }
  }
  const half = 1.959964 * Math.sqrt(variance)
  const total = {
    todayBytes: todayTotal,
    projected: { estimate: projected, low: projected - half, high: projected + half },
    change: { estimate: projected / todayTotal - 1, low: (projected - half) / todayTotal - 1, high: (projected + half) / todayTotal - 1 },
    maxBytes: budget ? { bytes: budget.maxBytes, met: budget.met } : null,
  }
  const add = (n: string) => {
    if (!notes.includes(n)) notes.push(n)
  }
  if (states.some((s) => s.group.level === null))
    add('no MANIFEST: levels are unknown, so each column family gets one setting (compression and compression_opts)')
  const workload = opts.workload ? { ...opts.workload, prices: opts.objective === 'cost' && !opts.limits ? (opts.prices ?? DEFAULT_PRICES) : null } : null
  attachCosts(families, workload)
  if (opts.workload) {
    add(opts.workload.note)
    if (opts.workload.measured) add(opts.workload.readsNote)
    if (opts.objective === 'balanced' && !opts.limits && opts.workload.measured)
      add(
        "balanced: each level's CPU multiple is weighted by the write rate the info LOG measured there (a level written at w times the average rate gets the multiple divided by w, between 1.25x and 32x)",
      )
    if (opts.objective === 'cost' && !opts.limits && !opts.workload.measured)
      add('objective cost without a measured workload: compression CPU cannot be priced, so the balanced rules decide')
  }
  // Only where a compression_per_level is printed: without one, the base level changes nothing.
  if (families.some((f) => f.dynamicLevels && f.options.compression_per_level !== undefined))
    add(
      'level_compaction_dynamic_level_bytes is on: compression_per_level entry i > 0 applies to level base_level + i - 1, and the options above are written that way',
    )
  return {
    version: 1,
    source: opts.source,
    objective: {
      name: opts.limits ? 'limits' : opts.objective,
      description: opts.limits ? 'explicit limits' : OBJECTIVES[opts.objective],
      limits: {
        ...(opts.limits ?? {}),
        ...(opts.objective === 'cost' && !opts.limits ? { ...(opts.prices ?? DEFAULT_PRICES) } : {}),
      } as Record<string, number>,
    },
    seed: opts.seed,
    evaluation: { ...opts.dict, maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb, sampleRate: opts.fixedRate },
    precision: opts.precision,
    timeBudgetSec: opts.timeBudgetMs / 1000,
    elapsedSec: 0,
    shard: opts.shard,
    columnFamilies: families,
    total,
    notes,
    ...(workload ? { workload } : {}),
    problems: [],
  }
}

/** A level's matrix, and the same with the CPU figures decisions rank on (reference speeds where this run's are noisy). */
function rankedMatrix(st: GroupState): { matrix: SettingEstimate[]; ranked: SettingEstimate[]; noisy: boolean; today: SettingEstimate | null } {
  const todayBytes = todayOf(st)
  const matrix = st.settings.map((_, i) => estimateOf(st, i, todayBytes))
  markPareto(matrix)
  const today = st.todayIndex !== null ? matrix[st.todayIndex] : null
  // Rank on this run's timings only when none of them is noisy; else on the reference speeds (nominal.ts).
  const noisy = matrix.some((x) => x.setting.type !== 'none' && (x.compressSecPerGB.noisy || x.decompressMBps.noisy))
  const ranked = noisy
    ? matrix.map((x) => ({ ...x, compressSecPerGB: nominalTimings(x.setting).compress, decompressMBps: nominalTimings(x.setting).decompress }))
    : matrix
  return { matrix, ranked, noisy, today }
}

/** The ranked settings within the explicit CPU and decompression limits (all of them when none is). */
function withinOtherLimits(st: GroupState, opts: AdviseOptions): SettingEstimate[] {
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

type Decider = (candidates: SettingEstimate[], limits: LevelLimits, today: SettingEstimate | null) => { recommended: Choice; runnerUp: Choice | null }

/** `--max-bytes` in bytes, from the limit as given (bytes, or a share of today's total). */
function maxBytesOf(limits: ExplicitLimits | null, todayTotal: number): number | null {
  if (limits?.maxBytes !== undefined) return limits.maxBytes
  if (limits?.maxBytesShare !== undefined) return limits.maxBytesShare * todayTotal
  return null
}

/**
 * Under `--max-bytes`: every level's setting, chosen together so that the
 * projected total fits at the least compression CPU (decide.ts withinBytes).
 */
function bytesBudget(
  states: GroupState[],
  opts: AdviseOptions,
): { picks: Map<GroupState, { pick: SettingEstimate; candidates: SettingEstimate[] }>; met: boolean; maxBytes: number; describe: string } | null {
  const withData = states.filter((st) => st.totals.dataBlocks > 0)
  const today = withData.reduce((a, st) => a + todayOf(st), 0)
  const maxBytes = maxBytesOf(opts.limits, today)
  // A level without an estimate (the time budget ended before it was sampled) is decided alone, and says so.
  const advised = withData.filter((st) => withinOtherLimits(st, opts).length > 0)
  if (maxBytes === null || advised.length === 0) return null
  const levels = advised.map((st) => {
    const candidates = withinOtherLimits(st, opts)
    const s0 = st.sums[0]
    const uncompressed = s0.sumS + s0.certainS > 0 ? (s0.sumU / (s0.sumS + s0.certainS)) * st.totals.dataBytes * scaleOf(st) : 0
    return {
      family: st.group.columnFamily,
      sharesOpts: !st.group.bottommost && st.group.level !== null,
      candidates,
      inputGB: uncompressed / 1e9,
    }
  })
  const result = withinBytes(levels, maxBytes, sharesOpts)
  const share = `${Number(((maxBytes / today) * 100).toFixed(1))}% of today's total`
  const describe = `--max-bytes (${share})`
  return {
    picks: new Map(advised.map((st, i) => [st, { pick: result.picks[i], candidates: levels[i].candidates }])),
    met: result.met,
    maxBytes,
    describe,
  }
}

/** The objective's limits for a level, weighted by the LOG's measured write rate where balanced has one (cost.ts). */
function levelLimits(st: GroupState, opts: AdviseOptions, ranked: SettingEstimate[], today: SettingEstimate | null): LevelLimits {
  // cost without a measured workload cannot price CPU: the balanced rules decide
  const objective = opts.objective === 'cost' && !opts.workload?.measured ? 'balanced' : opts.objective
  const limits = limitsFor(objective, st.group.bottommost, ranked, today, opts.limits)
  return rateWeightedLimits(limits, opts.objective, opts.limits !== null, st.group, ranked, opts.workload)
}

/** The objective's decider for a level: with a measured workload, cost.ts's (dictionary building counted under balanced, pricing under cost); else decide(). */
function levelDecider(st: GroupState, opts: AdviseOptions): Decider {
  if (opts.limits !== null || !opts.workload?.measured) return decide
  const s0 = st.sums[0]
  const todayRatio = s0.sumS + s0.certainS > 0 ? s0.sumU / (s0.sumS + s0.certainS) : 0
  if (opts.objective === 'balanced') return balancedDecider(st.group, todayRatio, opts.workload)
  if (opts.objective !== 'cost') return decide
  return costDecider(st.group, todayRatio, st.blocks > 0 ? s0.sumU / st.blocks : 0, opts.workload, opts.prices ?? DEFAULT_PRICES)
}

function levelAdvice(
  st: GroupState,
  opts: AdviseOptions,
  filter: ((s: SettingSpec) => boolean) | null,
  decider: Decider = levelDecider(st, opts),
): LevelAdvice {
  const { matrix, ranked, noisy, today } = rankedMatrix(st)
  const limits = levelLimits(st, opts, ranked, today ? ranked[matrix.indexOf(today)] : null)
  const candidates = filter ? ranked.filter((x) => filter(x.setting)) : ranked
  const choice = decider(candidates.length ? candidates : ranked, limits, today ? ranked[matrix.indexOf(today)] : null)
  const original = (c: { estimate: SettingEstimate; reason: string } | null, note: string) =>
    c && { estimate: matrix[ranked.findIndex((r) => r.setting.label === c.estimate.setting.label)], reason: c.reason + note }
  const recommended = original(choice.recommended, noisy ? ' (timings noisy here: CPU ranked on reference speeds)' : '')!
  const runnerUp = original(choice.runnerUp, '')
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
    today,
    sample: {
      blocks: st.blocks,
      uncompressedBytes: sums0.sumU,
      share: st.rate,
      // Files left unread: the budget, not the precision, bounded this level's interval.
      stopped: st.group.unread.files > 0 ? 'time-budget' : (st.done ?? 'time-budget'),
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
function withNewerRelease(advice: LevelAdvice, st: GroupState, opts: AdviseOptions): LevelAdvice {
  const version = opts.rocksdbVersion
  if (!version) return advice
  const free = levelAdvice(st, opts, null).recommended.estimate
  const chosen = advice.recommended.estimate
  if (supportedBy(version, free.setting) || free.bytes.estimate >= chosen.bytes.estimate) return { ...advice, newerRelease: null }
  const saved = chosen.bytes.estimate - free.bytes.estimate
  return {
    ...advice,
    newerRelease: {
      since: minimumRelease(free.setting),
      setting: free.setting,
      bytes: free.bytes,
      savedBytes: saved,
      savedShare: chosen.bytes.estimate > 0 ? saved / chosen.bytes.estimate : 0,
    },
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

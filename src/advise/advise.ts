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
import { statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import type { DictionaryOptions } from '../recompress/dictionary.js'
import {
  budgetChoice,
  type Choice,
  decide,
  type ExplicitLimits,
  type LevelLimits,
  limitsFor,
  markPareto,
  meets,
  MIN_GAIN,
  NOT_SAMPLED,
  OBJECTIVES,
  withinBytes,
} from './decide.js'
import { addTimings, emptySums, mergeSums, rateFor, regressionEstimate, relativeHalfWidth, timing, withUnreadFiles } from './estimate.js'
import { dictKey, type FileDictionaries, type FileTask, type FileTaskResult } from './evaluate.js'
import type { Advice, ColumnFamilyAdvice, Interval, LevelAdvice, Objective, SampleSums, SettingEstimate, SettingSpec, StopReason, Timing } from './model.js'
import { needsOpts, optionsFor, optionsNeed, optionsText, sharesOpts, type LevelChoice } from './options.js'
import {
  atLeast,
  bottommostOwnOpts,
  laterRelease,
  minimumRelease,
  optionSince,
  parseRocksdbVersion,
  type RocksdbVersion,
  supportedBy,
} from './option-syntax.js'
import { nominalTimings } from './nominal.js'
import { AdvisePool } from './pool.js'
import { compressionNames, levelTotals, MIN_FILES_READ, readFile, readPopulation, type GroupInput, type LevelGroup } from './population.js'
import { inShard, roundRate, type Shard } from './sampling.js'
import { defaultSettings, sameSetting, smallDatabaseSettings, spec, withRunOptions } from './settings.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { firstRoundShare, leastFirstRoundMs, planFirstRound, priorBlockMs, priorFileMs, unitCosts, type MeasuredCosts, type UnitCosts } from './plan.js'
import { attachCosts, balancedDecider, costDecider, DEFAULT_PRICES, NEGLIGIBLE_CORES, type Prices, rateWeightedLimits, type WorkloadAdvice } from './cost.js'
import { UsageError } from '../errors.js'

/** Levels with at most this many blocks are evaluated whole. */
const SMALL_LEVEL_BLOCKS = 256
/** Sampling rounds start only before this share of the time budget (the rest: timing passes, the report, the process's start and end). */
const SAMPLING_END = 0.85
/** Timing passes start only before this share of the time budget. */
const TIMING_END = 0.93
/** Under --sample (no time budget), timing again takes at most this share of the time sampling took. */
const FIXED_SAMPLE_TIMING_SHARE = 0.1
/** Under a time budget, timing again takes at most this share of the time the run took until then. */
const RETIME_SHARE = 0.25
/** The fewest blocks a level's estimate rests on (the normal interval needs them). */
const MIN_SAMPLE_BLOCKS = 128
/** First round: about this many blocks per level. */
const FIRST_ROUND_BLOCKS = 256
/** The next rate aims a little inside the target so one more round usually suffices. */
const AIM = 0.85
/** The first pass (the files' indexes and dictionary framing) ends at this share of the time budget at the latest. */
const FIRST_PASS_SHARE = 0.15
/** Dictionaries kept between the rounds of a run, at most (bytes); beyond, a file's are built again when its blocks are. */
const RETAINED_DICT_BYTES = 24 << 20
/** The first blocks a run evaluates (its first round's share, at most so many blocks): their cost plans the rest. */
const PROBE_SHARE = 0.25
const PROBE_BLOCKS = 16
/** Uncompressed over stored bytes assumed for a block before any was decompressed (for the priors of plan.ts). */
const PRIOR_RATIO = 3
/** A level's first round may run past the end of sampling by this share of the budget (into the timing passes' time). */
const BUDGET_SLACK = 0.05
/** A round plans to spend at most this share of the sampling time left. */
const ROUND_SHARE = 0.7
/** The margin of the budget a not-sampled note suggests over what the first rounds took per level. */
const REACH_MARGIN = 1.25
/** A level whose sample has fewer random blocks than this (and is not whole) has no interval: it is not sampled. */
const MIN_RANDOM_BLOCKS = 3

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
  /** A database under SMALL_DATABASE_BYTES answers at once (the command's default when --time-budget is not given). */
  smallAtOnce?: boolean
  /** Set by advise() for a small database answering at once: every level gets its first round whatever the clock. */
  smallDatabase?: boolean
  /** When the run began on `clock` (the command: 0, the process's start); default: when advise() is called. */
  startedAt?: number
}

interface GroupState {
  group: LevelGroup
  totals: ReturnType<typeof levelTotals>
  settings: SettingSpec[]
  todayIndex: number | null
  rate: number
  sums: SampleSums[]
  /** Dictionaries built per setting: how many files, their bytes (trailers included) and build time. */
  dict: { files: number; bytes: number; ms: number; dataBytes: number }[]
  todayCompression: string
  done: StopReason | null
  blocks: number
  msPerBlock: number | null
  /** Each file's dictionaries (by file index), built once in the first round. */
  fileDicts: Map<number, FileDictionaries>
  /** Per file read (by index) and setting: its sampled sums, for the spread between files when some were left unread. */
  fileSums: Map<number, FileSums[]>
  /** Per file read: whether this run (its shard) evaluates it. */
  mine: boolean[]
  /** Per file read (by index) whose dictionaries were built: each setting's dictionary block bytes (0 without). */
  fileDictBytes: Map<number, number[]>
}

type FileSums = Pick<SampleSums, 'n' | 'sumC' | 'sumS' | 'certainN' | 'certainC' | 'certainS'>

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
    dict: all.map(() => ({ files: 0, bytes: 0, ms: 0, dataBytes: 0 })),
    todayCompression: compressionNames(group),
    done: totals.dataBlocks === 0 && group.pending.length === 0 ? 'all-blocks' : null,
    blocks: 0,
    msPerBlock: null,
    fileDicts: new Map(),
    fileSums: new Map(),
    mine: group.files.map(() => true),
    fileDictBytes: new Map(),
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

/** Dictionary bytes of the files read under setting i: those built, and the mean for files whose dictionary is not. */
function dictTotal(st: GroupState, i: number): number {
  const d = st.dict[i]
  if (st.settings[i].dict === 'none' || d.files === 0) return 0
  return d.files >= st.totals.files ? d.bytes : (d.bytes / d.files) * st.totals.files
}

/** Level bytes on disk over those of the files read: 1 unless files were left unread. */
function scaleOf(st: GroupState): number {
  const unread = st.group.unread.fileBytes
  return unread > 0 && st.totals.fileBytes > 0 ? (st.totals.fileBytes + unread) / st.totals.fileBytes : 1
}

/** Whether the level has the evidence of an estimate: blocks evaluated, and enough of them for an interval. */
function sampled(st: GroupState): boolean {
  if (st.blocks === 0) return false
  const s = st.sums[0]
  const rest = st.totals.dataBlocks - s.certainN
  return rest <= 0 || st.rate >= 1 || s.n >= MIN_RANDOM_BLOCKS
}

/** The level's bytes today (data and dictionary blocks): exact when every file was read, else with the spread between files. */
function todayInterval(st: GroupState): Interval {
  const exact = st.totals.dataBytes + st.totals.dictBytes
  if (st.group.unread.files === 0 || st.group.files.length === 0) return { estimate: exact, low: exact, high: exact }
  const ratios = st.group.files.map((f) => (f.dataBytes + f.dictBytes) / Math.max(1, f.fileSize))
  // The estimate is the one every report shows for today (the files read's figures scaled by size on disk), the spread
  // between files that of the unread files' part.
  const spread = extrapolate(st, exact, 0, ratios)
  const estimate = exact * scaleOf(st)
  const half = (spread.high - spread.low) / 2
  return { estimate, low: Math.max(exact, estimate - half), high: estimate + half }
}

function todayOf(st: GroupState): number {
  return todayInterval(st).estimate
}

/** The level's total from the files read (estimate and half-width) and their ratios: with the unread files (estimate.ts). */
function extrapolate(st: GroupState, readEstimate: number, readHalf: number, ratios: number[]): Interval {
  const squares = st.group.pending.reduce((a, f) => a + (f.size ?? 0) ** 2, 0)
  return withUnreadFiles({ estimate: readEstimate, half: readHalf }, ratios, st.group.unread.fileBytes, squares)
}

/** The pooled regression's intercept and slope over the sampled blocks (estimate.ts), for each file's own total. */
function fitted(sums: SampleSums): { a: number; b: number } {
  if (sums.n === 0) return { a: 0, b: sums.certainS > 0 ? sums.certainC / sums.certainS : 1 }
  const cMean = sums.sumC / sums.n
  const sMean = sums.sumS / sums.n
  const sxx = sums.sumSS - sums.n * sMean * sMean
  const b = sxx > 1e-9 * sums.sumSS ? (sums.sumCS - sums.n * cMean * sMean) / sxx : sMean > 0 ? cMean / sMean : 0
  return { a: cMean - b * sMean, b }
}

/**
 * Each read file's own estimated total under setting i (its certain blocks, the pooled regression over its
 * other blocks corrected by its own sampled residuals: a generalized regression estimate per file, exact when
 * every block was read) and its dictionary, over its size on disk.
 */
function fileRatios(st: GroupState, i: number, dict: number): number[] {
  const { a, b } = fitted(st.sums[i])
  const meanDict = st.dict[i].files > 0 ? st.dict[i].bytes / st.dict[i].files : st.group.files.length > 0 ? dict / st.group.files.length : 0
  const p = Math.max(st.rate, 1e-9)
  return st.group.files.map((f, fi) => {
    const s = st.fileSums.get(fi)?.[i] ?? { n: 0, sumC: 0, sumS: 0, certainN: 0, certainC: 0, certainS: 0 }
    const restBlocks = Math.max(0, f.dataBlocks - s.certainN)
    const restBytes = Math.max(0, f.dataBytes - s.certainS)
    const residuals = st.rate >= 1 ? s.sumC - a * s.n - b * s.sumS : (s.sumC - a * s.n - b * s.sumS) / p
    const y = s.certainC + a * restBlocks + b * restBytes + residuals + (st.fileDictBytes.get(fi)?.[i] ?? meanDict)
    return y / Math.max(1, f.fileSize)
  })
}

/**
 * Setting i's projected bytes for the level. `withinOnly`: the block sampling's
 * part of the interval alone (what more blocks can narrow).
 */
function levelBytes(st: GroupState, i: number, withinOnly: boolean): Interval {
  const data = regressionEstimate(st.sums[i], st.totals.dataBytes, st.totals.dataBlocks, st.rate)
  const dict = dictTotal(st, i)
  const read: Interval = { estimate: data.estimate + dict, low: data.low + dict, high: data.high + dict }
  if (st.group.unread.files === 0 || withinOnly) return read
  return extrapolate(st, read.estimate, (read.high - read.low) / 2, fileRatios(st, i, dict))
}

/** Dictionary building, seconds per GB of the input it is built for: CPU a setting with a dictionary spends once per file. */
function dictSecPerGB(st: GroupState, i: number): number {
  const d = st.dict[i]
  if (st.settings[i].dict === 'none' || d.files === 0 || d.ms <= 0) return 0
  const s0 = st.sums[0]
  const ratio = s0.sumS + s0.certainS > 0 ? s0.sumU / (s0.sumS + s0.certainS) : 1
  const input = d.dataBytes * ratio
  // Built for too little input, the time is a fixed start-up cost, not a rate: not counted.
  return input >= MIN_DICT_TIMED_INPUT ? d.ms / 1000 / (input / 1e9) : 0
}

/** A compression timing with the dictionary's CPU per GB added (the interval moves with it). */
function withDictionary(t: Timing, dictSec: number): Timing {
  if (dictSec <= 0 || t.value === null) return t
  return { ...t, value: t.value + dictSec, low: t.low === null ? null : t.low + dictSec, high: t.high === null ? null : t.high + dictSec }
}

/** Dictionaries built for less input than this (bytes, uncompressed) give no dictionary CPU rate. */
const MIN_DICT_TIMED_INPUT = 512 << 10

/** Below this many bytes of distinct input, a level's timings are not rates worth showing (a few blocks, cached). */
const MIN_TIMED_INPUT = 64 << 10

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
  const unmeasured: Timing = { value: null, low: null, high: null, noisy: st.settings[i].type !== 'none' }
  const timed = st.settings[i].type !== 'none' && sums.sumU >= MIN_TIMED_INPUT
  const dictSec = dictSecPerGB(st, i)
  return {
    setting: st.settings[i],
    bytes,
    change,
    ratio: bytes.estimate > 0 ? uncompressed / bytes.estimate : 0,
    compressSecPerGB: timed ? withDictionary(timing(compressValue, sums.compressRates), dictSec) : unmeasured,
    decompressMBps: timed ? timing(decompressValue, sums.decompressRates) : unmeasured,
    dictSecPerGB: dictSec,
    rejectedShare: sums.n + sums.certainN > 0 ? sums.rejected / (sums.n + sums.certainN) : 0,
    dictBytes: dict,
    dictFilesBuilt: st.dict[i].files,
    dictBytesBuilt: st.dict[i].bytes,
    dictMsPerFile: st.dict[i].ms / files,
    pareto: false,
    sums,
  }
}

/** The widest interval of the level's settings in bytes (half-width): a level not yet sampled counts as its size. */
function widestBytes(st: GroupState): number {
  let w = 0
  for (let i = 0; i < st.settings.length; i++) {
    const b = levelBytes(st, i, false)
    const half = (b.high - b.low) / 2
    w = Math.max(w, Number.isFinite(half) ? half : levelDiskBytes(st))
  }
  return w
}

/** The widest relative interval of the level's settings (`withinOnly`: the part more blocks narrow). */
function widest(st: GroupState, withinOnly = false): number {
  let w = 0
  for (let i = 0; i < st.settings.length; i++) w = Math.max(w, relativeHalfWidth(levelBytes(st, i, withinOnly)))
  return w
}

/** A database whose live files hold fewer bytes than this is small: it answers within SMALL_DATABASE_BUDGET_MS. */
export const SMALL_DATABASE_BYTES = 10 << 20
/** A small database's time budget (from the process's start; the rest of 2 s is the report and the exit). */
const SMALL_DATABASE_BUDGET_MS = 1800

/**
 * A small database answers at once (`smallAtOnce`: no --time-budget given) when its matrix is the
 * default one: its time budget is SMALL_DATABASE_BUDGET_MS and, unless --objective size, its matrix the
 * small database's (settings.ts). Null: not small, or not asked.
 */
function forSmallDatabase(inputs: GroupInput[], opts: AdviseOptions): { opts: AdviseOptions; note: string } | null {
  const labels = (xs: SettingSpec[]) => xs.map((s) => s.label).join(',')
  // Asked for (no --time-budget), with the default matrix (no --types): a matrix of one's own gets the budget.
  if (!opts.smallAtOnce || opts.fixedRate !== null || labels(opts.settings) !== labels(defaultSettings())) return null
  let bytes = 0
  for (const g of inputs) for (const f of g.files) bytes += f.size ?? sizeOnDisk(f.path)
  if (bytes >= SMALL_DATABASE_BYTES) return null
  const narrowed = opts.objective !== 'size'
  const budget = Math.min(opts.timeBudgetMs, SMALL_DATABASE_BUDGET_MS)
  const what = `live files of ${(bytes / 1e6).toFixed(1)} MB (under ${SMALL_DATABASE_BYTES >> 20} MiB)`
  const note = narrowed
    ? `${what}: a time budget of ${formatSeconds(budget)}, without zstd 9 and 12 and raw or trained dictionaries (their CPU outweighs what they could save at this size; --types or --time-budget evaluates them)`
    : `${what}: a time budget of ${formatSeconds(budget)} (--time-budget gives it more)`
  // One thread: starting a worker costs more than it would save on a few megabytes.
  return { opts: { ...opts, settings: narrowed ? smallDatabaseSettings() : opts.settings, timeBudgetMs: budget, jobs: 1, smallDatabase: true }, note }
}

function sizeOnDisk(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export async function advise(inputs: GroupInput[], given: AdviseOptions): Promise<Advice> {
  const small = forSmallDatabase(inputs, given)
  const opts = small?.opts ?? given
  const advice = await adviseWithin(inputs, opts)
  if (small) {
    advice.notes.push(small.note)
    // The budget asked for, as given: the small database's own is in the note.
    advice.timeBudgetSec = given.timeBudgetMs / 1000
  }
  return advice
}

async function adviseWithin(inputs: GroupInput[], opts: AdviseOptions): Promise<Advice> {
  const clock = opts.clock ?? (() => performance.now())
  const started = opts.startedAt ?? clock()

  // Population: the first files of each level in size-proportional order (files outside this shard included, so every
  // shard sees the same levels), within FIRST_PASS_SHARE of the budget; more are read later where the spread between
  // files asks for them. A fixed sample (shards) reads every file, so that shards add up.
  const usesDictionaries = opts.settings.some((s) => s.dict !== 'none')
  const fixed = opts.fixedRate !== null
  // The worker threads start now, so that they load while this thread reads the first files.
  const jobs = Math.max(1, opts.jobs ?? availableParallelism())
  const pool = new AdvisePool(Math.min(jobs, lanesOf(opts.settings, jobs).length))
  let population: ReturnType<typeof readPopulation>
  try {
    population = readPopulation(inputs, {
      dict: usesDictionaries ? opts.dict : null,
      seed: opts.seed,
      deadline: fixed ? Number.POSITIVE_INFINITY : started + FIRST_PASS_SHARE * opts.timeBudgetMs,
      clock,
      filesPerLevel: fixed ? Number.POSITIVE_INFINITY : MIN_FILES_READ,
    })
  } catch (e) {
    await pool.close()
    throw e
  }
  return advisePopulation(population, opts, started, pool)
}

/** What the engine has measured of its own costs (plan.ts), and the dictionary bytes it keeps between rounds. */
interface Costs extends MeasuredCosts {
  retainedDictBytes: number
}

interface Run {
  opts: AdviseOptions
  pool: AdvisePool
  jobs: number
  /** Threads the settings are spread over. */
  lanes: number
  problems: Advice['problems']
  clock: () => number
  costs: Costs
}

/** What a block and a file of this level are expected to cost: measured (the level's own blocks first), else priors. */
/** A level's least first round at the costs planned on now (plan.ts). */
function leastFirstRound(st: GroupState, run: Run): number {
  return leastFirstRoundMs({
    filesRead: st.group.files.length,
    filesPending: st.group.pending.length,
    dataBlocks: st.totals.dataBlocks,
    minFiles: MIN_FILES_READ,
    minBlocks: MIN_SAMPLE_BLOCKS,
    costs: costsOf(st, run),
  })
}

function costsOf(st: GroupState, run: Run): UnitCosts {
  const { dict } = run.opts
  const files = st.group.files
  const meanFile = files.length > 0 ? st.totals.fileBytes / files.length : 0
  const buffered = dict.maxDictBufferBytes > 0 ? Math.min(meanFile, dict.maxDictBufferBytes) : meanFile
  const perBlockStored = st.totals.dataBlocks > 0 ? st.totals.dataBytes / st.totals.dataBlocks : 4096
  const prior = {
    blockMs: priorBlockMs(st.settings, perBlockStored * PRIOR_RATIO, run.lanes),
    fileMs: priorFileMs(st.settings, buffered),
  }
  const units = unitCosts(run.costs, prior)
  return { blockMs: st.msPerBlock ?? units.blockMs, fileMs: units.fileMs }
}

/**
 * The engine after the first pass: sampling rounds (first every level that
 * holds data, largest first, each within its share of the time left; then the
 * level furthest from the precision asked for, with more blocks or, where the
 * spread between files dominates, more files), the timing passes, and the
 * decision. `started` is when the run began on `opts.clock`, so the first pass
 * counts against the time budget.
 */
export async function advisePopulation(
  { groups, problems }: ReturnType<typeof readPopulation>,
  opts: AdviseOptions,
  started: number,
  given?: AdvisePool,
): Promise<Advice> {
  const clock = opts.clock ?? (() => performance.now())
  const elapsed = () => clock() - started
  const jobs = Math.max(1, opts.jobs ?? availableParallelism())
  const notes: string[] = []
  const states = groups.filter((g) => g.files.length + g.pending.length > 0).map((g) => initState(g, opts.settings, opts))
  let position = 0
  for (const st of states) st.mine = st.group.files.map(() => inShard(opts.shard, position++))

  const lanes = lanesOf(states[0]?.settings ?? opts.settings, jobs)
  const pool = given ?? new AdvisePool(Math.min(jobs, lanes.length))
  const run: Run = {
    opts,
    pool,
    jobs,
    lanes: Math.min(jobs, lanes.length),
    problems,
    clock,
    costs: { blockMs: 0, blocks: 0, fileMs: 0, files: 0, retainedDictBytes: 0 },
  }
  let budgetHit = false
  const fixed = opts.fixedRate !== null
  const samplingEnd = opts.timeBudgetMs * SAMPLING_END
  // When sampling began and how many levels' first rounds sampled: the budget that would reach every level (the not-sampled note).
  const firstRounds = { from: elapsed(), sampled: 0 }
  try {
    for (;;) {
      const open = states.filter((s) => s.done === null)
      if (open.length === 0) break
      // Every level that holds data gets its first round before any level gets a second: the largest first.
      const first = open.filter((s) => s.rate === 0)
      // A small database's levels get theirs whatever the clock: a few megabytes bound their cost, and an answer
      // without evidence is no answer.
      const evidenceFirst = opts.smallDatabase === true && first.length > 0
      if (elapsed() >= samplingEnd && !fixed && !evidenceFirst) {
        for (const s of open) s.done = 'time-budget'
        budgetHit = true
        break
      }
      if (first.length > 0) {
        const pick = first.reduce((a, b) => (levelDiskBytes(b) > levelDiskBytes(a) ? b : a))
        const share = fixed
          ? Number.POSITIVE_INFINITY
          : firstRoundShare(
              Math.max(0, samplingEnd - elapsed()),
              [pick, ...first.filter((s) => s !== pick)].map((s) => leastFirstRound(s, run)),
            )
        const left = fixed || evidenceFirst ? Number.POSITIVE_INFINITY : samplingEnd - elapsed() + BUDGET_SLACK * opts.timeBudgetMs
        if (!(await firstRound(pick, run, share, left))) {
          pick.done = 'time-budget'
          budgetHit = true
        } else firstRounds.sampled++
      } else {
        // The level whose interval is widest in bytes goes next: what narrows the total most.
        const pick = open.reduce((a, b) => (widestBytes(b) > widestBytes(a) ? b : a))
        const grew = wantsFiles(pick) ? await admitMore(pick, run, samplingEnd - elapsed()) : await moreBlocks(pick, run, samplingEnd - elapsed())
        if (!grew) {
          pick.done = 'time-budget'
          budgetHit = true
        }
      }
    }
    // Timings: settings whose speed is still noisy are timed again on the sampled blocks, while time remains.
    // A fixed sample (--sample) has no time budget: timing again takes at most a tenth of the time sampling took.
    // Under a budget, timing again also takes at most RETIME_SHARE of the time so far: a database sampled in a second
    // (a small one) is not kept for the budget's timing passes; its noisy settings are ranked on reference speeds.
    const timingEnd =
      opts.fixedRate === null ? Math.min(opts.timeBudgetMs * TIMING_END, elapsed() * (1 + RETIME_SHARE)) : elapsed() * (1 + FIXED_SAMPLE_TIMING_SHARE)
    const retimed = new Set(states.filter((st) => sampled(st)))
    let msPerRetimed = 0
    retiming: for (let pass = 0; pass < TIMING_PASSES && retimed.size > 0; pass++) {
      for (const st of [...retimed]) {
        if (elapsed() >= timingEnd && !fixed) break retiming
        // A level whose noisy settings did not get fewer is not timed again: the machine, not the sample, is the noise.
        const before = noisyCount(st)
        // A pass measures each noisy setting TIMING_RATES times for about TIMING_MEASUREMENT_MS, across the lanes;
        // once a pass was timed, at what that one took per setting (a loaded machine takes longer than planned).
        const planned = (before * TIMING_RATES * TIMING_MEASUREMENT_MS * 1.5) / Math.min(jobs, lanes.length)
        // Before any pass was timed, twice the plan: a loaded machine's first pass took up to that.
        const passMs = msPerRetimed > 0 ? Math.max(planned, msPerRetimed * before) : 2 * planned
        if (!fixed && elapsed() + passMs >= timingEnd) {
          retimed.delete(st)
          continue
        }
        const t0 = clock()
        const timed = before > 0 && (await retime(st, run))
        if (timed) msPerRetimed = Math.max(msPerRetimed, (clock() - t0) / before)
        if (!timed || noisyCount(st) >= before) retimed.delete(st)
      }
    }
  } finally {
    await pool.close()
  }
  const unread = states.filter((st) => st.group.unread.files > 0).map((st) => st.group)
  if (unread.length > 0) notes.push(unreadNote(unread))
  if (budgetHit)
    notes.push(`the time budget (${formatSeconds(opts.timeBudgetMs)}) ended sampling before every level reached ±${(opts.precision * 100).toFixed(1)}%`)
  const missing = states.filter((st) => !sampled(st))
  if (missing.length > 0)
    notes.push(
      `not sampled (the time budget ended first): ${missing.map((st) => label(st.group)).join(', ')}; ${missing.length === 1 ? 'it keeps' : 'they keep'} today's setting${reachingBudget(
        firstRounds,
        states.reduce((a, st) => a + leastFirstRound(st, run), 0),
      )}`,
    )

  const advice = assemble(states, opts, notes)
  advice.problems = problems
  advice.elapsedSec = elapsed() / 1000
  return advice
}

/**
 * ", a --time-budget of about N s would sample every level": every level's least first round at the
 * costs the run measured, with a margin; '' when no level was sampled (nothing measured).
 */
function reachingBudget(firstRounds: { from: number; sampled: number }, leastMs: number): string {
  if (firstRounds.sampled === 0) return ''
  const ms = (firstRounds.from + leastMs * REACH_MARGIN) / SAMPLING_END
  const step = ms < 10_000 ? 1000 : 5000
  return `; a --time-budget of about ${formatSeconds(Math.ceil(ms / step) * step)} would sample every level`
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`
}

/** Bytes on disk of the level's live files, read or not. */
function levelDiskBytes(st: GroupState): number {
  return st.totals.fileBytes + st.group.unread.fileBytes
}

/** More files rather than more blocks: the spread between files is at least half the level's variance, or no block is left. */
function wantsFiles(st: GroupState): boolean {
  if (st.group.pending.length === 0) return false
  if (st.rate >= 1) return true
  const total = widest(st)
  const within = widest(st, true)
  return within * within <= 0.5 * total * total
}

/**
 * A level's first round: its files read so far (as many as its share of the
 * time affords, at least MIN_FILES_READ), their dictionaries, and about
 * FIRST_ROUND_BLOCKS blocks. False when nothing could be sampled.
 */
async function firstRound(st: GroupState, run: Run, shareMs: number, leftMs: number): Promise<boolean> {
  const { opts } = run
  const costs = costsOf(st, run)
  if (st.totals.dataBlocks === 0 && st.group.pending.length > 0) {
    if (Number.isFinite(leftMs) && costs.fileMs * MIN_FILES_READ > leftMs) return false
    if (!(await admitMore(st, run, shareMs))) return false
    return st.blocks > 0
  }
  const wanted = nextRate(st, opts, 0, Number.POSITIVE_INFINITY)
  if (wanted === null) return false
  // As many files and blocks as the level's share of the time affords (plan.ts); none when the fewest do not fit.
  const plan = planFirstRound({
    filesRead: st.group.files.length,
    minFiles: MIN_FILES_READ,
    dataBlocks: st.totals.dataBlocks,
    wantBlocks: Math.ceil(wanted * st.totals.dataBlocks),
    minBlocks: MIN_SAMPLE_BLOCKS,
    shareMs: opts.fixedRate !== null ? Number.POSITIVE_INFINITY : shareMs,
    leftMs,
    costs,
  })
  if (plan === null) return false
  if (plan.files < st.group.files.length) giveBack(st, st.group.files.length - plan.files)
  const rate = plan.blocks >= st.totals.dataBlocks ? 1 : roundRate(Math.min(wanted, plan.blocks / Math.max(1, st.totals.dataBlocks)))
  // A batch of files at a time (one per lane): when what the run measured says the next batch does not fit in the time
  // left, the files not yet sampled go back to pending (estimated from those sampled): no prior, however wrong, breaks
  // the budget by more than one batch.
  const started = run.clock()
  // The level's own time: its share (or what its fewest blocks were planned to cost, if more), never the whole of the
  // time left: the levels after it get theirs.
  const roomMs = Math.min(leftMs, Number.isFinite(shareMs) ? Math.max(shareMs, plan.ms) : leftMs)
  const batch = opts.fixedRate !== null ? Number.POSITIVE_INFINITY : Math.max(1, run.lanes)
  for (let from = 0; from < st.group.files.length; ) {
    const indices = st.group.files.map((_, fi) => fi).slice(from, from + batch)
    const t0 = run.clock()
    await buildDictionaries(st, run, indices)
    noteFileCost(run, st, indices.length, run.clock() - t0)
    if (run.costs.blocks === 0 && Number.isFinite(leftMs)) {
      // Nothing measured yet: a probe of the blocks first (the samples are nested), then what the time left affords.
      const batchBlocks = (st.totals.dataBlocks * indices.length) / st.group.files.length
      const probe = Math.min(rate * PROBE_SHARE, PROBE_BLOCKS / Math.max(1, batchBlocks))
      await runRound(st, 0, probe, run, indices)
      const perBlock = costsOf(st, run).blockMs
      // Aimed inside the time left: how many blocks a draw range holds is itself random.
      const affordable = (AIM * (roomMs - (run.clock() - started))) / perBlock
      const upTo = Math.min(rate, probe + affordable / Math.max(1, batchBlocks))
      if (upTo > probe) await runRound(st, probe, upTo, run, indices)
      if (upTo < rate) {
        giveBack(st, st.group.files.length - indices.length)
        break
      }
    } else await runRound(st, 0, rate, run, indices)
    from += indices.length
    const left = st.group.files.length - from
    if (left === 0 || !Number.isFinite(leftMs)) continue
    const now = costsOf(st, run)
    const next = Math.min(batch, left)
    const blocksNext = (st.totals.dataBlocks / st.group.files.length) * next * rate
    if (run.clock() - started + next * now.fileMs + blocksNext * now.blockMs > roomMs) giveBack(st, left)
  }
  afterRound(st, opts)
  return true
}

/** Put the last `n` files read back to pending (before any of their blocks is sampled). */
function giveBack(st: GroupState, n: number): void {
  const back = st.group.files.splice(st.group.files.length - n, n)
  st.mine.splice(st.mine.length - n, n)
  st.group.pending.unshift(...back.map((f) => ({ path: f.path, fileNumber: f.fileNumber, size: f.fileSize })))
  refreshTotals(st)
}

function refreshTotals(st: GroupState): void {
  st.group.unread = { files: st.group.pending.length, fileBytes: st.group.pending.reduce((a, f) => a + (f.size ?? 0), 0) }
  st.totals = levelTotals(st.group)
}

/** A file's cost is its dictionaries': without any, reading it is part of its blocks' cost. */
function noteFileCost(run: Run, st: GroupState, files: number, ms: number): void {
  if (!st.settings.some((s) => s.dict !== 'none')) return
  run.costs.files += files
  run.costs.fileMs += ms
}

function afterRound(st: GroupState, opts: AdviseOptions): void {
  if (st.rate >= 1 && st.group.pending.length === 0) st.done = 'all-blocks'
  else if (opts.fixedRate !== null) st.done = st.rate >= 1 ? 'all-blocks' : 'fixed-sample'
  else if (sampled(st) && widest(st) <= opts.precision) st.done = 'precision'
  opts.onProgress?.(
    `${label(st.group)}: ${st.blocks} blocks sampled (${(st.rate * 100).toFixed(1)}%) in ${st.group.files.length} of ${st.group.files.length + st.group.pending.length} files`,
  )
}

/** Read more of a level's files (doubling those read, as the time left affords) and sample them at the level's rate. */
async function admitMore(st: GroupState, run: Run, leftMs: number): Promise<boolean> {
  const { fileMs: perFile, blockMs: perBlock } = costsOf(st, run)
  const blocksPerFile = st.group.files.length > 0 ? st.totals.dataBlocks / st.group.files.length : 64
  const rate = st.rate > 0 ? st.rate : Math.min(1, FIRST_ROUND_BLOCKS / Math.max(1, blocksPerFile * MIN_FILES_READ))
  const each = perFile + blocksPerFile * rate * perBlock
  let n = Math.min(st.group.pending.length, Math.max(MIN_FILES_READ, st.group.files.length))
  if (each > 0 && Number.isFinite(leftMs)) n = Math.min(n, Math.floor((leftMs * 0.8) / each))
  if (n < 1) return false
  const t0 = run.clock()
  const taken = st.group.pending.splice(0, n)
  const added: number[] = []
  const usesDictionaries = st.settings.some((s) => s.dict !== 'none')
  for (const f of taken) {
    const file = readFile(f, usesDictionaries ? run.opts.dict : null, st.group.optionsSetting, run.problems)
    if (!file) continue
    st.group.files.push(file)
    st.mine.push(true)
    added.push(st.group.files.length - 1)
  }
  refreshTotals(st)
  await buildDictionaries(st, run, added)
  noteFileCost(run, st, taken.length, run.clock() - t0)
  await runRound(st, 0, rate, run, added)
  st.rate = rate
  afterRound(st, run.opts)
  return true
}

/** Raise a level's sampling rate over the files read. */
async function moreBlocks(st: GroupState, run: Run, leftMs: number): Promise<boolean> {
  const next = nextRate(st, run.opts, 0, leftMs, costsOf(st, run).blockMs)
  if (next === null) return false
  await runRound(
    st,
    st.rate,
    next,
    run,
    st.group.files.map((_, fi) => fi),
  )
  afterRound(st, run.opts)
  return true
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
      // A part that sampled the level says what today is and at what rate (one without its files did not look).
      const seen = same.find((l) => l!.sample.stopped !== 'not-sampled') ?? level
      const todayIndex = seen.today ? settings.findIndex((s) => sameSetting(s, seen.today!.setting)) : -1
      states.push({
        group: {
          columnFamily: cf.name,
          level: level.level,
          bottommost: level.bottommost,
          optionsSetting: level.todayOptions,
          files: [],
          pending: [],
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
        rate: seen.sample.share,
        sums: settings.map((_, i) => same.reduce((acc, l) => mergeSums(acc, l!.matrix[i].sums), emptySums())),
        dict: settings.map((_, i) => ({
          files: same.reduce((a, l) => a + l!.matrix[i].dictFilesBuilt, 0),
          bytes: same.reduce((a, l) => a + l!.matrix[i].dictBytesBuilt, 0),
          ms: same.reduce((a, l) => a + l!.matrix[i].dictMsPerFile * l!.matrix[i].dictFilesBuilt, 0),
          // The data the dictionaries were built for: the level's, in the share of its files built.
          dataBytes: (level.dataBytes * same.reduce((a, l) => a + l!.matrix[i].dictFilesBuilt, 0)) / Math.max(1, level.files),
        })),
        todayCompression: level.todayCompression,
        done: seen.sample.stopped,
        blocks: same.reduce((a, l) => a + l!.sample.blocks, 0),
        msPerBlock: null,
        fileDicts: new Map(),
        fileSums: new Map(),
        mine: [],
        fileDictBytes: new Map(),
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
      // The shards read the same LOGs and OPTIONS: the first part's workload prices and weighs the merge, and its
      // release's syntax writes the options.
      workload: first.workload ?? null,
      prices: first.workload?.prices ?? null,
      rocksdbVersion: parseRocksdbVersion(first.source.rocksdbVersion?.version ?? null),
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
const TIMING_MEASUREMENT_MS = 25
/** Measurements per noisy setting and timing pass. */
const TIMING_RATES = 3
/** Timing passes read at most this many files of a level. */
const RETIME_FILES = 8

function noisyCount(st: GroupState): number {
  const today = todayOf(st)
  return st.settings.filter((s, i) => s.type !== 'none' && (estimateOf(st, i, today).compressSecPerGB.noisy || estimateOf(st, i, today).decompressMBps.noisy))
    .length
}

/** Time the noisy settings of a level again; false when none is noisy. */
async function retime(st: GroupState, run: Run): Promise<boolean> {
  const { opts, pool, jobs } = run
  // Too little data to time (MIN_TIMED_INPUT): its figures are not shown as rates, and not timed again.
  if (st.rate === 0 || st.blocks === 0 || st.sums[0].sumU < MIN_TIMED_INPUT) return false
  const today = todayOf(st)
  const noisy = st.settings.flatMap((s, i) => {
    if (s.type === 'none') return []
    const e = estimateOf(st, i, today)
    return e.compressSecPerGB.noisy || e.decompressMBps.noisy ? [{ i, secPerGB: e.compressSecPerGB.value ?? 5 }] : []
  })
  if (noisy.length === 0) return false
  const lanes = lanesOf(st.settings, jobs)
  const laneOf = new Map(lanes.flatMap((items, lane) => items.map((i) => [i, lane] as [number, number])))
  // A few files suffice for timings (every task opens its file): the first ones read.
  const files = st.group.files.filter((_, fi) => st.mine[fi]).slice(0, RETIME_FILES)
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
        timing: { rates: TIMING_RATES, bytesPerRate },
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

/** The levels whose files were not all read, and what that means for their estimates. */
function unreadNote(groups: LevelGroup[]): string {
  const files = groups.reduce((a, g) => a + g.unread.files, 0)
  const all = groups.reduce((a, g) => a + g.unread.files + g.files.length, 0)
  const where = groups.map((g) => `${label(g)} ${g.files.length} of ${g.files.length + g.unread.files}`).join(', ')
  return `files drawn in proportion to their size, ${all - files} of ${all} read (${where}): the other files' bytes are estimated from those read, and their levels' intervals include the spread between files`
}

function label(g: LevelGroup): string {
  return g.level === null ? g.columnFamily : `${g.columnFamily} L${g.level}`
}

/**
 * Build the dictionaries of files `indices` once, in parallel across files,
 * before their blocks are sampled: every setting with a dictionary compresses
 * a file's blocks with the one RocksDB would have built for it, and the
 * level's dictionary bytes are exact for the files read. They are kept for
 * the later rounds up to RETAINED_DICT_BYTES; beyond, a round builds them again.
 */
async function buildDictionaries(st: GroupState, run: Run, indices: number[]): Promise<void> {
  const { opts, pool } = run
  const needing = st.settings.flatMap((spec, id) => (spec.dict !== 'none' ? [{ id, spec }] : []))
  if (needing.length === 0) return
  const files = indices.flatMap((fi) => (st.mine[fi] ? [{ f: st.group.files[fi], fi }] : []))
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
    const size = Object.values(dicts).reduce((a, d) => a + d.bytes.length, 0)
    if (run.costs.retainedDictBytes + size <= RETAINED_DICT_BYTES) {
      st.fileDicts.set(files[k].fi, dicts)
      run.costs.retainedDictBytes += size
    }
    const own = st.settings.map(() => 0)
    for (const { id, spec } of needing) {
      const d = dicts[dictKey(spec)]
      if (!d) continue
      const acc = st.dict[id]
      acc.files++
      // A dictionary ZDICT could not build means none, as in RocksDB: no dictionary block.
      own[id] = d.bytes.length > 0 ? d.bytes.length + BLOCK_TRAILER_BYTES : 0
      acc.bytes += own[id]
      acc.ms += d.ms
      acc.dataBytes += files[k].f.dataBytes
    }
    st.fileDictBytes.set(files[k].fi, own)
  })
}

/** The next sampling rate for a level, or null when the time left (`budgetMs − spentMs`) leaves no room for another round. */
function nextRate(st: GroupState, opts: AdviseOptions, spentMs: number, budgetMs: number, perBlock: number | null = st.msPerBlock): number | null {
  const n = st.totals.dataBlocks
  if (n === 0) return null
  // A level this small is evaluated whole, and no level is estimated from fewer than MIN_SAMPLE_BLOCKS.
  if (opts.fixedRate !== null) return n <= SMALL_LEVEL_BLOCKS ? 1 : Math.min(1, Math.max(opts.fixedRate, MIN_SAMPLE_BLOCKS / n))
  if (st.rate === 0) return n <= SMALL_LEVEL_BLOCKS ? 1 : roundRate(Math.min(1, FIRST_ROUND_BLOCKS / n))
  if (st.rate >= 1) return null
  const w = widest(st, true)
  let rate = rateFor(w, st.rate, opts.precision * AIM)
  rate = Math.min(1, Math.max(rate, st.rate * 1.5), st.rate * 8)
  if (rate * n - st.rate * n < 16) rate = Math.min(1, st.rate + 16 / n)
  // Most of the level: all of it, when the budget affords it (below), so that its totals are exact.
  rate = roundRate(rate)
  if (perBlock !== null) {
    // One round spends at most ROUND_SHARE of the time left: a round's cost per block is a measurement, not a promise.
    const affordable = (ROUND_SHARE * (budgetMs - spentMs)) / perBlock
    if (affordable < 8) return null
    rate = Math.min(rate, st.rate + affordable / n)
  }
  return rate
}

/** Evaluate the blocks of files `indices` whose draw lies in [rateLow, rateHigh); the level's rate becomes rateHigh. */
async function runRound(st: GroupState, rateLow: number, rateHigh: number, run: Run, indices: number[]): Promise<void> {
  const { opts, pool, problems } = run
  const lanes = lanesOf(st.settings, run.jobs)
  const tasks: { lane: number; task: FileTask; indices: number[]; fi: number }[] = []
  for (const fi of indices) {
    if (!st.mine[fi]) continue
    const f = st.group.files[fi]
    lanes.forEach((settingIndices, lane) => {
      tasks.push({
        lane,
        indices: settingIndices,
        fi,
        task: {
          path: f.path,
          key: f.key,
          seed: opts.seed,
          rateLow,
          rateHigh,
          certain: f.certain,
          dictionaries: st.fileDicts.get(fi),
          settings: settingIndices.map((i) => ({ id: i, spec: st.settings[i] })),
          dict: opts.dict,
          maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb,
        },
      })
    })
  }
  const t0 = run.clock()
  const results: FileTaskResult[] = await pool.run(tasks.map(({ lane, task }) => ({ lane, task })))
  const ms = run.clock() - t0
  let blocks = 0
  results.forEach((r, k) => {
    const { indices: settingIndices, lane, fi } = tasks[k]
    if (lane === 0) {
      blocks += r.blocks
      for (const sk of r.skipped) problems.push({ file: tasks[k].task.path, offset: sk.offset, message: `data block left out of the sample: ${sk.message}` })
    }
    let perFile = st.fileSums.get(fi)
    if (!perFile) st.fileSums.set(fi, (perFile = st.settings.map(() => ({ n: 0, sumC: 0, sumS: 0, certainN: 0, certainC: 0, certainS: 0 }))))
    for (const i of settingIndices) {
      st.sums[i] = mergeSums(st.sums[i], r.sums[i])
      const f = perFile[i]
      f.n += r.sums[i].n
      f.sumC += r.sums[i].sumC
      f.sumS += r.sums[i].sumS
      f.certainN += r.sums[i].certainN
      f.certainC += r.sums[i].certainC
      f.certainS += r.sums[i].certainS
    }
  })
  st.blocks += blocks
  if (blocks > 0) {
    // Every round counts, the first too (it starts the threads): planning on less than it cost would break the budget.
    st.msPerBlock = ms / blocks
    run.costs.blocks += blocks
    run.costs.blockMs += ms
  }
  st.rate = rateHigh
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
    // A level not sampled keeps today's setting whatever the others choose.
    // Before RocksDB 5.15 (no bottommost_compression_opts) the bottommost level shares them too.
    const ownBottom = bottommostOwnOpts(version)
    const upper = levels.filter((l) => (!l.bottommost || !ownBottom) && l.level !== null && l.dataBlocks > 0 && l.sample.stopped !== 'not-sampled')
    const needing = upper.filter((l) => needsOpts(l.recommended.estimate.setting))
    if (needing.length > 0 && !budget) {
      const lead = needing.reduce((a, b) => (b.dataBytes > a.dataBytes ? b : a))
      // Each upper level under `carrier`'s compression_opts: its own choice where that shares them, else re-decided among
      // the settings that do (`from`: the level whose setting carries them, kept as chosen).
      const under = (carrier: SettingSpec, from: LevelAdvice) =>
        upper.map((l) => {
          if (l === from || sharesOpts(l.recommended.estimate.setting, carrier)) return l
          const at = levels.indexOf(l)
          const fixed = withNewerRelease(
            levelAdvice(sts[at], opts, (s) => parses(s) && sharesOpts(s, carrier)),
            sts[at],
            opts,
            l.bottommost ? optionSince('bottommost_compression_opts') : null,
          )
          fixed.recommended.reason += ` (shares compression_opts with L${from.level})`
          return fixed
        })
      let shared = under(lead.recommended.estimate.setting, lead)
      // No change without a gain: a level the lead's options would change (its today's setting does not behave as
      // evaluated under them) for less than MIN_GAIN keeps today's instead, and today's options are the shared ones.
      const loser = shared.find(
        (l, k) =>
          l !== upper[k] &&
          l.today !== null &&
          !sharesOpts(l.today.setting, lead.recommended.estimate.setting) &&
          l.recommended.estimate.bytes.estimate > l.today.bytes.estimate * (1 - MIN_GAIN),
      )
      if (loser?.today) {
        const original = upper[shared.indexOf(loser)]
        const keep = sharesOpts(original.recommended.estimate.setting, loser.today.setting) ? original : null
        if (keep) shared = under(loser.today.setting, keep)
      }
      shared.forEach((l, k) => {
        levels[levels.indexOf(upper[k])] = l
      })
    }
    const choices: LevelChoice[] = levels
      .filter((l) => l.level !== null && l.dataBlocks > 0)
      .map((l) => ({ level: l.level!, bottommost: l.bottommost, setting: l.recommended.estimate.setting }))
    const single = levels.length === 1 && levels[0].level === null ? levels[0].recommended.estimate.setting : null
    // A level neither sampled nor known today (no OPTIONS, no compression property): no option can be written for it.
    const unknown = levels.filter((l) => l.recommended.estimate.setting.type === UNKNOWN_TYPE)
    const options = unknown.length
      ? {}
      : optionsFor(
          {
            columnFamily: name,
            levels: single ? null : choices,
            single,
            dynamicLevels: opts.dynamicLevels?.get(name) ? { baseLevel: Math.min(...choices.filter((c) => c.level > 0).map((c) => c.level), 1) } : null,
          },
          opts.dict,
          version,
        )
    if (unknown.length) notes.push(`${name}: no options printed: ${unknown.map((l) => levelLabelOf(l)).join(', ')} not sampled and today's compression unknown`)
    families.push({
      name,
      dynamicLevels: opts.dynamicLevels?.get(name) ?? false,
      levels,
      options,
      optionsText: unknown.length ? '' : optionsText(name, options),
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
    change:
      todayTotal > 0
        ? { estimate: projected / todayTotal - 1, low: (projected - half) / todayTotal - 1, high: (projected + half) / todayTotal - 1 }
        : { estimate: 0, low: 0, high: 0 },
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
        `balanced: each level's CPU multiple is weighted by the write rate the info LOG measured there (a level written at w times the average rate gets the multiple divided by w, between 1.25x and 32x; on L2 and below never tighter than ${NEGLIGIBLE_CORES} cores at the level's rate)`,
      )
    if (opts.objective === 'cost' && !opts.limits && !opts.workload.measured)
      add('objective cost without a measured workload: compression CPU cannot be priced, so the balanced rules decide')
  }
  // Only where a compression_per_level is printed: without one, the base level changes nothing.
  if (families.some((f) => f.dynamicLevels && f.options.compression_per_level !== undefined))
    add(
      'level_compaction_dynamic_level_bytes is on: compression_per_level entry i > 0 applies to level base_level + i - 1, and the RocksDB options advised are written that way',
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
    ? matrix.map((x) => ({
        ...x,
        compressSecPerGB: withDictionary(nominalTimings(x.setting).compress, x.dictSecPerGB),
        decompressMBps: nominalTimings(x.setting).decompress,
      }))
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

type Decider = (
  candidates: SettingEstimate[],
  limits: LevelLimits,
  today: SettingEstimate | null,
  speeds: string | null,
) => { recommended: Choice; runnerUp: Choice | null }

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
  // A level without an estimate (the time budget ended before it was sampled) keeps today's bytes, and says so.
  const advised = withData.filter((st) => sampled(st) && withinOtherLimits(st, opts).length > 0)
  if (maxBytes === null || advised.length === 0) return null
  const kept = withData.filter((st) => !advised.includes(st)).reduce((a, st) => a + todayOf(st), 0)
  const levels = advised.map((st) => {
    const candidates = withinOtherLimits(st, opts)
    const s0 = st.sums[0]
    const uncompressed = s0.sumS + s0.certainS > 0 ? (s0.sumU / (s0.sumS + s0.certainS)) * st.totals.dataBytes * scaleOf(st) : 0
    return {
      family: st.group.columnFamily,
      sharesOpts: (!st.group.bottommost || !bottommostOwnOpts(opts.rocksdbVersion ?? null)) && st.group.level !== null,
      candidates,
      inputGB: uncompressed / 1e9,
    }
  })
  const result = withinBytes(levels, maxBytes - kept, sharesOpts)
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
  if (!sampled(st)) {
    const advice = notSampledAdvice(st, opts)
    // A shard's part keeps every setting's (empty) sums, so that the parts merge; the merge decides.
    if (opts.shard !== null) advice.matrix = st.settings.map((_, i) => estimateOf(st, i, todayOf(st)))
    return advice
  }
  const { matrix, ranked, noisy, today } = rankedMatrix(st)
  const limits = levelLimits(st, opts, ranked, today ? ranked[matrix.indexOf(today)] : null)
  const candidates = filter ? ranked.filter((x) => filter(x.setting)) : ranked
  const rankedToday = today ? ranked[matrix.indexOf(today)] : null
  const choice = decider(candidates.length ? candidates : ranked, limits, rankedToday, noisy ? 'reference speeds' : null)
  // The figures shown with a choice are those it was ranked on (reference speeds where this run's timings are noisy).
  const recommended = { ...choice.recommended, reason: choice.recommended.reason + (noisy ? ' (timings noisy here: CPU ranked on reference speeds)' : '') }
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
    cpuBasis: noisy ? 'reference' : 'measured',
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
/** `sharing`: the release that would let the level leave the shared compression_opts (its own since then), when it shares them. */
function withNewerRelease(advice: LevelAdvice, st: GroupState, opts: AdviseOptions, sharing: string | null = null): LevelAdvice {
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
const UNKNOWN_TYPE = 'unknown'

function levelLabelOf(l: Pick<LevelAdvice, 'columnFamily' | 'level'>): string {
  return l.level === null ? 'its files' : `L${l.level}`
}

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
    cpuBasis: 'measured',
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

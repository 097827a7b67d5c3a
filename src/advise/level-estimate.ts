/**
 * A level's state during a run and its estimates: per setting the sampled sums, the projected bytes
 * with their interval (files left unread included), the timings, and how wide the intervals still are.
 */
import { emptySums, regressionEstimate, relativeHalfWidth, timing, withUnreadFiles } from '../decide/estimate.js'
import type { KeptDictionaries } from './evaluate.js'
import type { Interval, SampleSums, SettingEstimate, SettingSpec, StopReason, Timing } from '../types/advice.js'
import { compressionNames, type LevelGroup, levelTotals, MIN_SPREAD_FILES } from './population.js'
import { sameSetting, withRunOptions } from '../decide/settings.js'
import type { AdviseOptions } from './engine-options.js'

/** A level whose sample has fewer random blocks than this (and is not whole) has no interval: it is not sampled. */
const MIN_RANDOM_BLOCKS = 3

export interface GroupState {
  group: LevelGroup
  totals: ReturnType<typeof levelTotals>
  settings: SettingSpec[]
  todayIndex: number | null
  rate: number
  sums: SampleSums[]
  /** Dictionaries built per setting: how many files, their bytes (trailers included) and build time. */
  dict: { files: number; bytes: number; ms: number; referenceMs: number; dataBytes: number }[]
  todayCompression: string
  done: StopReason | null
  blocks: number
  msPerBlock: number | null
  /** Each file's dictionaries (by file index), built once in the first round. */
  fileDicts: Map<number, KeptDictionaries>
  /** Per file read (by index) and setting: its sampled sums, for the spread between files when some were left unread. */
  fileSums: Map<number, FileSums[]>
  /** Per file read: whether this run (its shard) evaluates it. */
  mine: boolean[]
  /** Per file read (by index) whose dictionaries were built: each setting's dictionary block bytes (0 without). */
  fileDictBytes: Map<number, number[]>
}

type FileSums = Pick<SampleSums, 'n' | 'sumC' | 'sumS' | 'certainN' | 'certainC' | 'certainS'>

export function todaySetting(g: LevelGroup): SettingSpec | null {
  if (g.optionsSetting) return g.optionsSetting
  const counts = new Map<string, { s: SettingSpec; n: number }>()
  for (const f of g.files)
    if (f.propertiesSetting) counts.set(f.propertiesSetting.label, { s: f.propertiesSetting, n: (counts.get(f.propertiesSetting.label)?.n ?? 0) + f.dataBytes })
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.s ?? null
}

export function initState(group: LevelGroup, settings: SettingSpec[], opts: Pick<AdviseOptions, 'dict' | 'maxCompressedBytesPerKb'>): GroupState {
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
    dict: all.map(() => ({ files: 0, bytes: 0, ms: 0, referenceMs: 0, dataBytes: 0 })),
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

/** Dictionary bytes of the files read under setting i: those built, and the mean for files whose dictionary is not. */
function dictTotal(st: GroupState, i: number): number {
  const d = st.dict[i]
  if (st.settings[i].dict === 'none' || d.files === 0) return 0
  return d.files >= st.totals.files ? d.bytes : (d.bytes / d.files) * st.totals.files
}

/** Level bytes on disk over those of the files read: 1 unless files were left unread. */
export function scaleOf(st: GroupState): number {
  const unread = st.group.unread.fileBytes
  return unread > 0 && st.totals.fileBytes > 0 ? (st.totals.fileBytes + unread) / st.totals.fileBytes : 1
}

/** Whether the level has the evidence of an estimate: blocks evaluated, and enough of them for an interval. */
export function sampled(st: GroupState): boolean {
  if (st.blocks === 0) return false
  const s = st.sums[0]
  const rest = st.totals.dataBlocks - s.certainN
  return rest <= 0 || st.rate >= 1 || s.n >= MIN_RANDOM_BLOCKS
}

/** The level's bytes today (data and dictionary blocks): exact when every file was read, else with the spread between files. */
export function todayInterval(st: GroupState): Interval {
  const exact = st.totals.dataBytes + st.totals.dictBytes
  if (st.group.unread.files === 0 || st.group.files.length === 0) return { estimate: exact, low: exact, high: exact }
  const ratios = st.group.files.filter((f) => !f.small).map((f) => (f.dataBytes + f.dictBytes) / Math.max(1, f.fileSize))
  // The estimate is the one every report shows for today (the files read's figures scaled by size on disk), the spread
  // between files that of the unread files' part.
  const spread = extrapolate(st, exact, 0, ratios)
  const estimate = exact * scaleOf(st)
  const half = (spread.high - spread.low) / 2
  return { estimate, low: Math.max(exact, estimate - half), high: estimate + half }
}

export function todayOf(st: GroupState): number {
  return todayInterval(st).estimate
}

/**
 * The level's total from the files read (estimate and half-width) and their ratios, with the unread files (estimate.ts);
 * `dicts`: each file read's dictionary block, a fixed part of every file.
 */
function extrapolate(st: GroupState, readEstimate: number, readHalf: number, ratios: number[], dicts: number[] = []): Interval {
  const squares = st.group.pending.reduce((a, f) => a + (f.size ?? 0) ** 2, 0)
  const fixed = { perFile: dicts, unreadFiles: dicts.length > 0 ? st.group.unread.files : 0 }
  return withUnreadFiles({ estimate: readEstimate, half: readHalf }, ratios, st.group.unread.fileBytes, squares, fixed, MIN_SPREAD_FILES)
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
 * Each read file's own estimated data bytes under setting i (its certain blocks, the pooled regression over its
 * other blocks corrected by its own sampled residuals: a generalized regression estimate per file, exact when
 * every block was read) over its size on disk, and its dictionary block apart (a fixed part of every file).
 */
function fileRatios(st: GroupState, i: number, dict: number): { ratios: number[]; dicts: number[] } {
  const { a, b } = fitted(st.sums[i])
  const meanDict = st.dict[i].files > 0 ? st.dict[i].bytes / st.dict[i].files : st.group.files.length > 0 ? dict / st.group.files.length : 0
  const p = Math.max(st.rate, 1e-9)
  const dicts = st.group.files.map((_, fi) => (st.settings[i].dict === 'none' ? 0 : (st.fileDictBytes.get(fi)?.[i] ?? meanDict)))
  const ratios = st.group.files.map((f, fi) => {
    const s = st.fileSums.get(fi)?.[i] ?? { n: 0, sumC: 0, sumS: 0, certainN: 0, certainC: 0, certainS: 0 }
    const restBlocks = Math.max(0, f.dataBlocks - s.certainN)
    const restBytes = Math.max(0, f.dataBytes - s.certainS)
    const residuals = st.rate >= 1 ? s.sumC - a * s.n - b * s.sumS : (s.sumC - a * s.n - b * s.sumS) / p
    const y = s.certainC + a * restBlocks + b * restBytes + residuals
    return y / Math.max(1, f.fileSize)
  })
  // Small files are read whatever their draw: they are their own, not a sample of the unread files.
  const large = st.group.files.flatMap((f, fi) => (f.small ? [] : [fi]))
  return { ratios: large.map((fi) => ratios[fi]), dicts: st.settings[i].dict === 'none' ? [] : large.map((fi) => dicts[fi]) }
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
  const { ratios, dicts } = fileRatios(st, i, dict)
  return extrapolate(st, read.estimate, (read.high - read.low) / 2, ratios, dicts)
}

/**
 * Dictionary building, seconds per GB of the input it is built for: CPU a setting with a
 * dictionary spends once per file. `reference`: on the reference model (decide/nominal.ts),
 * which decisions rank on; else this run's timing.
 */
export function dictSecPerGB(st: GroupState, i: number, reference = false): number {
  const d = st.dict[i]
  const ms = reference ? d.referenceMs : d.ms
  if (st.settings[i].dict === 'none' || d.files === 0 || ms <= 0) return 0
  const s0 = st.sums[0]
  const ratio = s0.sumS + s0.certainS > 0 ? s0.sumU / (s0.sumS + s0.certainS) : 1
  const input = d.dataBytes * ratio
  if (input <= 0) return 0
  // Timed over too little input, the time is a fixed start-up cost, not a rate: not counted. The model has no start-up cost.
  return reference || input >= MIN_DICT_TIMED_INPUT ? ms / 1000 / (input / 1e9) : 0
}

/** A compression timing with the dictionary's CPU per GB added (the interval moves with it). */
export function withDictionary(t: Timing, dictSec: number): Timing {
  if (dictSec <= 0 || t.value === null) return t
  return { ...t, value: t.value + dictSec, low: t.low === null ? null : t.low + dictSec, high: t.high === null ? null : t.high + dictSec }
}

/** Dictionaries built for less input than this (bytes, uncompressed) give no dictionary CPU rate. */
const MIN_DICT_TIMED_INPUT = 512 << 10

/** Below this many bytes of distinct input, a level's timings are not rates worth showing (a few blocks, cached). */
export const MIN_TIMED_INPUT = 64 << 10

export function estimateOf(st: GroupState, i: number, todayBytes: number, withinOnly = false): SettingEstimate {
  const sums = st.sums[i]
  const bytes = levelBytes(st, i, withinOnly)
  // The unread files' dictionaries at the mean of those built (a dictionary's size does not scale with its file's).
  const built = st.dict[i]
  const dict = dictTotal(st, i) + (dictTotal(st, i) > 0 && built.files > 0 ? (st.group.unread.files * built.bytes) / built.files : 0)
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
    dictReferenceMsPerFile: st.dict[i].referenceMs / files,
    pareto: false,
    sums,
  }
}

/** The widest interval of the level's settings in bytes (half-width): a level not yet sampled counts as its size. */
export function widestBytes(st: GroupState): number {
  let w = 0
  for (let i = 0; i < st.settings.length; i++) {
    const b = levelBytes(st, i, false)
    const half = (b.high - b.low) / 2
    w = Math.max(w, Number.isFinite(half) ? half : levelDiskBytes(st))
  }
  return w
}

/** The widest relative interval of the level's settings (`withinOnly`: the part more blocks narrow). */
export function widest(st: GroupState, withinOnly = false): number {
  let w = 0
  for (let i = 0; i < st.settings.length; i++) w = Math.max(w, relativeHalfWidth(levelBytes(st, i, withinOnly)))
  return w
}

/** Bytes on disk of the level's live files, read or not. */
export function levelDiskBytes(st: GroupState): number {
  return st.totals.fileBytes + st.group.unread.fileBytes
}

export function label(g: LevelGroup): string {
  return g.level === null ? g.columnFamily : `${g.columnFamily} L${g.level}`
}

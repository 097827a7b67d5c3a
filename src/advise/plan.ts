/**
 * Planning within the time budget: what a round of sampling will cost, from
 * what the run measured of its own costs so far, or, before anything was
 * measured, from priors (reference speeds of the settings, slowed by a
 * margin), so that even the run's first round fits the time it is given.
 * Pure: the engine (advise.ts) feeds it its measurements and the time left.
 */
import type { SettingSpec } from '../types/advice.js'
import { nominalTimings } from '../decide/nominal.js'

/** What the run measured of its own costs so far (ms): every round counted, the first included. */
export interface MeasuredCosts {
  /** Blocks evaluated under every setting of the run, and what they cost. */
  blocks: number
  blockMs: number
  /** Files taken into a sample (their dictionaries built), and what they cost. */
  files: number
  fileMs: number
}

/** What one more block and one more file are expected to cost (ms). */
export interface UnitCosts {
  blockMs: number
  fileMs: number
}

/**
 * Reference speeds are for 16 KiB blocks on an idle core: a block's evaluation
 * here also reads, checksums and decompresses it, and the machine may be
 * shared. Priors are this many times the reference (measured: 3.5-7x on a
 * loaded 2-core machine, ~2x on a quiet one); the first measured round replaces them.
 */
const PRIOR_SLOWDOWN = 4
/** Per block and setting, whatever its size: a call into the codec, the sums (ms). */
const PRIOR_CALL_MS = 0.03
/** A file's dictionaries: reading and decompressing the blocks RocksDB buffers (ms per MB on disk)… */
const PRIOR_DICT_READ_MS_PER_MB = 25
/** …training the samples once (ms)… */
const PRIOR_DICT_TRAIN_MS = 250
/** …and each dictionary made from them (finalize per level, raw, train; ms). */
const PRIOR_DICT_EACH_MS = 60
/** Without dictionaries a file costs its opening only (its index was read by the first pass). */
const PRIOR_FILE_MS = 5

/** Expected cost of one block (ms) evaluated under `settings`, spread over `lanes` threads. */
export function priorBlockMs(settings: SettingSpec[], uncompressedBytesPerBlock: number, lanes: number): number {
  let msPerMB = 0
  for (const s of settings) {
    // The codec's work only: sstkit does not buffer and replay blocks as RocksDB's builder does for a dictionary.
    const t = nominalTimings({ ...s, dict: 'none' })
    msPerMB += (t.compress.value ?? 0) + (t.decompress.value ? 1000 / t.decompress.value : 0)
  }
  const mb = uncompressedBytesPerBlock / 1e6
  return ((msPerMB * mb + PRIOR_CALL_MS * settings.length) * PRIOR_SLOWDOWN) / Math.max(1, lanes)
}

/** Expected cost of taking one file into a sample (ms): its dictionaries when the settings have any. */
export function priorFileMs(settings: SettingSpec[], bufferedBytes: number): number {
  const dicts = settings.filter((s) => s.dict !== 'none').length
  if (dicts === 0) return PRIOR_FILE_MS
  return PRIOR_FILE_MS + PRIOR_DICT_TRAIN_MS + PRIOR_DICT_READ_MS_PER_MB * (bufferedBytes / 1e6) + PRIOR_DICT_EACH_MS * dicts
}

/** The costs to plan on: measured ones once there are any, else the priors. */
export function unitCosts(measured: MeasuredCosts, prior: UnitCosts): UnitCosts {
  return {
    blockMs: measured.blocks > 0 ? measured.blockMs / measured.blocks : prior.blockMs,
    fileMs: measured.files > 0 ? measured.fileMs / measured.files : prior.fileMs,
  }
}

export interface FirstRoundAsk {
  /** Files read so far for the level (its first pass). */
  filesRead: number
  /** The fewest files an interval needs (fewer when the level has fewer). */
  minFiles: number
  /** Data blocks of the files read. */
  dataBlocks: number
  /** Blocks the round would like (the level's first round rate), and the fewest an estimate rests on. */
  wantBlocks: number
  minBlocks: number
  /** The level's share of the sampling time left, and all the time left for it (ms). */
  shareMs: number
  leftMs: number
  costs: UnitCosts
}

export interface FirstRoundPlan {
  files: number
  blocks: number
  /** What the plan is expected to cost (ms). */
  ms: number
}

/**
 * A level's first round: as many files and blocks as its share of the time
 * affords (half of the share for the files' dictionaries at most), never fewer
 * than the least an interval needs; null when even that does not fit in the
 * time left: the level is then not sampled rather than the budget broken.
 */
export function planFirstRound(a: FirstRoundAsk): FirstRoundPlan | null {
  const { fileMs, blockMs } = a.costs
  const least = Math.min(a.minFiles, a.filesRead)
  let files = a.filesRead
  if (Number.isFinite(a.shareMs) && fileMs > 0) files = Math.min(files, Math.max(least, Math.floor((a.shareMs * 0.5) / fileMs)))
  const available = a.filesRead > 0 ? Math.round((a.dataBlocks * files) / a.filesRead) : 0
  const want = Math.min(available, a.wantBlocks)
  const fewest = Math.min(available, a.minBlocks)
  let blocks = want
  if (Number.isFinite(a.shareMs) && blockMs > 0) blocks = Math.max(fewest, Math.min(want, Math.floor((a.shareMs - files * fileMs) / blockMs)))
  const ms = files * fileMs + blocks * blockMs
  if (Number.isFinite(a.leftMs) && ms > a.leftMs) return null
  return { files, blocks, ms }
}

/** What a level's first round costs at the least (ms): the fewest files an interval needs and the fewest blocks. */
export function leastFirstRoundMs(a: {
  filesRead: number
  filesPending: number
  dataBlocks: number
  minFiles: number
  minBlocks: number
  costs: UnitCosts
}): number {
  const files = Math.min(a.minFiles, a.filesRead > 0 ? a.filesRead : a.filesPending)
  // Before a level's files are read, their blocks are unknown: the fewest an estimate rests on.
  const blocks = a.dataBlocks > 0 ? Math.min(a.minBlocks, a.dataBlocks) : a.minBlocks
  return files * a.costs.fileMs + blocks * a.costs.blockMs
}

/**
 * A level's share of the sampling time left (ms) when `leastMs` lists the least first round of every
 * level still without one, this level's first: the others' least is held back for them, and what
 * remains beyond every level's least is shared evenly. A level's least never starves the levels
 * after it of theirs while the time covers them all.
 */
export function firstRoundShare(leftMs: number, leastMs: readonly number[]): number {
  const reserved = leastMs.reduce((a, b) => a + b, 0)
  return leastMs[0] + Math.max(0, leftMs - reserved) / leastMs.length
}

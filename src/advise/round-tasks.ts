/**
 * The work a sampling round hands to the worker lanes (pool.ts): each setting dealt to a lane, the
 * files' dictionaries built, their blocks evaluated, noisy settings timed again; what it costs is
 * recorded for planning the next rounds (plan.ts).
 */
import { availableParallelism } from 'node:os'
import { zstdLevel } from '../codec/setting.js'
import { addTimings, mergeSums } from '../decide/estimate.js'
import { nominalDictionaryMs } from '../decide/nominal.js'
import { dictKey, type FileTask, type FileTaskResult, keepDictionaries } from './evaluate.js'
import type { Advice, SettingSpec } from '../types/advice.js'
import type { AdvisePool } from './pool.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import type { MeasuredCosts } from './plan.js'
import type { AdviseOptions } from './engine-options.js'
import { estimateOf, type GroupState, MIN_TIMED_INPUT, todayOf } from './level-estimate.js'

/**
 * Dictionaries kept between the rounds of a run, at most (bytes as built); beyond, a file's are built
 * again when its blocks are. Kept shared (keepDictionaries), they take about a third of it.
 */
const RETAINED_DICT_BYTES = 24 << 20

/** Relative cost of a setting, for dealing settings to lanes of similar work. */
export function cost(s: SettingSpec): number {
  if (s.type !== 'zstd') return s.type === 'lz4hc' ? 4 : s.type === 'zlib' ? 3 : s.type === 'bzip2' ? 8 : 1
  const l = zstdLevel(s.level)
  const base = l <= 3 ? 1 : l <= 9 ? 1 + (l - 3) : l <= 15 ? 8 + (l - 9) * 2 : 20 + (l - 15) * 15
  return base * (s.dict === 'train' ? 1.3 : 1)
}

/** The jobs a run uses (--jobs, else every core) and the threads its settings are spread over. */
export function threadsFor(settings: SettingSpec[], jobs: number | undefined): { jobs: number; lanes: number } {
  const n = Math.max(1, jobs ?? availableParallelism())
  return { jobs: n, lanes: Math.min(n, lanesOf(settings, n).length) }
}

export function lanesOf(settings: SettingSpec[], n: number): number[][] {
  const lanes = Array.from({ length: n }, () => ({ cost: 0, items: [] as number[] }))
  const order = settings.map((_, i) => i).sort((a, b) => cost(settings[b]) - cost(settings[a]) || a - b)
  for (const i of order) {
    const lane = lanes.reduce((best, x) => (x.cost < best.cost ? x : best))
    lane.cost += cost(settings[i])
    lane.items.push(i)
  }
  return lanes.filter((l) => l.items.length).map((l) => l.items.sort((a, b) => a - b))
}

/** What the engine has measured of its own costs (plan.ts), and the dictionary bytes it keeps between rounds. */
interface Costs extends MeasuredCosts {
  retainedDictBytes: number
}

export interface Run {
  opts: AdviseOptions
  pool: AdvisePool
  jobs: number
  /** Threads the settings are spread over. */
  lanes: number
  problems: Advice['problems']
  clock: () => number
  costs: Costs
}

/** Timing passes at most, and the work one timing measurement aims at. */
export const TIMING_PASSES = 3

export const TIMING_MEASUREMENT_MS = 25

/** Measurements per noisy setting and timing pass. */
export const TIMING_RATES = 3

/** Timing passes read at most this many files of a level. */
const RETIME_FILES = 8

export function noisyCount(st: GroupState): number {
  const today = todayOf(st)
  return st.settings.filter((s, i) => s.type !== 'none' && (estimateOf(st, i, today).compressSecPerGB.noisy || estimateOf(st, i, today).decompressMBps.noisy))
    .length
}

/** Time the noisy settings of a level again; false when none is noisy. */
export async function retime(st: GroupState, run: Run): Promise<boolean> {
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
        targetFileSize: st.group.targetFileSize,
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

/**
 * Build the dictionaries of files `indices` once, in parallel across files,
 * before their blocks are sampled: every setting with a dictionary compresses
 * a file's blocks with the one RocksDB would have built for it, and the
 * level's dictionary bytes are exact for the files read. They are kept for
 * the later rounds up to RETAINED_DICT_BYTES; beyond, a round builds them again.
 */
export async function buildDictionaries(st: GroupState, run: Run, indices: number[]): Promise<void> {
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
        targetFileSize: st.group.targetFileSize,
        maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb,
        dictionariesOnly: true,
      } satisfies FileTask,
    })),
  )
  results.forEach((r, k) => {
    const dicts = r.dictionaries ?? {}
    const size = Object.values(dicts).reduce((a, d) => a + d.bytes.length, 0)
    if (run.costs.retainedDictBytes + size <= RETAINED_DICT_BYTES) {
      st.fileDicts.set(files[k].fi, keepDictionaries(dicts))
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
      acc.referenceMs += nominalDictionaryMs(spec, d.sampleBytes)
      acc.dataBytes += files[k].f.dataBytes
    }
    st.fileDictBytes.set(files[k].fi, own)
  })
}

/** Evaluate the blocks of files `indices` whose draw lies in [rateLow, rateHigh); the level's rate becomes rateHigh. */
export async function runRound(st: GroupState, rateLow: number, rateHigh: number, run: Run, indices: number[]): Promise<void> {
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
          targetFileSize: st.group.targetFileSize,
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

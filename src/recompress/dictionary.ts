/**
 * Compression dictionaries exactly as RocksDB's table builder makes them
 * (`BlockBasedTableBuilder::EnterUnbuffered`, `util/compression.h`):
 *
 * - Data blocks are buffered until their total exceeds the buffer limit
 *   (`max_dict_buffer_bytes`; 0 = the whole file).
 * - Samples: with N buffered blocks, start at block N/2 and step by
 *   545055921143 mod N (a prime, so the walk visits every block), appending
 *   whole blocks until the sample budget is reached (the last one truncated).
 *   Budget: `zstd_max_train_bytes` when training/finalizing, else `max_dict_bytes`.
 * - raw: the samples themselves; train: ZDICT_trainFromBuffer(capacity =
 *   max_dict_bytes); finalize: ZDICT_finalizeDictionary over the first
 *   min(total, max_dict_bytes) sample bytes at the configured level.
 *
 * Only the sampled bytes are held: a first pass counts the buffered blocks, a
 * second collects the chosen ones, so memory is bounded by the sample budget.
 */
import { dictionaryFromSamples, planSamples } from '../table/compression-dict.js'
import type { Table } from '../table/reader.js'
import { type EntryPosition, recutAt, recutRecording, recutsAsStored, type SkippedBlock, type SourceOptions, sourceBlocks } from './source.js'
import { type CompressionSetting, effectiveLevel } from '../codec/setting.js'
import { threadCpuMs } from '../codec/kernel.js'
import type { RecompressConfig } from './config.js'

/** max_dict_bytes, zstd_max_train_bytes (sample budget for train/finalize), max_dict_buffer_bytes (0 = unlimited). */
export type DictionaryOptions = Pick<CompressionSetting, 'maxDictBytes' | 'trainBytes' | 'maxDictBufferBytes'>

export interface Samples {
  /** Concatenated sample bytes. */
  readonly bytes: Uint8Array
  readonly lengths: number[]
  /** Blocks buffered before the dictionary was built. */
  readonly bufferedBlocks: number
}

/** Sizes of the blocks RocksDB buffers before building the dictionary (and, re-cut, where each starts: see recutAt). */
function bufferedSizes(table: Table, source: SourceOptions, limit: number, starts?: EntryPosition[]): number[] {
  const sizes: number[] = []
  let total = 0
  const skipped: SkippedBlock[] = []
  for (const b of starts ? recutRecording(table, source, skipped, starts) : sourceBlocks(table, source, skipped)) {
    sizes.push(b.data.length)
    total += b.data.length
    // RocksDB checks after adding each finished block.
    if (limit !== 0 && total > limit) break
  }
  return sizes
}

/** Choose samples with RocksDB's walk over the buffered blocks, under `budget` bytes. */
export function collectSamples(table: Table, source: SourceOptions, opts: DictionaryOptions, budget: number): Samples {
  return collectSampleSets(table, source, opts, [budget])[0]
}

/**
 * Samples for several budgets (e.g. max_dict_bytes for raw, zstd_max_train_bytes
 * for train/finalize) in two passes over the data: one to size the buffered
 * blocks, one to copy the chosen bytes.
 */
export function collectSampleSets(table: Table, source: SourceOptions, opts: DictionaryOptions, budgets: number[]): Samples[] {
  // Re-cut, the first pass records where each block starts, so the second cuts only the chosen ones.
  const starts: EntryPosition[] | undefined = recutsAsStored(table, source) ? [] : undefined
  const sizes = bufferedSizes(table, source, opts.maxDictBufferBytes, starts)
  const n = sizes.length
  const plans = budgets.map((b) => planSamples(sizes, b))
  const outs = plans.map((plan) => new Uint8Array(plan.reduce((a, p) => a + p.take, 0)))
  const wanted = new Map<number, { set: number; take: number; at: number }[]>()
  plans.forEach((plan, set) => {
    for (const p of plan) {
      const list = wanted.get(p.block) ?? []
      list.push({ set, take: p.take, at: p.at })
      wanted.set(p.block, list)
    }
  })
  const skipped: SkippedBlock[] = []
  if (starts) {
    const chosen = [...wanted.keys()].sort((a, b) => a - b)
    let j = 0
    for (const data of recutAt(
      table,
      source.blockSize!,
      chosen.map((b) => starts[b]),
      skipped,
      source.restartInterval,
      source.separateKeyValue,
    )) {
      for (const w of wanted.get(chosen[j++])!) outs[w.set].set(data.subarray(0, w.take), w.at)
    }
  } else {
    let i = 0
    for (const b of sourceBlocks(table, source, skipped)) {
      if (i >= n) break
      for (const w of wanted.get(i++) ?? []) outs[w.set].set(b.data.subarray(0, w.take), w.at)
    }
  }
  return plans.map((plan, set) => ({ bytes: outs[set], lengths: plan.map((p) => p.take), bufferedBlocks: n }))
}

export function rawDictionary(samples: Samples): Uint8Array {
  return samples.bytes
}

export function trainedDictionary(samples: Samples, maxDictBytes: number): Uint8Array {
  return dictionaryFromSamples('train', 7, samples.bytes, samples.lengths, maxDictBytes, 3)
}

export function finalizedDictionary(samples: Samples, maxDictBytes: number, level: number): Uint8Array {
  return dictionaryFromSamples('finalize', 7, samples.bytes, samples.lengths, maxDictBytes, level)
}

/**
 * A dictionary built for a configuration, and the CPU its building took (ZDICT's training or
 * finalizing; a raw dictionary's, the copy of its samples, is nothing to speak of): what
 * RocksDB's builder spends on it. Reading the file again to sample it is not charged: RocksDB
 * holds the blocks it buffers (docs/cpu.md).
 */
export interface BuiltDictionary {
  bytes: Uint8Array
  ms: number
  /** The sample bytes it was built from (what the reference model of its building is priced on, decide/nominal.ts). */
  sampleBytes: number
}

/** Whether a configuration's dictionary is built from the file's own data (its samples). */
export function buildsFromSamples(c: RecompressConfig): boolean {
  return c.dict === 'raw' || c.dict === 'train' || c.dict === 'finalize'
}

function timed<T>(f: () => T): { v: T; ms: number } {
  const t0 = threadCpuMs()
  const v = f()
  return { v, ms: threadCpuMs() - t0 }
}

/**
 * The dictionaries of the configurations that build theirs from the file
 * (raw, train, finalize; not `file`), as RocksDB's builder would. One pair of
 * passes over the data serves every sample budget they need; a trained or
 * finalized dictionary is built once and shared by the configurations that
 * would build the same one.
 */
export function buildDictionaries(
  table: Table,
  configs: readonly RecompressConfig[],
  source: SourceOptions,
  opts: DictionaryOptions,
): Map<number, BuiltDictionary> {
  const out = new Map<number, BuiltDictionary>()
  // Dictionaries come from the whole data stream, as RocksDB's builder sees it, even when sampling.
  const whole: SourceOptions = { ...source, samplePercent: 100 }
  const needRaw = configs.some((c) => c.dict === 'raw')
  const needTrain = configs.some((c) => c.dict === 'train' || c.dict === 'finalize')
  if (!needRaw && !needTrain) return out
  const budgets = [...(needRaw ? [opts.maxDictBytes] : []), ...(needTrain ? [opts.trainBytes] : [])]
  const sets = collectSampleSets(table, whole, opts, budgets)
  const raw = needRaw ? sets[0] : undefined
  const train = needTrain ? sets[needRaw ? 1 : 0] : undefined
  let trained: BuiltDictionary | undefined
  const finalized = new Map<number, BuiltDictionary>()
  for (const c of configs) {
    if (c.dict === 'raw') out.set(c.id, { bytes: rawDictionary(raw!), ms: 0, sampleBytes: raw!.bytes.length })
    else if (c.dict === 'train') {
      if (!trained) {
        const r = timed(() => trainedDictionary(train!, opts.maxDictBytes))
        trained = { bytes: r.v, ms: r.ms, sampleBytes: train!.bytes.length }
      }
      out.set(c.id, trained)
    } else if (c.dict === 'finalize') {
      const level = effectiveLevel(c.type, c.level)!
      let f = finalized.get(level)
      if (!f) {
        const r = timed(() => finalizedDictionary(train!, opts.maxDictBytes, level))
        f = { bytes: r.v, ms: r.ms, sampleBytes: train!.bytes.length }
        finalized.set(level, f)
      }
      out.set(c.id, f)
    }
  }
  return out
}

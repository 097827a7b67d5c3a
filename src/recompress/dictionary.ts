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
import { SkippedBlock, SourceOptions, sourceBlocks } from './source.js'


export interface DictionaryOptions {
  maxDictBytes: number
  /** zstd_max_train_bytes: sample budget for train/finalize. */
  trainBytes: number
  /** max_dict_buffer_bytes: 0 = unlimited. */
  maxDictBufferBytes: number
}

export interface Samples {
  /** Concatenated sample bytes. */
  readonly bytes: Uint8Array
  readonly lengths: number[]
  /** Blocks buffered before the dictionary was built. */
  readonly bufferedBlocks: number
}

/** Sizes of the blocks RocksDB buffers before building the dictionary. */
function bufferedSizes(table: Table, source: SourceOptions, limit: number): number[] {
  const sizes: number[] = []
  let total = 0
  const skipped: SkippedBlock[] = []
  for (const b of sourceBlocks(table, source, skipped)) {
    sizes.push(b.data.length)
    total += b.data.length
    // RocksDB checks after adding each finished block.
    if (limit !== 0 && total > limit) break
  }
  return sizes
}

/** Choose samples with RocksDB's walk over the buffered blocks, under `budget` bytes. */
export function collectSamples(table: Table, source: SourceOptions, opts: DictionaryOptions, budget: number): Samples {
  const sizes = bufferedSizes(table, source, opts.maxDictBufferBytes)
  const n = sizes.length
  const plan = planSamples(sizes, budget)
  const total = plan.reduce((a, p) => a + p.take, 0)
  // Second pass: copy just the planned bytes into place.
  const bytes = new Uint8Array(total)
  const byBlock = new Map(plan.map((p) => [p.block, p]))
  const skipped: SkippedBlock[] = []
  let i = 0
  for (const b of sourceBlocks(table, source, skipped)) {
    if (i >= n) break
    const p = byBlock.get(i++)
    if (p) bytes.set(b.data.subarray(0, p.take), p.at)
  }
  return { bytes, lengths: plan.map((p) => p.take), bufferedBlocks: n }
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

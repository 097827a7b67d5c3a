/**
 * How RocksDB's table builder turns buffered data blocks into a compression
 * dictionary (`BlockBasedTableBuilder::EnterUnbuffered`, `util/compression.h`),
 * shared by the writer and the recompression engine:
 *
 * - Samples: with N buffered blocks, start at block N/2 and step by
 *   545055921143 mod N (a prime, so the walk reaches every block), taking
 *   whole blocks until the budget is met (the last one truncated). Budget:
 *   `zstd_max_train_bytes` when training or finalizing zstd, else `max_dict_bytes`.
 * - raw: the samples themselves; train: ZDICT_trainFromBuffer(capacity =
 *   max_dict_bytes); finalize: ZDICT_finalizeDictionary over the first
 *   min(total, max_dict_bytes) sample bytes at the configured level. A ZDICT
 *   failure means no dictionary, as in RocksDB.
 */
import { readFileSync, statSync } from 'node:fs'
import { CompressionType } from '../codec/compression.js'
import type { DictMode } from '../codec/setting.js'
import { DictionaryBuildError, finalizeDictionary, trainDictionary } from '../codec/zdict.js'

const PRIME_GENERATOR = 545055921143n

/** The modes RocksDB builds a dictionary by (an external file is given as bytes instead). */
export type DictionaryMode = Exclude<DictMode, 'file'>

export interface SamplePlan {
  /** Buffered block index, in visit order. */
  readonly block: number
  /** Bytes taken from the start of that block. */
  readonly take: number
  /** Where they go in the concatenated samples. */
  readonly at: number
}

/** RocksDB's walk over `sizes.length` buffered blocks, up to `budget` bytes. */
export function planSamples(sizes: readonly number[], budget: number): SamplePlan[] {
  const n = sizes.length
  const plan: SamplePlan[] = []
  if (n === 0 || budget <= 0) return plan
  const step = Number(PRIME_GENERATOR % BigInt(n))
  let total = 0
  let idx = Math.floor(n / 2)
  for (let i = 0; i < n && total < budget; i++) {
    const take = Math.min(budget - total, sizes[idx])
    plan.push({ block: idx, take, at: total })
    total += take
    idx += step
    if (idx >= n) idx -= n
  }
  return plan
}

/** The sample budget RocksDB uses for this mode and type. */
export function sampleBudget(mode: DictionaryMode, type: number, maxDictBytes: number, trainBytes: number): number {
  return (mode === 'train' || mode === 'finalize') && type === CompressionType.ZSTD ? trainBytes : maxDictBytes
}

/** Build the dictionary for `mode` from concatenated samples. */
export function dictionaryFromSamples(
  mode: DictionaryMode,
  type: number,
  samples: Uint8Array,
  lengths: readonly number[],
  maxDictBytes: number,
  level: number,
): Uint8Array {
  if (mode === 'none') return new Uint8Array(0)
  // Other codecs (and zstd in raw mode) use the raw samples.
  if (type !== CompressionType.ZSTD || mode === 'raw') return samples
  try {
    if (mode === 'train') return trainDictionary(samples, lengths, maxDictBytes)
    return finalizeDictionary(samples.subarray(0, Math.min(samples.length, maxDictBytes)), samples, lengths, maxDictBytes, level)
  } catch (e) {
    if (e instanceof DictionaryBuildError) return new Uint8Array(0)
    throw e
  }
}

/** External dictionaries are used whole by zstd; refuse anything absurd rather than allocate it. */
export const MAX_DICT_FILE_BYTES = 64 * 1024 * 1024

/** An external dictionary file's bytes, or why it cannot be used (one line naming the file). */
export function loadDictionaryFile(path: string): { ok: true; bytes: Uint8Array } | { ok: false; problem: string } {
  let size: number
  try {
    size = statSync(path).size
  } catch {
    return { ok: false, problem: `dictionary file ${path}: no such file` }
  }
  if (size > MAX_DICT_FILE_BYTES) return { ok: false, problem: `dictionary file ${path} is ${size} bytes, over the ${MAX_DICT_FILE_BYTES}-byte limit` }
  if (size === 0) return { ok: false, problem: `dictionary file ${path} is empty` }
  return { ok: true, bytes: new Uint8Array(readFileSync(path)) }
}

/** The dictionary ID a zstd dictionary carries in its header (0: a raw dictionary, which has none). */
export function zstdDictionaryId(d: Uint8Array): number {
  if (d.length < 8 || d[0] !== 0x37 || d[1] !== 0xa4 || d[2] !== 0x30 || d[3] !== 0xec) return 0
  return new DataView(d.buffer, d.byteOffset).getUint32(4, true)
}

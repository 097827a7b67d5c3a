/**
 * The round trip of `recompress`: which compressed blocks are decompressed and
 * compared with their original, and the decompression time estimated from them.
 *
 * RocksDB verifies compression only when asked (BlockBasedTableOptions::
 * verify_compression, default false) and sst_dump 7.8.3's recompress never
 * decompresses. By default sstkit round-trips a deterministic, evenly spread
 * 1 in k of the data blocks of each setting: blocks i with i mod k = k/2 (the
 * same positions for every setting, so settings are compared on the same data),
 * k the largest stride up to MAX_STRIDE that still leaves SAMPLE_BYTES of data
 * in the sample; a file under twice SAMPLE_BYTES is round-tripped whole.
 * 'every' (--verify-compression) decompresses every compressed block: exact,
 * as before; 'none' (the drop-in's 7.8.3 recompress) none.
 *
 * Estimate: the decompression time of all N compressed blocks (U raw bytes) is
 * the ratio estimate T = U · Σt / Σu over the n timed ones, its 95% interval
 * T ± t(n−1) · U · √((1 − n/N) / (n ū²) · Σ(t − R u)² / (n − 1)), R = Σt / Σu,
 * the variance of a simple random sample without replacement (systematic
 * sampling of blocks in file order has no period to beat it). Exact (zero
 * width) when every compressed block was timed.
 */
import { t95 } from '../util/quantiles.js'
import { addPair, emptyPairSums, type PairSums } from '../util/regression.js'

export type RoundTripMode = 'sample' | 'every' | 'none'

/**
 * Data a sampled round trip keeps at least (uncompressed bytes). Decompression through
 * zstd-napi runs at 575-670 MB/s on 16 KiB blocks here (224 MB bench file, zstd 1-3): 32 MiB
 * is ~55 ms, above the 50 ms under which a timing is noise (engine.ts MIN_TIMED_MS).
 */
export const SAMPLE_BYTES = 32 << 20

/**
 * The sparsest sample: 1 in 8 blocks. The full round trip was 18.5-20.1% of recompress's
 * per-setting work on the bench file; 1 in 8 leaves 2.3-2.5%, and the 95% interval of the
 * decompression speed ~±1% there (2,662 of 21,292 blocks), well inside the ±5% at which the
 * engine calls a timing noise.
 */
export const MAX_STRIDE = 8

/** 0: no round trip; 1: every block; k: blocks i with i mod k = k/2, for a source of about `rawBytes` uncompressed bytes. */
export function roundTripStride(mode: RoundTripMode, rawBytes: number): number {
  if (mode === 'none') return 0
  if (mode === 'every') return 1
  return Math.max(1, Math.min(MAX_STRIDE, Math.floor(rawBytes / SAMPLE_BYTES)))
}

/** Whether data block `index` (0-based, in file order) is round-tripped under `stride`. */
export function inRoundTrip(index: number, stride: number): boolean {
  return stride > 0 && index % stride === stride >> 1
}

/**
 * Sums over one setting's compressed blocks (all of them: the population) and, as the pair sums of
 * a ratio estimator, its round-tripped ones: c = a block's mean decompression ms over repeats,
 * s = its uncompressed bytes.
 */
export interface RoundTripSums extends PairSums {
  /** Compressed blocks and their uncompressed bytes: the population. */
  blocks: number
  bytes: number
  /** The blocks the timed units (pairs) hold: a batch decompressed in one timed call is one unit. */
  timedBlocks: number
}

export function emptyRoundTrip(): RoundTripSums {
  return { blocks: 0, bytes: 0, timedBlocks: 0, ...emptyPairSums() }
}

/** A compressed block of the population (timed or not). */
export function addCompressed(s: RoundTripSums, u: number): void {
  s.blocks++
  s.bytes += u
}

/** A round-tripped unit of `blocks` blocks (one, or a batch timed as one): `u` uncompressed bytes decompressed in `t` ms. */
export function addTimed(s: RoundTripSums, u: number, t: number, blocks = 1): void {
  addPair(s, t, u)
  s.timedBlocks += blocks
}

/**
 * What turns the timed blocks' total into the estimate for every compressed block:
 * `scale` = U / Σu (1 when all were timed) and `relHalf`, the 95% interval's half-width
 * relative to the estimate (0: exact). Null when no block was timed.
 */
export function decompressEstimate(s: RoundTripSums): { scale: number; relHalf: number } | null {
  // Σt is sumC, Σu sumS (see RoundTripSums).
  if (s.n === 0 || s.sumS <= 0) return null
  if (s.timedBlocks >= s.blocks) return { scale: 1, relHalf: 0 }
  const scale = s.bytes / s.sumS
  if (s.n < 2 || !(s.sumC > 0)) return { scale, relHalf: Number.POSITIVE_INFINITY }
  const r = s.sumC / s.sumS
  const squares = Math.max(0, s.sumCC - 2 * r * s.sumCS + r * r * s.sumSS)
  const uMean = s.sumS / s.n
  // Units are batches of blocks: the sampled fraction is that of the blocks.
  const variance = ((1 - s.timedBlocks / s.blocks) / (s.n * uMean * uMean)) * (squares / (s.n - 1))
  return { scale, relHalf: (t95(s.n - 1) * Math.sqrt(variance)) / r }
}

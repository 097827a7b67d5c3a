/**
 * Auto-skip: deciding per data block whether to attempt compression at all,
 * to save CPU on data that does not compress.
 *
 * rate  — RocksDB's AutoSkipCompressorWrapper (10.5+, `util/auto_tune_compressor.cc`):
 *         a tumbling window of 10 attempts gives the predicted rejection percentage p
 *         (starting at 0, so the first 10 blocks are attempted); each block is attempted
 *         when a 10% exploration draw says so, or when p <= 50; otherwise skipped.
 * ratio — decides from how *much* blocks compress. q_hat estimates the aggregate
 *         stored/uncompressed ratio attempting would achieve (an attempted block counts
 *         at its achieved ratio, or 1.0 when stored raw). Attempt while q_hat <= bar,
 *         bar = max_compressed_bytes_per_kb / 1024, the same bar a single block must pass.
 *         The first block of each file is attempted; while skipping, one block is
 *         sampled after a random gap of at most min_sample_every blocks (short at
 *         first, doubling while skipping lasts), so a return to compressible data is seen.
 *
 * Why these weights: q_hat is an exponentially weighted average that moves by
 * ALPHA_BETTER (0.06) toward a better (lower) ratio and ALPHA_WORSE (0.05) toward a
 * worse one; its first observations are plainly averaged (weight 1/n while that is
 * larger), so one unlucky first block does not decide a file.
 * - Faster toward better: with a mix of compressible and incompressible blocks the
 *   average settles below the plain mean, at (0.06·r + 0.05·1) / 0.11. A high-payoff
 *   mix (compressible half at r ≈ 0.3) settles near 0.62, and it takes a run of about
 *   22 incompressible blocks in a row to lift it over the 0.875 bar — in a 50/50 mix
 *   that is a one-in-four-million event per block — so it is attempted and keeps the
 *   baseline's storage (regime 4). Weights several times larger (say 0.2/0.15) flip on
 *   runs of 8 and gave up 13% of storage on such a mix in our runs.
 * - Gentle on the fast side: a marginal mix (compressible half at ≈ 0.86) settles near
 *   0.92, above the bar, and is skipped; one marginal sample moves it by only
 *   0.06 × 0.06 ≈ 0.004, so it does not flip back to attempting (regime 3).
 * - An incompressible stream drives q_hat to 1.0 at once (regime 1); a compressible
 *   stream keeps it near its ratio and is always attempted (regime 2).
 *
 * The storage given up is bounded: ratio skips only while the estimated aggregate
 * ratio of the skipped data is above the bar, so attempting it would save less than
 * (1024 − max_compressed_bytes_per_kb) / 1024 of its bytes (12.5% at the default 896).
 */

/** Exploration share and cut-off of RocksDB's rate predictor. */
export const RATE_WINDOW = 10
export const RATE_EXPLORATION_PERCENT = 10
export const RATE_CUTOFF_PERCENT = 50

export const ALPHA_BETTER = 0.06
export const ALPHA_WORSE = 0.05
export const DEFAULT_MIN_SAMPLE_EVERY = 64

export type AutoSkipStrategy = 'rate' | 'ratio'

/** A per-file block decision policy. */
export interface SkipDecider {
  /** Should the next data block be compressed? */
  attempt(): boolean
  /** Outcome of an attempted block: stored bytes (payload) and whether it was stored raw. */
  record(rejected: boolean, storedBytes: number, rawBytes: number): void
}

export class RateDecider implements SkipDecider {
  private predicted = 0
  private rejected = 0
  private compressed = 0
  constructor(private readonly random: () => number) {}

  attempt(): boolean {
    if (this.random() * 100 < RATE_EXPLORATION_PERCENT) return true
    return this.predicted <= RATE_CUTOFF_PERCENT
  }

  record(rejected: boolean): void {
    if (rejected) this.rejected++
    else this.compressed++
    const attempted = this.rejected + this.compressed
    if (attempted >= RATE_WINDOW) {
      this.predicted = Math.floor((this.rejected * 100) / attempted)
      this.rejected = 0
      this.compressed = 0
    }
  }
}

export class RatioDecider implements SkipDecider {
  readonly bar: number
  private firstInFile = true
  private skipped = 0
  private gap: number
  /** Observations so far (this run), for the plain-average warm-up. */
  private observations = 0

  constructor(
    private readonly random: () => number,
    maxCompressedBytesPerKb: number,
    readonly minSampleEvery = DEFAULT_MIN_SAMPLE_EVERY,
    /** Estimate carried over from the previous file of the run, if any. */
    public qHat: number | null = null,
  ) {
    this.bar = Math.min(1023, maxCompressedBytesPerKb) / 1024
    this.gap = this.nextGap()
    // A carried estimate is already warmed up: keep its weights, do not restart the plain average.
    if (qHat !== null) this.observations = Math.ceil(1 / Math.min(ALPHA_BETTER, ALPHA_WORSE))
  }

  /**
   * Sampling gaps start short and double up to min_sample_every while skipping
   * goes on: little evidence (a file's first blocks, a change of data) is
   * checked again soon; a long, consistent stretch is sampled rarely.
   */
  private backoff = 1

  private nextGap(): number {
    return 1 + Math.floor(this.random() * Math.min(this.minSampleEvery, 2 ** this.backoff))
  }

  attempt(): boolean {
    if (this.firstInFile) {
      this.firstInFile = false
      return true
    }
    if (this.qHat === null || this.qHat <= this.bar) {
      this.backoff = 1
      return true
    }
    if (++this.skipped >= this.gap) {
      this.skipped = 0
      this.backoff++
      this.gap = this.nextGap()
      return true
    }
    return false
  }

  record(rejected: boolean, storedBytes: number, rawBytes: number): void {
    const x = rejected || rawBytes === 0 ? 1 : storedBytes / rawBytes
    this.observations++
    if (this.qHat === null) this.qHat = x
    else {
      const alpha = Math.max(x < this.qHat ? ALPHA_BETTER : ALPHA_WORSE, 1 / this.observations)
      this.qHat += alpha * (x - this.qHat)
    }
  }
}

/** A stable seed per (run seed, configuration, file), independent of scheduling. */
export function deciderSeed(seed: number, configId: number, fileIndex: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0
  for (const v of [configId, fileIndex]) {
    h = Math.imul(h ^ v, 0x85ebca6b) >>> 0
    h ^= h >>> 13
  }
  return h >>> 0
}

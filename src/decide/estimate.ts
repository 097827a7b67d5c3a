/**
 * Estimates with their error, from sums that merge exactly.
 *
 * Size: a regression estimator under Poisson sampling. For every data block i
 * of a level we know s_i, its size on disk today (from the index), and the
 * number of blocks N; for the sampled blocks (inclusion rate p) we measure c_i,
 * its size under a setting. With sample means c̄, s̄, the slope
 * b = Σ(c−c̄)(s−s̄) / Σ(s−s̄)² and the level's mean size S/N,
 *   T = N · (c̄ + b (S/N − s̄))
 *   Var(T) ≈ N² (1 − p) / n · Σ e_i² / (n − 2),   e_i = (c_i − c̄) − b (s_i − s̄)
 * and the 95% interval is T ± t √Var (Student's t, n − 2 degrees of freedom). Unlike a pure ratio estimator it has
 * no bias when c and s differ by a constant (a trailer, a frame checksum), and
 * because c and s are strongly correlated the interval is far narrower than one
 * from c alone; with p = 1 it is exact. Blocks whose bytes went into their
 * file's dictionary, and each file's last data block (cut short at the file's
 * end, a point of high leverage for the slope), form a certainty stratum,
 * counted exactly and added to T (N and S then cover the other blocks). Everything comes from integer sums of
 * c, s, c², cs, s², which a shard reports and shards add up exactly.
 *
 * Speed: rates measured per batch of blocks; the value is total work / total
 * time and the interval a t-interval over batch rates.
 */
import { t95, Z95 } from '../util/quantiles.js'
import { addPair, mergePairs, regressionTotal } from '../util/regression.js'
import type { Interval, SampleSums, Timing } from '../types/advice.js'

export { t95, Z95 }

/** A timing whose 95% interval is wider than ±this share of its value is noisy: shown as such, never ranked on. */
export const NOISY_SPREAD = 0.1

export function emptySums(): SampleSums {
  return {
    certainN: 0,
    certainC: 0,
    certainS: 0,
    n: 0,
    sumC: 0,
    sumS: 0,
    sumCC: 0,
    sumCS: 0,
    sumSS: 0,
    sumU: 0,
    rejected: 0,
    compressMs: 0,
    decompressMs: 0,
    timedBytes: 0,
    decompressedBytes: 0,
    compressRates: [],
    decompressRates: [],
    rejectedMs: 0,
  }
}

/** A block of the certainty stratum: counted exactly (its uncompressed bytes still count in sumU). */
export function addCertainBlock(sums: SampleSums, c: number, s: number, u: number, rejected: boolean): void {
  sums.certainN++
  sums.certainC += c
  sums.certainS += s
  sums.sumU += u
  if (rejected) sums.rejected++
}

export function addBlock(sums: SampleSums, c: number, s: number, u: number, rejected: boolean): void {
  addPair(sums, c, s)
  sums.sumU += u
  if (rejected) sums.rejected++
}

/** Add a timing pass's measurements (no blocks: the sizes were counted when the blocks were sampled). */
export function addTimings(sums: SampleSums, t: SampleSums): SampleSums {
  return {
    ...sums,
    compressMs: sums.compressMs + t.compressMs,
    decompressMs: sums.decompressMs + t.decompressMs,
    timedBytes: sums.timedBytes + t.timedBytes,
    decompressedBytes: sums.decompressedBytes + t.decompressedBytes,
    compressRates: [...sums.compressRates, ...t.compressRates],
    decompressRates: [...sums.decompressRates, ...t.decompressRates],
  }
}

/** Combine shard sums (order-independent for the integer sums; rates are concatenated in shard order). */
export function mergeSums(a: SampleSums, b: SampleSums): SampleSums {
  return {
    certainN: a.certainN + b.certainN,
    certainC: a.certainC + b.certainC,
    certainS: a.certainS + b.certainS,
    ...mergePairs(a, b),
    sumU: a.sumU + b.sumU,
    rejected: a.rejected + b.rejected,
    compressMs: a.compressMs + b.compressMs,
    decompressMs: a.decompressMs + b.decompressMs,
    timedBytes: a.timedBytes + b.timedBytes,
    decompressedBytes: a.decompressedBytes + b.decompressedBytes,
    compressRates: [...a.compressRates, ...b.compressRates],
    decompressRates: [...a.decompressRates, ...b.decompressRates],
    rejectedMs: a.rejectedMs + b.rejectedMs,
  }
}

/**
 * The level's total of c (data bytes under the setting) with its 95% interval.
 * `total` is S, the level's stored data bytes; `rate` the inclusion rate p.
 */
export function regressionEstimate(sums: SampleSums, total: number, blocks: number, rate: number): Interval {
  const rest = total - sums.certainS
  const restBlocks = blocks - sums.certainN
  const exact = (v: number): Interval => ({ estimate: v, low: v, high: v })
  if (rest <= 0 || restBlocks <= 0) return exact(sums.certainC)
  const fit = sums.sumS === 0 ? null : regressionTotal(sums, restBlocks, rest, rate)
  if (fit === null) return { estimate: Number.NaN, low: Number.NaN, high: Number.NaN }
  const estimate = sums.certainC + fit.estimate
  return { estimate, low: estimate - fit.half, high: estimate + fit.half }
}

/** Half-width of an interval relative to its estimate. */
export function relativeHalfWidth(i: Interval): number {
  if (!(i.estimate > 0)) return Number.POSITIVE_INFINITY
  return (i.high - i.low) / 2 / i.estimate
}

/**
 * The inclusion rate that should bring a relative half-width `now` (measured at
 * rate `p`) down to `target`: the variance scales as (1 − p) / p for a fixed level.
 */
export function rateFor(now: number, p: number, target: number): number {
  if (!(now > target)) return p
  if (p >= 1) return 1
  const k = (now * now * p) / (1 - p) // relative variance × p / (1 − p)
  const t2 = target * target
  return Math.min(1, k / (t2 + k))
}

/** Fewest measurements that give a 95% interval for their median. */
export const MIN_RATES = 6

/**
 * A speed from repeated measurements: the median of the per-batch rates (robust
 * to the spikes a shared machine adds), with the distribution-free 95% interval
 * of a median (order statistics j and k-j+1, j from the binomial(k, 1/2)
 * normal approximation). Fewer than MIN_RATES measurements, or an interval wider
 * than ±NOISY_SPREAD, is noisy. `fallback` is the figure used when there are
 * no per-batch rates at all (total work / total time).
 */
export function timing(fallback: number | null, rates: readonly number[]): Timing {
  const k = rates.length
  if (k === 0)
    return fallback === null || !Number.isFinite(fallback)
      ? { value: null, low: null, high: null, noisy: true }
      : { value: fallback, low: null, high: null, noisy: true }
  const sorted = [...rates].sort((a, b) => a - b)
  const mid = k >> 1
  const value = k % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  if (k < MIN_RATES) return { value, low: null, high: null, noisy: true }
  const j = Math.max(1, Math.floor((k - Z95 * Math.sqrt(k)) / 2))
  const low = sorted[j - 1]
  const high = sorted[k - j]
  return { value, low, high, noisy: high - value > NOISY_SPREAD * value || value - low > NOISY_SPREAD * value }
}

/** True when `a` is cheaper than `b` beyond noise: neither is noisy and their intervals do not overlap. */
export function clearlyBelow(a: Timing, b: Timing): boolean {
  if (a.noisy || b.noisy || a.value === null || b.value === null || a.high === null || b.low === null) return false
  return a.high < b.low
}

/**
 * Two-stage sampling's first stage: a level whose files were not all read.
 * The m files read were drawn in proportion to their size on disk x
 * (population.ts), so the mean of their ratios r = y / x (y: a file's own
 * estimated bytes under a setting, less its fixed part) estimates the level's
 * bytes per byte on disk without bias; the unread files, of U bytes on disk in
 * all, are estimated at that ratio. The variance of their part is the spread of
 * the ratios between files, s², for the mean (U² s² / m) and for the unread
 * files' own deviations from it (Σ x² s² over the unread files, `unreadSquares`); the
 * files read add `readHalf`, the half-width of their own estimate (block
 * sampling within them). The spread takes Student's t for m − 1 degrees of
 * freedom. `fixed`: a part every file has whatever its size (its dictionary
 * block), per file read, and how many files are unread: each unread file gets
 * their mean, with their spread. Left in the ratio, a small file's dictionary
 * (16 KiB of a 60 KiB tail file) would be priced at a large file's share of its
 * size. With one file read the spread is unknown: the unread part is taken
 * as uncertain as itself. The low end is never below the files read (the
 * unread files hold no fewer than no bytes).
 */
export function withUnreadFiles(
  read: { estimate: number; half: number },
  ratios: readonly number[],
  unreadBytes: number,
  unreadSquares: number,
  fixed: { perFile: readonly number[]; unreadFiles: number } = { perFile: [], unreadFiles: 0 },
): Interval {
  const m = ratios.length
  const mean = m > 0 ? ratios.reduce((a, b) => a + b, 0) / m : 0
  const k = fixed.perFile.length
  const fixedMean = k > 0 ? fixed.perFile.reduce((a, b) => a + b, 0) / k : 0
  const u = fixed.unreadFiles
  const estimate = read.estimate + unreadBytes * mean + u * fixedMean
  if (m < 2) {
    const half = read.half + unreadBytes * mean + u * fixedMean
    return { estimate, low: read.estimate - read.half, high: estimate + half }
  }
  const s2 = ratios.reduce((a, r) => a + (r - mean) ** 2, 0) / (m - 1)
  const f2 = k > 1 ? fixed.perFile.reduce((a, d) => a + (d - fixedMean) ** 2, 0) / (k - 1) : 0
  const between = s2 * ((unreadBytes * unreadBytes) / m + unreadSquares) + f2 * ((u * u) / Math.max(1, k) + u)
  const half = Math.sqrt(read.half ** 2 + t95(m - 1) ** 2 * between)
  // The unread files hold no fewer than no bytes: the files read are a floor.
  return { estimate, low: Math.max(read.estimate - read.half, estimate - half), high: estimate + half }
}

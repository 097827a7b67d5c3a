/**
 * The regression estimator of a total under Poisson sampling, from sums that
 * merge exactly: for every unit i of a population of N units we know s_i (its
 * stored size) and their total S; for the sampled units (inclusion rate p) we
 * measure c_i. With sample means c̄, s̄ and the slope b = Σ(c−c̄)(s−s̄) / Σ(s−s̄)²,
 *   T = N · (c̄ + b (S/N − s̄)),   Var(T) ≈ N² (1 − p) / n · Σ e_i² / (n − 2),
 * e_i = (c_i − c̄) − b (s_i − s̄), and the 95% half-width is t(n − 2) √Var.
 * Advise's blocks (decide/estimate.ts) and blob records (recompress/blob-matrix.ts)
 * are both estimated with it.
 */
import { t95 } from './quantiles.js'

/** Σ over the sampled units of 1, c, s, c², cs, s². */
export interface PairSums {
  n: number
  sumC: number
  sumS: number
  sumCC: number
  sumCS: number
  sumSS: number
}

export function emptyPairSums(): PairSums {
  return { n: 0, sumC: 0, sumS: 0, sumCC: 0, sumCS: 0, sumSS: 0 }
}

export function addPair(sums: PairSums, c: number, s: number): void {
  sums.n++
  sums.sumC += c
  sums.sumS += s
  sums.sumCC += c * c
  sums.sumCS += c * s
  sums.sumSS += s * s
}

export function mergePairs(a: PairSums, b: PairSums): PairSums {
  return { n: a.n + b.n, sumC: a.sumC + b.sumC, sumS: a.sumS + b.sumS, sumCC: a.sumCC + b.sumCC, sumCS: a.sumCS + b.sumCS, sumSS: a.sumSS + b.sumSS }
}

/**
 * T for `units` units holding `stored` bytes, sampled at `rate`, and its 95% half-width: 0 when
 * every unit was measured (rate 1), infinite with two units or fewer; null when nothing was sampled.
 */
export function regressionTotal(sums: PairSums, units: number, stored: number, rate: number): { estimate: number; half: number } | null {
  const n = sums.n
  if (n === 0) return null
  const cMean = sums.sumC / n
  const sMean = sums.sumS / n
  const sxx = sums.sumSS - n * sMean * sMean
  const sxy = sums.sumCS - n * cMean * sMean
  const syy = sums.sumCC - n * cMean * cMean
  // Equal stored sizes (or a single unit): no slope to fit, the mean alone.
  const b = sxx > 1e-9 * sums.sumSS ? sxy / sxx : 0
  const estimate = units * (cMean + b * (stored / units - sMean))
  if (rate >= 1) return { estimate, half: 0 }
  if (n <= 2) return { estimate, half: Number.POSITIVE_INFINITY }
  const residual = Math.max(0, syy - b * sxy)
  // Student's t for the n − 2 degrees of freedom of the residual variance (1.96 from about 30 units on).
  return { estimate, half: t95(n - 2) * Math.sqrt(((units * units * (1 - rate)) / n) * (residual / (n - 2))) }
}

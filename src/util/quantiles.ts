/** Quantiles for 95% intervals, shared by every estimate that states one (advise's, recompress's sampled round trip). */

/** Two-sided 95% normal quantile. */
export const Z95 = 1.959964

/** Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom (beyond, the normal's). */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069,
  2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
]

/** The 95% quantile for a variance estimated with `df` degrees of freedom (few measurements: far wider than 1.96). */
export function t95(df: number): number {
  return df >= 1 && df <= T95.length ? T95[Math.floor(df) - 1] : Z95
}

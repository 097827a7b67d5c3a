/**
 * Sizes and percentages as CI users write them (`10MB`, `512KiB`, `1.5%`),
 * parsed exactly: a threshold at its edge passes and one byte past it fails,
 * without floating-point rounding in between.
 */
import { Flags } from '@oclif/core'
import type { OptionFlag } from '@oclif/core/interfaces'
import { transferable, UsageError } from '../errors.js'

export class ThresholdError extends UsageError {
  override name = 'ThresholdError'
}
transferable(ThresholdError)

/** Decimal units are powers of 1000 (kB, MB, GB), binary ones powers of 1024 (KiB, MiB, GiB). */
const UNITS: Record<string, bigint> = { '': 1n, b: 1n }
for (const [i, p] of ['k', 'm', 'g', 't'].entries()) {
  UNITS[p] = UNITS[`${p}b`] = 1000n ** BigInt(i + 1)
  UNITS[`${p}i`] = UNITS[`${p}ib`] = 1024n ** BigInt(i + 1)
}

/** A non-negative decimal as numerator / 10^scale. */
interface Decimal {
  num: bigint
  scale: number
}

function parseDecimal(s: string): Decimal | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s)
  if (!m) return null
  const frac = m[2] ?? ''
  return { num: BigInt(m[1] + frac), scale: frac.length }
}

/**
 * `4096`, `4096B`, `10MB`, `10 kB`, `512KiB`, `1.5MiB` → bytes (units are
 * case-insensitive; a fractional result is rounded down). Numbers pass through.
 */
export function parseSize(input: string | number, what = 'size'): number {
  if (typeof input === 'number') {
    if (!Number.isSafeInteger(input) || input < 0) throw new ThresholdError(`${what}: ${input} is not a whole number of bytes`)
    return input
  }
  const m = /^\s*([0-9.]+)\s*([a-zA-Z]*)\s*$/.exec(input)
  const d = m ? parseDecimal(m[1]) : null
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined
  if (!m || !d || unit === undefined) {
    throw new ThresholdError(`${what}: "${input}" is not a size (use bytes, or a number with B, kB, MB, GB, KiB, MiB or GiB, e.g. 10MB or 512KiB)`)
  }
  const bytes = (d.num * unit) / 10n ** BigInt(d.scale)
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) throw new ThresholdError(`${what}: "${input}" is too large`)
  return Number(bytes)
}

/** A relative limit: `1%`, `0.5%`, `12.25%`. */
export interface Percent {
  /** As written, e.g. "1.5%". */
  text: string
  num: bigint
  scale: number
}

export function parsePercent(input: string | number, what = 'percentage'): Percent {
  const s = typeof input === 'number' ? `${input}%` : input.trim()
  const m = /^([0-9.]+)\s*%$/.exec(s)
  const d = m ? parseDecimal(m[1]) : null
  if (!d) throw new ThresholdError(`${what}: "${input}" is not a percentage (write it with a % sign, e.g. 1% or 0.5%)`)
  return { text: `${m![1]}%`, ...d }
}

/** Whether growing from `before` by `change` bytes exceeds `limit` percent of `before` (exactly at the limit does not). */
export function exceedsPercent(change: number, before: number, limit: Percent): boolean {
  if (change <= 0) return false
  // change / before > num / (100 · 10^scale)  ⇔  change · 100 · 10^scale > num · before
  return BigInt(change) * 100n * 10n ** BigInt(limit.scale) > limit.num * BigInt(before)
}

interface SizeFlagOptions {
  description: string
  min?: number
  max?: number
  exclusive?: string[]
  hidden?: boolean
}

/** A flag of bytes that takes units as well (`8KiB`, `16384`, `1MB`), checked against its bounds in one usage line. */
export function sizeFlag(opts: SizeFlagOptions & { default: number }): OptionFlag<number>
export function sizeFlag(opts: SizeFlagOptions): OptionFlag<number | undefined>
export function sizeFlag(opts: SizeFlagOptions & { default?: number }): OptionFlag<number | undefined> {
  const { min = 0, max = Number.MAX_SAFE_INTEGER, ...rest } = opts
  const bounds = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`
  return Flags.custom<number>({
    ...rest,
    parse: async (input) => {
      let bytes: number
      try {
        bytes = parseSize(input)
      } catch {
        throw new Error(`expected a size in bytes ${bounds}, such as 8KiB or 8192 (got "${input}")`)
      }
      if (bytes < min || bytes > max) throw new Error(`expected a size in bytes ${bounds}, such as 8KiB or 8192 (got "${input}", ${bytes} bytes)`)
      return bytes
    },
  })() as OptionFlag<number | undefined>
}

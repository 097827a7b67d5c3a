/** Sizes, percentages and budgets as written in flags and config files. */
import { describe, expect, it } from 'vitest'
import { parseBudget } from '../../src/ci/compare.js'
import { exceedsPercent, parsePercent, parseSize } from '../../src/cli/units.js'

describe('units', () => {
  it('sizes: decimal and binary units, case-insensitive, spaces allowed', () => {
    expect(parseSize('4096')).toBe(4096)
    expect(parseSize('4096B')).toBe(4096)
    expect(parseSize('10MB')).toBe(10_000_000)
    expect(parseSize('10 kB')).toBe(10_000)
    expect(parseSize('512KiB')).toBe(524_288)
    expect(parseSize('1.5MiB')).toBe(1_572_864)
    expect(parseSize('2gib')).toBe(2 * 1024 ** 3)
    expect(parseSize(77)).toBe(77)
    for (const bad of ['', '-1', '1.2.3', '10 parsecs', 'MB', '1e3']) expect(() => parseSize(bad), bad).toThrow(/is not a size/)
  })

  it('percentages need a % sign and compare exactly', () => {
    expect(parsePercent('1%')).toMatchObject({ num: 1n, scale: 0, text: '1%' })
    expect(parsePercent(' 0.25 %')).toMatchObject({ num: 25n, scale: 2, text: '0.25%' })
    expect(() => parsePercent('1')).toThrow(/% sign/)
    // 1% of 1000 is 10: 10 passes, 11 fails.
    expect(exceedsPercent(10, 1000, parsePercent('1%'))).toBe(false)
    expect(exceedsPercent(11, 1000, parsePercent('1%'))).toBe(true)
    // 0.1 + 0.2 style rounding cannot bite: 3 of 1000 is exactly 0.3%.
    expect(exceedsPercent(3, 1000, parsePercent('0.3%'))).toBe(false)
    expect(exceedsPercent(3, 1000, parsePercent('0.29999%'))).toBe(true)
    expect(exceedsPercent(1, 0, parsePercent('1000%'))).toBe(true)
    expect(exceedsPercent(-50, 1000, parsePercent('0%'))).toBe(false)
  })

  it('budgets: CONFIG=SIZE, FILE:CONFIG=SIZE, *', () => {
    expect(parseBudget('zstd-3-none-off=10MB')).toEqual({ file: null, config: 'zstd-3-none-off', bytes: 10_000_000, text: '10MB' })
    expect(parseBudget('db/users.sst:stored=512KiB')).toMatchObject({ file: 'db/users.sst', config: 'stored', bytes: 524_288 })
    expect(parseBudget('zstd--5-none-off=1KB')).toMatchObject({ config: 'zstd--5-none-off', bytes: 1000 })
    expect(parseBudget('*=1GB')).toMatchObject({ config: '*', bytes: 1e9 })
    expect(() => parseBudget('stored')).toThrow(/CONFIG=SIZE/)
  })
})

import { describe, expect, it } from 'vitest'
import { parsePercentShare } from '../../src/cli/advise-flags.js'

describe('parsePercentShare: --sample and --precision are percentages, the % optional (as recompress --sample)', () => {
  it('5 and 5% are the same share', () => {
    expect(parsePercentShare('--sample', '5')).toBe(0.05)
    expect(parsePercentShare('--sample', '5%')).toBe(0.05)
    expect(parsePercentShare('--precision', ' 0.5% ', 0.5)).toBe(0.005)
    expect(parsePercentShare('--precision', '0.5', 0.5)).toBe(0.005)
    expect(parsePercentShare('--sample', '100')).toBe(1)
  })
  it('out of range or not a number: a usage error naming the flag', () => {
    expect(() => parsePercentShare('--sample', '0')).toThrow(/^--sample must be above 0% and at most 100% \(got "0"\)$/)
    expect(() => parsePercentShare('--sample', '150')).toThrow(/^--sample must be above 0% and at most 100%/)
    expect(() => parsePercentShare('--precision', '60%', 0.5)).toThrow(/^--precision must be above 0% and at most 50%/)
    expect(() => parsePercentShare('--sample', 'half')).toThrow(/^--sample takes a percentage such as 0.5% or 0.5 \(got "half"\)$/)
  })
})

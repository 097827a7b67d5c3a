/** The one unit convention of every table: human sizes, exact bytes on request, signed percentages. */
import { describe, expect, it } from 'vitest'
import { formatBytes, formatCount, formatSigned, formatSize, signedPercent, wrapWords } from '../../src/report/text.js'

describe('units for people', () => {
  it('sizes: bytes under 1 KiB, then three significant digits in binary units; exact with --bytes', () => {
    expect(formatBytes(1023)).toBe('1023 B')
    expect(formatBytes(1024)).toBe('1.00 KiB')
    expect(formatBytes(45387)).toBe('44.3 KiB')
    expect(formatBytes(150 * 1024)).toBe('150 KiB')
    expect(formatBytes(64.6 * 1024 * 1024)).toBe('64.6 MiB')
    expect(formatSize(45387)).toBe('44.3 KiB')
    expect(formatSize(45387, true)).toBe('45387')
    expect(formatSize(45386.6, true)).toBe('45387')
  })

  it('changes keep their sign, also when they round to zero; only an exact zero has none', () => {
    expect(signedPercent(0.086)).toBe('+8.6%')
    expect(signedPercent(-0.504)).toBe('-50.4%')
    expect(signedPercent(0.00001)).toBe('+0.0%')
    expect(signedPercent(-0.00001)).toBe('-0.0%')
    expect(signedPercent(0)).toBe('0.0%')
    expect(signedPercent(null)).toBe('')
    expect(signedPercent(0.04123, 2)).toBe('+4.12%')
    expect(signedPercent(-0.005, 2)).toBe('-0.50%')
    expect(signedPercent(0.00001, 2)).toBe('+0.00%')
  })

  it('exact counts with separators', () => {
    expect(formatCount(1234567)).toBe('1,234,567')
    expect(formatSigned(1234)).toBe('+1,234')
    expect(formatSigned(-56)).toBe('-56')
    expect(formatSigned(0)).toBe('0')
  })

  it('wraps words to a width, indenting continuation lines', () => {
    const lines = wrapWords('verdict: zstd 3 dict=finalize — within 0.8% of the smallest at less cost', 30, '  ')
    expect(lines.every((l) => l.length <= 30)).toBe(true)
    expect(lines[0]).toBe('verdict: zstd 3 dict=finalize')
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true)
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe('verdict: zstd 3 dict=finalize — within 0.8% of the smallest at less cost')
    // By default continuation lines keep the first line's indent; a word longer than the room is split.
    expect(wrapWords('  a bb ccc', 6)).toEqual(['  a bb', '  ccc'])
    expect(wrapWords('abcdefghij k', 4)).toEqual(['abcd', 'efgh', 'ij k'])
    expect(wrapWords('', 10)).toEqual([''])
  })
})

import { describe, expect, it } from 'vitest'
import { parseAdviseBlockSizes, parseAdviseFlags, parsePercentShare } from '../../src/cli/advise-flags.js'
import { DEFAULT_BLOCK_SIZES } from '../../src/advise/advise.js'

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

describe('--block-size: the block sizes advised among, or none', () => {
  const base = { objective: 'balanced', precision: '0.5%', seed: 0, 'max-dict-bytes': 16384, 'max-dict-buffer-bytes': 0 }
  it('not given: the library default; a list in any order, with units; none turns it off', () => {
    expect(parseAdviseFlags(base).blockSizes).toBeUndefined()
    expect(parseAdviseFlags({ ...base, 'block-size': '64KiB,4096,16k' }).blockSizes).toEqual([4096, 16384, 65536])
    expect(parseAdviseBlockSizes('none')).toBe(false)
    expect(parseAdviseBlockSizes(' NONE ')).toBe(false)
    expect(DEFAULT_BLOCK_SIZES).toEqual([4096, 8192, 16384, 32768, 65536])
  })
  it('a size that is not one, or too large: a usage error naming the flag', () => {
    expect(() => parseAdviseBlockSizes('4 blocks')).toThrow(/^--block-size: not a block size: "4 blocks" \(use e\.g\. 4096, 4KiB or 1MiB\), or none$/)
    expect(() => parseAdviseBlockSizes('2MiB')).toThrow(/^--block-size: 2097152 is above advise's largest block size, 1024KiB$/)
  })
  it('a list beside --shard or explicit limits would be ignored: a usage error; none is fine', () => {
    expect(() => parseAdviseFlags({ ...base, 'block-size': '16KiB', shard: '0/2', sample: '5%' })).toThrow(
      /^--block-size is advised over the whole database, not a --shard/,
    )
    expect(() => parseAdviseFlags({ ...base, 'block-size': '16KiB', 'max-bytes': '80%' })).toThrow(/^--block-size is advised under an objective/)
    expect(parseAdviseFlags({ ...base, 'block-size': 'none', 'max-bytes': '80%' }).blockSizes).toBe(false)
  })
})

/** The options advise writes for levels that hold no data: no change there without evidence, and no entry that changes nothing. */
import { describe, expect, it } from 'vitest'
import { type OptionsPlan, optionsFor } from '../../src/db/compression-options.js'
import { parseRocksdbVersion } from '../../src/db/option-syntax.js'
import { spec } from '../../src/decide/settings.js'
import { RUN_DICT } from '../advise/options.js'

const v = (s: string) => parseRocksdbVersion(s)!
const LZ4 = spec('lz4', null, 'none', false)
const ZSTD = spec('zstd', 3, 'none', false)
const TODAY_LZ4 = { compression: 'kLZ4Compression', compressionPerLevel: [] }

/** Data on L1 only, the bottommost level, advised zstd 3. */
const onlyL1 = (extra: Partial<OptionsPlan> = {}): OptionsPlan => ({
  columnFamily: 'default',
  levels: [{ level: 1, bottommost: true, setting: ZSTD }],
  single: null,
  dynamicLevels: null,
  ...extra,
})
/** Data on L0 only (never compacted), advised `setting`. */
const onlyL0 = (setting = LZ4, extra: Partial<OptionsPlan> = {}): OptionsPlan => ({
  columnFamily: 'default',
  levels: [{ level: 0, bottommost: false, setting }],
  single: null,
  dynamicLevels: null,
  ...extra,
})

describe('only the bottommost level holds data', () => {
  it('compression, which flushes and the empty levels above use, is not written: bottommost_compression sets the level', () => {
    for (const version of [null, v('7.8.3'), v('5.15')]) {
      const o = optionsFor(onlyL1({ today: TODAY_LZ4 }), RUN_DICT, version)
      expect(Object.keys(o), String(version)).toEqual(['bottommost_compression', 'bottommost_compression_opts'])
      expect(o.bottommost_compression).toBe('kZSTD')
      expect(o.bottommost_compression_opts).toMatch(/level=3;|^-14:3:0:0:0:true$/)
    }
    // Whether today is known or not.
    expect(Object.keys(optionsFor(onlyL1(), RUN_DICT, null))).toEqual(['bottommost_compression', 'bottommost_compression_opts'])
  })

  it('before 5.15 the bottommost level reads the one compression_opts: those are written, compression still not', () => {
    const o = optionsFor(onlyL1({ today: TODAY_LZ4 }), RUN_DICT, v('5.3'))
    expect(o).toEqual({ bottommost_compression: 'kZSTD', compression_opts: '-14:3:0' })
  })

  it("before 4.9 (no bottommost_compression) compression_per_level sets it: today's entries above, the advised one last", () => {
    const levels = [{ level: 3, bottommost: true, setting: ZSTD }]
    const perLevel = { compression: 'kSnappyCompression', compressionPerLevel: ['kNoCompression', 'kLZ4Compression'] }
    expect(optionsFor(onlyL1({ levels, today: perLevel }), RUN_DICT, v('4.8')).compression_per_level).toBe(
      'kNoCompression:kLZ4Compression:kLZ4Compression:kZSTD',
    )
    expect(optionsFor(onlyL1({ levels, today: TODAY_LZ4 }), RUN_DICT, v('4.8')).compression_per_level).toBe(
      'kLZ4Compression:kLZ4Compression:kLZ4Compression:kZSTD',
    )
    // Dynamic levels: the base level is the one that holds the data (entry 1).
    expect(optionsFor(onlyL1({ levels, today: perLevel, dynamicLevels: { baseLevel: 3 } }), RUN_DICT, v('4.8')).compression_per_level).toBe(
      'kNoCompression:kZSTD',
    )
    // Today unknown: the one option that sets it.
    const unknown = optionsFor(onlyL1({ levels }), RUN_DICT, v('4.8'))
    expect(unknown.compression).toBe('kZSTD')
    expect(unknown.compression_per_level).toBeUndefined()
  })
})

describe('a compression_per_level whose every entry is what compression gives', () => {
  it('is left out where today has none', () => {
    const o = optionsFor(onlyL0(LZ4, { today: TODAY_LZ4 }), RUN_DICT, v('7.8.3'))
    expect(o.compression).toBe('kLZ4Compression')
    expect(o.compression_per_level).toBeUndefined()
    const two = optionsFor(
      {
        columnFamily: 'default',
        levels: [
          { level: 0, bottommost: false, setting: ZSTD },
          { level: 2, bottommost: true, setting: ZSTD },
        ],
        single: null,
        dynamicLevels: null,
        today: TODAY_LZ4,
      },
      RUN_DICT,
      v('7.8.3'),
    )
    expect(two.compression).toBe('kZSTD')
    expect(two.compression_per_level).toBeUndefined()
  })

  it("is written where today has one (it replaces today's), where today is unknown, and where an entry differs", () => {
    const today = { compression: 'kLZ4Compression', compressionPerLevel: ['kNoCompression', 'kZSTD'] }
    expect(optionsFor(onlyL0(LZ4, { today }), RUN_DICT, v('7.8.3')).compression_per_level).toBe('kLZ4Compression')
    expect(optionsFor(onlyL0(LZ4), RUN_DICT, v('7.8.3')).compression_per_level).toBe('kLZ4Compression')
    const differs = optionsFor(
      {
        columnFamily: 'default',
        levels: [
          { level: 0, bottommost: false, setting: LZ4 },
          { level: 1, bottommost: true, setting: ZSTD },
        ],
        single: null,
        dynamicLevels: null,
        today: TODAY_LZ4,
      },
      RUN_DICT,
      v('7.8.3'),
    )
    expect(differs.compression_per_level).toBe('kLZ4Compression:kZSTD')
  })
})

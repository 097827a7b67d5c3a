import { describe, expect, it } from 'vitest'
import { BlockCompressor } from '../../src/codec/block-compressor.js'
import { decompressBlock } from '../../src/codec/compression.js'
import { COMPRESSION_DEFAULTS, compressionSetting, effectiveLevel, levelFits, supportedDictModes, validateSetting } from '../../src/codec/setting.js'
import { encodeVarint } from '../../src/format/coding.js'
import {
  CompressionType as C,
  compressionOptionName,
  compressionShortName,
  compressionTypeFromOptionName,
  compressionTypeFromShortName,
} from '../../src/format/compression-type.js'

describe('compression setting', () => {
  it("has RocksDB's defaults, train bytes following max_dict_bytes", () => {
    expect(compressionSetting()).toEqual({
      compressionType: C.ZSTD,
      level: null,
      dict: 'none',
      zstdChecksum: false,
      maxDictBytes: 16384,
      trainBytes: 1638400,
      maxDictBufferBytes: 64 * 1024 * 1024,
      maxCompressedBytesPerKb: 896,
    })
    expect(compressionSetting({ maxDictBytes: 4096 }).trainBytes).toBe(409600)
    expect(COMPRESSION_DEFAULTS.maxCompressedBytesPerKb).toBe(896)
  })

  it('resolves the library default level per codec (null and 32767 alike)', () => {
    expect([C.ZSTD, C.Zlib, C.LZ4, C.LZ4HC, C.Snappy, C.BZip2].map((t) => effectiveLevel(t, null))).toEqual([3, -1, -1, 9, null, null])
    expect(effectiveLevel(C.ZSTD, 32767)).toBe(3)
    expect(effectiveLevel(C.ZSTD, 19)).toBe(19)
    expect(levelFits(C.ZSTD, 32767)).toBe(true)
    expect(levelFits(C.ZSTD, 23)).toBe(false)
    expect(levelFits(C.Snappy, 1)).toBe(false)
  })

  it('knows which dictionary modes each codec supports', () => {
    expect(supportedDictModes(C.ZSTD)).toEqual(['none', 'raw', 'finalize', 'train', 'file'])
    for (const t of [C.Zlib, C.LZ4, C.LZ4HC]) expect(supportedDictModes(t)).toEqual(['none', 'raw', 'file'])
    for (const t of [C.None, C.Snappy, C.BZip2]) expect(supportedDictModes(t)).toEqual(['none'])
  })

  it('validates type, level, dictionary mode and checksum with one message naming the setting', () => {
    const ok = { compressionType: C.ZSTD, level: 19, dict: 'finalize' as const, zstdChecksum: true }
    expect(validateSetting(ok)).toBeNull()
    expect(validateSetting({ ...ok, level: 99 })).toBe('level 99: zstd accepts levels -131072..22 (or the default)')
    expect(validateSetting({ ...ok, compressionType: C.Snappy, level: 3, zstdChecksum: false })).toBe('level 3: snappy has no levels (only the default)')
    expect(validateSetting({ ...ok, compressionType: C.Snappy, level: null, zstdChecksum: false })).toBe('dict finalize: snappy supports dictionary modes none')
    expect(validateSetting({ ...ok, compressionType: C.Zlib, level: null, dict: 'raw' })).toBe("checksum on: the frame checksum is zstd's; zlib has none")
    expect(validateSetting({ ...ok, compressionType: C.Xpress })).toMatch(/^compression Xpress: not a type sstkit writes/)
  })
})

describe('compression names', () => {
  it('maps short names, type bytes and options-file names both ways', () => {
    expect(compressionTypeFromShortName('ZSTD')).toBe(C.ZSTD)
    expect(compressionTypeFromShortName('lz4hc')).toBe(C.LZ4HC)
    expect(compressionTypeFromShortName('xpress')).toBeUndefined()
    expect(compressionShortName(C.Snappy)).toBe('snappy')
    expect(compressionShortName(C.Xpress)).toBe('Xpress')
    for (const t of [0, 1, 2, 3, 4, 5, 6, 7, 0x40, 0xff, 0x9c]) expect(compressionTypeFromOptionName(compressionOptionName(t))).toBe(t)
    expect(compressionTypeFromOptionName('kZSTD')).toBe(7)
    expect(compressionTypeFromOptionName('zstd')).toBeUndefined()
  })
})

describe('BlockCompressor', () => {
  const raw = new TextEncoder().encode('a block of text, a block of text, a block of text, and more text '.repeat(40))

  it('frames each codec as RocksDB does: a varint size prefix the general decoder accepts', () => {
    for (const t of [C.ZSTD, C.Zlib, C.LZ4, C.LZ4HC, C.BZip2]) {
      const c = new BlockCompressor({ compressionType: t, level: null, zstdChecksum: false }, 5)
      const framed = c.compress(raw).slice()
      expect([...framed.subarray(0, 2)], String(t)).toEqual([...encodeVarint(raw.length)])
      expect(Buffer.from(decompressBlock(t, framed, { formatVersion: 5 })).equals(Buffer.from(raw)), String(t)).toBe(true)
      expect(Buffer.from(c.decompress(framed, raw.length)).equals(Buffer.from(raw)), String(t)).toBe(true)
    }
  })

  it('uses the dictionary and the level it was made with', () => {
    const dictionary = raw.subarray(0, 512)
    const withDict = new BlockCompressor({ compressionType: C.ZSTD, level: 19, zstdChecksum: true }, 7, dictionary)
    const plain = new BlockCompressor({ compressionType: C.ZSTD, level: 19, zstdChecksum: true }, 7)
    const a = withDict.compress(raw).slice()
    expect(a.length).toBeLessThan(plain.compress(raw).length)
    expect(Buffer.from(decompressBlock(C.ZSTD, a, { formatVersion: 7, dictionary })).equals(Buffer.from(raw))).toBe(true)
    expect(() => decompressBlock(C.ZSTD, a, { formatVersion: 7 })).toThrow()
  })
})

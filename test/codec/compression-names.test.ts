import { describe, it, expect } from 'vitest'
import { CompressionType, compressFormatVersion, compressionOptionName, compressionTypeName } from '../../src/codec/compression.js'

describe('compression type names', () => {
  it('CompressionTypeToString for built-in types', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(compressionTypeName)).toEqual(['NoCompression', 'Snappy', 'Zlib', 'BZip2', 'LZ4', 'LZ4HC', 'Xpress', 'ZSTD'])
    expect(compressionTypeName(0x40)).toBe('ZSTDNotFinal')
    expect(compressionTypeName(0xff)).toBe('DisableOption')
  })

  it('CustomXX / ReservedXX in upper-case hex', () => {
    expect(compressionTypeName(0x80)).toBe('Custom80')
    expect(compressionTypeName(0xab)).toBe('CustomAB')
    expect(compressionTypeName(0xfe)).toBe('CustomFE')
    expect(compressionTypeName(0x08)).toBe('Reserved08')
    expect(compressionTypeName(0x3f)).toBe('Reserved3F')
    expect(compressionTypeName(0x41)).toBe('Reserved41')
    expect(compressionTypeName(0x7f)).toBe('Reserved7F')
  })

  it('options-map names', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 0x40].map(compressionOptionName)).toEqual([
      'kNoCompression',
      'kSnappyCompression',
      'kZlibCompression',
      'kBZip2Compression',
      'kLZ4Compression',
      'kLZ4HCCompression',
      'kXpressCompression',
      'kZSTD',
      'kZSTDNotFinalCompression',
    ])
    expect(compressionOptionName(0x9c)).toBe('kCustomCompression9C')
    expect(compressionOptionName(0xff)).toBe('kDisableCompressionOption')
  })

  it('enum values are the on-disk bytes', () => {
    expect(CompressionType).toEqual({
      None: 0,
      Snappy: 1,
      Zlib: 2,
      BZip2: 3,
      LZ4: 4,
      LZ4HC: 5,
      Xpress: 6,
      ZSTD: 7,
      ZSTDNotFinal: 0x40,
    })
  })

  it('compress_format_version is 2 from format_version 2 on', () => {
    expect([0, 1, 2, 3, 5, 6, 7].map(compressFormatVersion)).toEqual([1, 1, 2, 2, 2, 2, 2])
  })
})

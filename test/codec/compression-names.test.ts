import { describe, it, expect } from 'vitest'
import { CompressionType, compressFormatVersion, compressionOptionName, compressionTypeName } from '../../src/codec/compression.js'
import { compressionPropertyName, compressionPropertyTypes } from '../../src/format/compression-type.js'
import { compressionProperty } from '../../src/table/writer-output.js'

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

  it('the rocksdb.compression property in both forms: a type name before format_version 7, the BuiltinV2 schema from 7', () => {
    expect(compressionPropertyTypes('LZ4')).toEqual([4])
    expect(compressionPropertyTypes('BuiltinV2;04;')).toEqual([4])
    expect(compressionPropertyTypes('BuiltinV2;0407;')).toEqual([4, 7])
    expect(compressionPropertyTypes(';;')).toEqual([0])
    expect(compressionPropertyTypes('MyManager;x;')).toBeUndefined()
    expect(compressionPropertyName('BuiltinV2;04;')).toBe('LZ4')
    expect(compressionPropertyName('BuiltinV2;0407;')).toBe('LZ4+ZSTD')
    expect(compressionPropertyName(';;')).toBe('NoCompression')
    expect(compressionPropertyName('MyManager;x;')).toBe('MyManager;x;')
    // What sstkit's writer records at format_version 7 reads back as the types it used.
    expect(compressionPropertyTypes(compressionProperty(7, CompressionType.ZSTD, new Set([0, 7])))).toEqual([7])
    expect(compressionPropertyTypes(compressionProperty(7, CompressionType.None, new Set()))).toEqual([0])
  })
})

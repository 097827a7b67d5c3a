import { describe, expect, it } from 'vitest'
import { buildMatrix, MatrixError, matrixNoteText, parseChecksums, parseDicts, parseLevels, parseTypes } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { layoutLabel, layoutMatrix, parseByteSizes, parseCounts, parseOnOff, varyingLayoutFields } from '../../src/recompress/config.js'

describe('parseLevels', () => {
  it('reads ranges, lists, negative levels and default', () => {
    expect(parseLevels('1..4')).toEqual([1, 2, 3, 4])
    expect(parseLevels('1,3,6,9')).toEqual([1, 3, 6, 9])
    expect(parseLevels('-5..-3,1')).toEqual([-5, -4, -3, 1])
    expect(parseLevels('default,3')).toEqual([null, 3])
  })
  it('refuses nonsense with a clear message', () => {
    expect(() => parseLevels('9..1')).toThrow(/runs backwards/)
    expect(() => parseLevels('fast')).toThrow(MatrixError)
    expect(() => parseLevels('')).toThrow(/no levels/)
  })
})

describe('buildMatrix', () => {
  it('defaults to zstd levels 1,3,6,9,12,15,19 × four dictionary modes × checksum off/on', () => {
    const m = buildMatrix({ types: parseTypes('zstd'), checksums: parseChecksums('both') })
    expect(m.configs.length).toBe(7 * 4 * 2)
    expect(new Set(m.configs.map((c) => c.dict))).toEqual(new Set(['none', 'raw', 'finalize', 'train']))
  })
  it('applies levels and dictionaries only where RocksDB has them, and says what it left out', () => {
    const m = buildMatrix({ types: parseTypes('snappy,lz4hc,zstd'), levels: [3, 19], dicts: parseDicts('none,train'), checksums: [false, true] })
    const snappy = m.configs.filter((c) => c.type === CompressionType.Snappy)
    expect(snappy.map((c) => [c.level, c.dict, c.checksum])).toEqual([[null, 'none', false]])
    const lz4hc = m.configs.filter((c) => c.type === CompressionType.LZ4HC)
    expect(lz4hc.map((c) => c.level)).toEqual([3]) // 19 is beyond LZ4HC's 1..12
    expect(m.notes).toEqual([
      { code: 'matrix-dict-mode-not-applicable', type: 'snappy', modes: ['train'] },
      { code: 'matrix-levels-out-of-range', type: 'lz4hc', min: 1, max: 12, leftOut: [19], defaultLevelKept: false },
      { code: 'matrix-dict-mode-not-applicable', type: 'lz4hc', modes: ['train'] },
    ])
    expect(m.notes.map(matrixNoteText)).toEqual([
      'dictionary mode train does not apply to snappy',
      'lz4hc accepts levels 1..12: left out 19',
      'dictionary mode train does not apply to lz4hc',
    ])
    expect(m.configs.filter((c) => c.type === CompressionType.ZSTD).length).toBe(2 * 2 * 2)
  })
  it('a type none of whose listed levels it accepts keeps its default level beside the others (lz4 with --levels 1,3)', () => {
    const m = buildMatrix({ types: parseTypes('lz4,zstd'), levels: [1, 3], dicts: ['none'], checksums: [false] })
    expect(m.configs.map((c) => [c.type, c.level])).toEqual([
      [CompressionType.LZ4, null],
      [CompressionType.ZSTD, 1],
      [CompressionType.ZSTD, 3],
    ])
    expect(m.notes.map(matrixNoteText)).toEqual(['lz4 accepts levels -65537..-1: left out 1, 3; its default level evaluated'])
    // alone, it is still nothing to evaluate at the levels asked for
    expect(() => buildMatrix({ types: parseTypes('lz4'), levels: [1, 3], checksums: [false] })).toThrow(/nothing to evaluate/)
  })
  it('is a usage error when nothing is left', () => {
    expect(() => buildMatrix({ types: parseTypes('snappy'), dicts: parseDicts('train'), checksums: [false] })).toThrow(/nothing to evaluate/)
    expect(() => parseTypes('xpress')).toThrow(/unknown compression type "xpress"/)
    expect(() => parseChecksums('maybe')).toThrow(MatrixError)
  })
})

describe('table layouts (--block-size, --restart-interval, --index-compression, --format-version)', () => {
  it('reads byte sizes with KiB/MiB suffixes, and counts as lists and ranges', () => {
    expect(parseByteSizes('4KiB,16k,65536,1MiB', 'block size', 64)).toEqual([4096, 16384, 65536, 1 << 20])
    expect(() => parseByteSizes('4 GB', 'block size', 64)).toThrow(MatrixError)
    expect(() => parseByteSizes('32', 'block size', 64)).toThrow(/out of range/)
    expect(parseCounts('1,4..6', 'restart interval', 1, 100)).toEqual([1, 4, 5, 6])
    expect(() => parseCounts('8', 'format_version', 2, 7)).toThrow(/out of range \(2\.\.7\)/)
    expect(parseOnOff('both', '--index-compression')).toEqual([true, false])
  })

  it("every combination a layout, block size outermost; the file's own blocks when no size is given", () => {
    expect(layoutMatrix({})).toEqual([{ blockSize: null, restartInterval: null, separateKeyValue: null, indexCompression: true, formatVersion: null }])
    const l = layoutMatrix({ blockSizes: [4096, 16384], restartIntervals: [4, 16], formatVersions: [5, 7] })
    expect(l).toHaveLength(8)
    expect(l[0]).toEqual({ blockSize: 4096, restartInterval: 4, separateKeyValue: false, indexCompression: true, formatVersion: 5 })
    expect(l[7]).toEqual({ blockSize: 16384, restartInterval: 16, separateKeyValue: false, indexCompression: true, formatVersion: 7 })
    expect(() => layoutMatrix({ restartIntervals: [4] })).toThrow(/give --block-size/)
    const kv = layoutMatrix({ blockSizes: [4096], separateKeyValue: [true, false] })
    expect(kv.map((x) => x.separateKeyValue)).toEqual([true, false])
    expect(() => layoutMatrix({ separateKeyValue: [true] })).toThrow(/--separate-key-value re-encodes the data blocks: give --block-size/)
  })

  it('labels name what differs from the default layout, or the fields asked for', () => {
    const l = { blockSize: 16384, restartInterval: 16, separateKeyValue: false, indexCompression: false, formatVersion: null }
    expect(layoutLabel(l)).toBe('16KiB index=raw')
    expect(layoutLabel({ ...l, separateKeyValue: true })).toBe('16KiB kv=separated index=raw')
    expect(layoutLabel(l, new Set(['separateKeyValue'] as const))).toBe('kv=inline')
    expect(layoutLabel({ ...l, blockSize: 5000, restartInterval: 4, formatVersion: 7 }, new Set(['restartInterval', 'formatVersion'] as const))).toBe(
      'restart=4 fv7',
    )
    expect(varyingLayoutFields([l, { ...l, blockSize: 4096 }])).toEqual(new Set(['blockSize']))
  })
})

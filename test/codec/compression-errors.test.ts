import { readFileSync } from 'node:fs'
import { describe, it, expect } from 'vitest'
import zstd from 'zstd-napi/binding.js'
import { openTable } from '../../src/table/reader.js'
import { fixturePath } from '../helpers.js'
import { Cursor, encodeVarint } from '../../src/format/coding.js'
import { CompressionType, DEFAULT_MAX_OUTPUT_BYTES, compressBlock, compressionTypeName, decompressBlock } from '../../src/codec/compression.js'
import { CorruptionError, NotSupportedError } from '../../src/format/errors.js'
import { concat, kvText, randomBytes, thrown } from './helpers.js'

const T = CompressionType
const PREFIXED = [T.Zlib, T.BZip2, T.LZ4, T.LZ4HC, T.ZSTD, T.ZSTDNotFinal]
const OFFSET = 123_456
const raw = kvText(10_000)

function body(payload: Uint8Array): Uint8Array {
  const c = new Cursor(payload)
  c.varint32()
  return payload.subarray(c.pos)
}

/** Replace the size prefix of a v2 payload. */
function reprefix(payload: Uint8Array, size: number): Uint8Array {
  return concat(encodeVarint(size), body(payload))
}

function corruption(fn: () => unknown): CorruptionError {
  const err = thrown(fn)
  expect(err).toBeInstanceOf(CorruptionError)
  return err as CorruptionError
}

describe('declared size vs actual output', () => {
  for (const type of PREFIXED) {
    const name = compressionTypeName(type)
    it(`${name}: declared larger than the output`, () => {
      const p = reprefix(compressBlock(type, raw, { formatVersion: 2 }), raw.length + 5)
      const err = corruption(() => decompressBlock(type, p, { formatVersion: 2, offset: OFFSET }))
      expect(err.offset).toBe(OFFSET)
      // every codec decodes fully into the larger buffer; the size check catches it
      expect(err.message).toBe(`${name} block: decompressed size ${raw.length} != declared ${raw.length + 5} (at offset ${OFFSET})`)
    })

    it(`${name}: declared smaller than the output`, () => {
      const p = reprefix(compressBlock(type, raw, { formatVersion: 2 }), raw.length - 1)
      const err = corruption(() => decompressBlock(type, p, { formatVersion: 2, offset: OFFSET }))
      expect(err.offset).toBe(OFFSET)
      if (type === T.LZ4 || type === T.LZ4HC) {
        // LZ4 cannot tell "does not fit" from malformed input
        expect(err.message).toMatch(new RegExp(`^${name} decompression failed: .*larger than ${raw.length - 1} bytes`))
      } else {
        expect(err.message).toBe(`${name} block: decompressed size exceeds declared ${raw.length - 1} (at offset ${OFFSET})`)
      }
    })
  }
})

describe('corrupted streams', () => {
  for (const type of [T.Snappy, ...PREFIXED]) {
    const name = compressionTypeName(type)
    it(`${name}: truncated stream`, () => {
      const p = compressBlock(type, raw, { formatVersion: 2 })
      const cut = p.subarray(0, Math.floor(p.length / 2))
      const err = corruption(() => decompressBlock(type, cut, { formatVersion: 2, offset: OFFSET }))
      expect(err.message).toMatch(new RegExp(`^${name} decompression failed: .+ \\(at offset ${OFFSET}\\)$`))
      expect(err.offset).toBe(OFFSET)
    })

    it(`${name}: garbage body`, () => {
      const garbage = randomBytes(500, 1234)
      garbage[0] = 0xff // not a zstd magic, not "BZh"
      // size prefix (or, for Snappy, a valid preamble) followed by noise
      const p = concat(encodeVarint(raw.length), garbage)
      const err = corruption(() => decompressBlock(type, p, { formatVersion: 2, offset: OFFSET }))
      expect(err.offset).toBe(OFFSET)
      expect(err.message).toMatch(new RegExp(`^${name} (decompression failed: |block: decompressed size)`))
    })
  }

  it('ZSTD: flipped byte inside a checksummed frame', () => {
    const p = compressBlock(T.ZSTD, raw, { formatVersion: 6, zstdChecksum: true })
    const bad = p.slice()
    bad[Math.floor(bad.length / 2)] ^= 0x55
    expect(() => decompressBlock(T.ZSTD, bad, { formatVersion: 6 })).toThrow(CorruptionError)
  })

  it('v1 Zlib/BZip2 output beyond the cap', () => {
    for (const type of [T.Zlib, T.BZip2]) {
      const v1 = body(compressBlock(type, raw, { formatVersion: 2 }))
      const err = corruption(() => decompressBlock(type, v1, { formatVersion: 1, offset: 9, maxOutputBytes: 1000 }))
      expect(err.message).toBe(`${compressionTypeName(type)} block: decompressed size exceeds the limit of 1000 bytes (at offset 9)`)
      // exactly at the cap is fine
      expect(decompressBlock(type, v1, { formatVersion: 1, maxOutputBytes: raw.length }).length).toBe(raw.length)
    }
  })
})

describe('declared sizes above the limit are refused before decoding', () => {
  const FOUR_GIB = 2 ** 32

  function refuse(type: number, payload: Uint8Array, fv: number, declared: number, max = DEFAULT_MAX_OUTPUT_BYTES) {
    const before = process.memoryUsage().arrayBuffers
    const err = corruption(() => decompressBlock(type, payload, { formatVersion: fv, offset: OFFSET, maxOutputBytes: max }))
    const grown = process.memoryUsage().arrayBuffers - before
    expect(err.message).toBe(
      `${compressionTypeName(type)} block declares an uncompressed size of ${declared} bytes, above the limit of ${max} (at offset ${OFFSET})`,
    )
    expect(err.offset).toBe(OFFSET)
    expect(grown).toBeLessThan(16 * 1024 * 1024)
  }

  it('varint prefix claiming 4 GiB', () => {
    for (const type of PREFIXED) {
      refuse(type, concat(encodeVarint(FOUR_GIB), randomBytes(64)), 2, FOUR_GIB)
    }
  })

  it('Snappy preamble claiming 4 GiB - 1', () => {
    refuse(T.Snappy, concat(encodeVarint(FOUR_GIB - 1), randomBytes(64)), 2, FOUR_GIB - 1)
  })

  it('LZ4 v1 header claiming 0xFFFFFFFF', () => {
    const header = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)
    refuse(T.LZ4, concat(header, randomBytes(64)), 1, 0xffffffff)
  })

  it('honours a custom maxOutputBytes', () => {
    const p = compressBlock(T.ZSTD, raw, { formatVersion: 2 })
    refuse(T.ZSTD, p, 2, raw.length, raw.length - 1)
    expect(decompressBlock(T.ZSTD, p, { formatVersion: 2, maxOutputBytes: raw.length }).length).toBe(raw.length)
  })

  it('varint beyond 2^53 or truncated', () => {
    const huge = concat(encodeVarint(2n ** 60n), randomBytes(8))
    expect(corruption(() => decompressBlock(T.ZSTD, huge, { formatVersion: 2, offset: 100 })).message).toMatch(/^ZSTD block: varint64 value \d+ is too large/)
    const truncated = Uint8Array.of(0x80, 0x80)
    const err = corruption(() => decompressBlock(T.LZ4, truncated, { formatVersion: 2, offset: 100 }))
    expect(err.message).toMatch(/^LZ4 block: truncated varint64/)
    expect(corruption(() => decompressBlock(T.Zlib, new Uint8Array(0), { formatVersion: 2 })).message).toMatch(/^Zlib block: truncated varint64/)
  })

  it('LZ4 v1 header shorter than 8 bytes', () => {
    const err = corruption(() => decompressBlock(T.LZ4, Uint8Array.of(1, 0, 0), { formatVersion: 1, offset: 40 }))
    expect(err.message).toMatch(/^LZ4 block: legacy 8-byte size header truncated \(3 bytes\)/)
  })
})

describe('unsupported types', () => {
  const cases: [number, string][] = [
    [0x06, 'unsupported compression type 0x06 (Xpress)'],
    [0x08, 'unsupported compression type 0x08 (Reserved08)'],
    [0x41, 'unsupported compression type 0x41 (Reserved41)'],
    [0x80, 'unsupported compression type 0x80 (Custom80)'],
    [0xab, 'unsupported compression type 0xAB (CustomAB)'],
    [0xfe, 'unsupported compression type 0xFE (CustomFE)'],
    [0xff, 'unsupported compression type 0xFF (DisableOption)'],
  ]
  for (const [type, message] of cases) {
    it(message, () => {
      const err = thrown(() => decompressBlock(type, randomBytes(32), { formatVersion: 7, offset: 4096 }))
      expect(err).toBeInstanceOf(NotSupportedError)
      expect(err.message).toBe(`${message} (at offset 4096)`)
      expect((err as NotSupportedError).offset).toBe(4096)
      const err2 = thrown(() => compressBlock(type, raw, { formatVersion: 7 }))
      expect(err2).toBeInstanceOf(NotSupportedError)
      expect(err2.message).toBe(message)
    })
  }

  it('compressing with v1 framing is not supported for prefixed codecs', () => {
    for (const type of [T.Zlib, T.BZip2, T.LZ4, T.LZ4HC]) {
      const err = thrown(() => compressBlock(type, raw, { formatVersion: 1 }))
      expect(err).toBeInstanceOf(NotSupportedError)
      expect(err.message).toMatch(/format_version 1 framing is not supported/)
    }
  })
})

describe('a damaged ZSTD frame with a dictionary', () => {
  it('is reported with the same reason whatever the context decoded before (verify words it on any thread, in any order)', () => {
    // RocksDB's table with a trained dictionary; its first data block with one byte changed.
    const path = fixturePath('v9-fv6-zstd-dict')
    const t = openTable(path, { verifyChecksums: false })
    const dictionary = t.dictionary()!
    const file = new Uint8Array(readFileSync(path))
    const blocks = [...t.dataBlocks()].map(({ handle: h }) => file.subarray(h.offset, h.offset + h.size))
    t.close()
    const damaged = blocks[0].slice()
    damaged[371] = 105
    const c = new Cursor(damaged)
    const declared = c.varint32()
    // what a context that decoded nothing before says
    const fresh = thrown(() => new zstd.DCtx().decompressUsingDDict(new Uint8Array(declared), damaged.subarray(c.pos), new zstd.DDict(dictionary))).message
    // a context that decoded the table's other blocks first reports the same
    for (const b of blocks.slice(1)) decompressBlock(T.ZSTD, b, { formatVersion: 6, dictionary })
    const err = corruption(() => decompressBlock(T.ZSTD, damaged, { formatVersion: 6, dictionary }))
    expect(err.message).toBe(`ZSTD decompression failed: ${fresh}`)
  })
})

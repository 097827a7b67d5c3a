import { describe, it, expect } from 'vitest'
import zlib from 'node:zlib'
import koffi from 'koffi'
import zstd from 'zstd-napi/binding.js'
import { uncompressSync } from 'snappy'
import { Cursor, encodeVarint, readFixed32 } from '../../src/format/coding.js'
import { CompressionType, compressBlock, compressionTypeName, declaredUncompressedSize, decompressBlock } from '../../src/codec/compression.js'
import { CorruptionError } from '../../src/format/errors.js'
import { concat, embedded, expectBytes, kvText, randomBytes } from './helpers.js'

const T = CompressionType
const PREFIXED = [T.Zlib, T.BZip2, T.LZ4, T.LZ4HC, T.ZSTD, T.ZSTDNotFinal]
const ALL = [T.Snappy, ...PREFIXED]

const text = kvText(20_000)
const mixed = concat(kvText(3000, 5), randomBytes(2000, 11), kvText(3000, 6))

function splitPrefix(payload: Uint8Array): { size: number; body: Uint8Array } {
  const c = new Cursor(payload)
  const size = c.varint32()
  return { size, body: payload.subarray(c.pos) }
}

describe('round trips, v2 framing', () => {
  for (const type of ALL) {
    for (const fv of [2, 5, 6, 7]) {
      it(`${compressionTypeName(type)} fv${fv}`, () => {
        for (const raw of [text, mixed, Uint8Array.of(42), new Uint8Array(0), new Uint8Array(100_000)]) {
          const payload = compressBlock(type, raw, { formatVersion: fv })
          const out = decompressBlock(type, embedded(payload), { formatVersion: fv })
          expectBytes(out, raw)
          expect(out.constructor).toBe(Uint8Array)
          expect(declaredUncompressedSize(type, payload, fv)).toBe(raw.length)
        }
      })
    }
  }

  it('compressible blocks actually shrink', () => {
    for (const type of ALL) {
      expect(compressBlock(type, text, { formatVersion: 2 }).length, compressionTypeName(type)).toBeLessThan(text.length / 2)
    }
  })

  it('None returns the payload itself', () => {
    const raw = embedded(text)
    expect(decompressBlock(T.None, raw, { formatVersion: 2 })).toBe(raw)
    expect(compressBlock(T.None, raw, { formatVersion: 2 })).toBe(raw)
    expect(declaredUncompressedSize(T.None, raw, 2)).toBe(raw.length)
  })
})

describe('on-disk framing (checked with the codecs directly)', () => {
  it('prefixed codecs: varint32 uncompressed size, then the codec stream', () => {
    for (const type of PREFIXED) {
      const { size, body } = splitPrefix(compressBlock(type, text, { formatVersion: 2 }))
      expect(size).toBe(text.length)
      if (type === T.Zlib) expectBytes(zlib.inflateRawSync(body), text)
      if (type === T.BZip2) expect(new TextDecoder().decode(body.subarray(0, 4))).toBe('BZh1') // blockSize100k = 1
      if (type === T.ZSTD || type === T.ZSTDNotFinal) {
        expect(readFixed32(body, 0)).toBe(0xfd2fb528)
        expect(zstd.getFrameContentSize(body)).toBe(text.length)
        const dst = Buffer.alloc(text.length)
        expect(zstd.decompress(dst, body)).toBe(text.length)
        expectBytes(dst, text)
      }
    }
  })

  it('LZ4 and LZ4HC bodies are plain LZ4 blocks', () => {
    const lib = koffi.load('liblz4.so.1')
    const dec = lib.func('int LZ4_decompress_safe(const void *src, void *dst, int srcSize, int dstCapacity)')
    for (const type of [T.LZ4, T.LZ4HC]) {
      const { body } = splitPrefix(compressBlock(type, text, { formatVersion: 2 }))
      const dst = Buffer.alloc(text.length)
      expect(dec(body, dst, body.length, dst.length)).toBe(text.length)
      expectBytes(dst, text)
    }
    // HC compresses better than fast, so the two compressors really differ
    expect(compressBlock(T.LZ4HC, text, { formatVersion: 2 }).length).toBeLessThan(compressBlock(T.LZ4, text, { formatVersion: 2 }).length)
  })

  it('Snappy has no RocksDB prefix: the payload is raw Snappy', () => {
    const payload = compressBlock(T.Snappy, text, { formatVersion: 6 })
    expectBytes(uncompressSync(payload) as Buffer, text)
  })
})

describe('v1 framing (format_version 0/1)', () => {
  it('Zlib and BZip2 have no size prefix', () => {
    for (const type of [T.Zlib, T.BZip2]) {
      const { body } = splitPrefix(compressBlock(type, text, { formatVersion: 2 }))
      for (const fv of [0, 1]) {
        expectBytes(decompressBlock(type, embedded(body), { formatVersion: fv }), text)
        expect(declaredUncompressedSize(type, body, fv)).toBeUndefined()
      }
      // ... so reading the v1 payload as v2 misreads the stream's first bytes as a size
      expect(() => decompressBlock(type, body, { formatVersion: 2 })).toThrow(CorruptionError)
    }
  })

  it('BZip2 v1 grows its buffer for highly compressible data', () => {
    const zeros = new Uint8Array(3_000_000) // compresses ~1000×, far beyond the initial guess
    const { body } = splitPrefix(compressBlock(T.BZip2, zeros, { formatVersion: 2 }))
    expect(body.length * 8).toBeLessThan(zeros.length)
    expectBytes(decompressBlock(T.BZip2, body, { formatVersion: 1 }), zeros)
  })

  it('LZ4/LZ4HC have an 8-byte header: uint32 LE size + 4 bytes', () => {
    for (const type of [T.LZ4, T.LZ4HC]) {
      const { body } = splitPrefix(compressBlock(type, text, { formatVersion: 2 }))
      const header = new Uint8Array(8)
      new DataView(header.buffer).setUint32(0, text.length, true)
      const v1 = concat(header, body)
      expectBytes(decompressBlock(type, embedded(v1), { formatVersion: 1 }), text)
      expect(declaredUncompressedSize(type, v1, 0)).toBe(text.length)
    }
  })

  it('ZSTD and Snappy framing do not depend on the format version', () => {
    for (const type of [T.ZSTD, T.ZSTDNotFinal, T.Snappy]) {
      const payload = compressBlock(type, text, { formatVersion: 2 })
      expectBytes(compressBlock(type, text, { formatVersion: 1 }), payload)
      expectBytes(decompressBlock(type, payload, { formatVersion: 1 }), text)
    }
  })
})

/** A real zstd dictionary (magic + dictID + entropy tables) trained with the system libzstd. */
function trainZstdDictionary(): Uint8Array {
  const lib = koffi.load('libzstd.so.1')
  const train = lib.func('size_t ZDICT_trainFromBuffer(void *dict, size_t cap, const void *samples, const void *sizes, unsigned int n)')
  const isError = lib.func('unsigned int ZDICT_isError(size_t code)')
  const samples: Uint8Array[] = []
  for (let i = 0; i < 400; i++) samples.push(kvText(1024, 1000 + i))
  const all = concat(...samples)
  const sizes = BigUint64Array.from(samples, (s) => BigInt(s.length))
  const dict = Buffer.alloc(8192)
  const n = train(dict, dict.length, all, sizes, samples.length)
  if (isError(n)) throw new Error(`ZDICT_trainFromBuffer failed (code ${n})`)
  return new Uint8Array(dict.subarray(0, Number(n)))
}

describe('dictionaries', () => {
  const rawDict = kvText(16_384, 77) // RocksDB "raw content" dictionary: sampled block bytes, no magic
  const block = kvText(4096, 78)

  it('ZSTD with a raw-content dictionary', () => {
    expect(readFixed32(rawDict, 0)).not.toBe(0xec30a437)
    const withDict = compressBlock(T.ZSTD, block, { formatVersion: 6, dictionary: rawDict })
    const without = compressBlock(T.ZSTD, block, { formatVersion: 6 })
    expect(withDict.length).toBeLessThan(without.length)
    expect(zstd.getDictIDFromFrame(splitPrefix(withDict).body)).toBe(0) // raw content has no ID
    expectBytes(decompressBlock(T.ZSTD, withDict, { formatVersion: 6, dictionary: rawDict }), block)
    // same dictionary object again (cached DDict)
    expectBytes(decompressBlock(T.ZSTD, embedded(withDict), { formatVersion: 6, dictionary: rawDict }), block)
    // without the dictionary the block cannot be reproduced
    let ok = false
    try {
      ok = Buffer.from(decompressBlock(T.ZSTD, withDict, { formatVersion: 6 })).equals(Buffer.from(block))
    } catch (err) {
      expect(err).toBeInstanceOf(CorruptionError)
    }
    expect(ok).toBe(false)
  })

  it('ZSTD with a trained (magic-prefixed) dictionary records its ID', () => {
    const dict = trainZstdDictionary()
    expect(readFixed32(dict, 0)).toBe(0xec30a437)
    const dictID = zstd.getDictIDFromDict(dict)
    expect(dictID).toBeGreaterThan(0)
    const payload = compressBlock(T.ZSTD, block, { formatVersion: 6, dictionary: dict, level: 5 })
    expect(zstd.getDictIDFromFrame(splitPrefix(payload).body)).toBe(dictID)
    expectBytes(decompressBlock(T.ZSTD, payload, { formatVersion: 6, dictionary: dict }), block)
    const err = (() => {
      try {
        decompressBlock(T.ZSTD, payload, { formatVersion: 6, offset: 77 })
      } catch (e) {
        return e as CorruptionError
      }
    })()
    expect(err).toBeInstanceOf(CorruptionError)
    expect(err!.message).toMatch(/^ZSTD decompression failed: .*dictionary/i)
    expect(err!.offset).toBe(77)
  })

  it('ZSTD compressor switches dictionaries and settings correctly', () => {
    const other = kvText(8192, 79)
    const a = compressBlock(T.ZSTD, block, { formatVersion: 6, dictionary: rawDict })
    const b = compressBlock(T.ZSTD, block, { formatVersion: 6 })
    const c = compressBlock(T.ZSTD, block, { formatVersion: 6, dictionary: other })
    const d = compressBlock(T.ZSTD, block, { formatVersion: 6, dictionary: rawDict })
    expectBytes(d, a)
    expectBytes(decompressBlock(T.ZSTD, b, { formatVersion: 6 }), block)
    expectBytes(decompressBlock(T.ZSTD, c, { formatVersion: 6, dictionary: other }), block)
  })

  for (const type of [T.Zlib, T.LZ4, T.LZ4HC]) {
    it(`${compressionTypeName(type)} uses the dictionary`, () => {
      const withDict = compressBlock(type, block, { formatVersion: 2, dictionary: rawDict })
      const without = compressBlock(type, block, { formatVersion: 2 })
      expect(withDict.length).toBeLessThan(without.length)
      expectBytes(decompressBlock(type, embedded(withDict), { formatVersion: 2, dictionary: rawDict }), block)
      expectBytes(decompressBlock(type, without, { formatVersion: 2, dictionary: rawDict }), block)
      // without the dictionary, back-references into it are invalid
      expect(() => decompressBlock(type, withDict, { formatVersion: 2 })).toThrow(CorruptionError)
    })
  }

  it('LZ4 v1 framing applies the dictionary too', () => {
    const { body } = splitPrefix(compressBlock(T.LZ4, block, { formatVersion: 2, dictionary: rawDict }))
    const header = new Uint8Array(8)
    new DataView(header.buffer).setUint32(0, block.length, true)
    expectBytes(decompressBlock(T.LZ4, concat(header, body), { formatVersion: 1, dictionary: rawDict }), block)
  })

  it('Snappy and BZip2 ignore a dictionary', () => {
    for (const type of [T.Snappy, T.BZip2]) {
      const withDict = compressBlock(type, block, { formatVersion: 2, dictionary: rawDict })
      expectBytes(withDict, compressBlock(type, block, { formatVersion: 2 }))
      expectBytes(decompressBlock(type, withDict, { formatVersion: 2, dictionary: rawDict }), block)
    }
  })
})

describe('compression options', () => {
  it('ZSTD level and content checksum', () => {
    const fast = compressBlock(T.ZSTD, text, { formatVersion: 6, level: -5 })
    const strong = compressBlock(T.ZSTD, text, { formatVersion: 6, level: 19 })
    expect(strong.length).toBeLessThan(fast.length)
    const plain = compressBlock(T.ZSTD, text, { formatVersion: 6, level: 3 })
    expectBytes(compressBlock(T.ZSTD, text, { formatVersion: 6 }), plain) // default = 3
    expectBytes(compressBlock(T.ZSTD, text, { formatVersion: 6, level: 32767 }), plain)
    const summed = compressBlock(T.ZSTD, text, { formatVersion: 6, level: 3, zstdChecksum: true })
    expect(summed.length).toBe(plain.length + 4)
    const { body } = splitPrefix(summed)
    expect(body[4] & 0x04).toBe(0x04) // Frame_Header_Descriptor: Content_Checksum_flag
    expect(splitPrefix(plain).body[4] & 0x04).toBe(0)
    for (const p of [fast, strong, summed]) expectBytes(decompressBlock(T.ZSTD, p, { formatVersion: 6 }), text)

    // zstd verifies the content checksum
    const bad = summed.slice()
    bad[bad.length - 1] ^= 0xff
    expect(() => decompressBlock(T.ZSTD, bad, { formatVersion: 6 })).toThrow(/^ZSTD decompression failed: /)
  })

  it('Zlib, LZ4 and LZ4HC levels', () => {
    const z1 = compressBlock(T.Zlib, text, { formatVersion: 2, level: 1 })
    const z9 = compressBlock(T.Zlib, text, { formatVersion: 2, level: 9 })
    expect(z9.length).toBeLessThan(z1.length)
    const l1 = compressBlock(T.LZ4, text, { formatVersion: 2 })
    const l50 = compressBlock(T.LZ4, text, { formatVersion: 2, level: -50 })
    expect(l50.length).toBeGreaterThan(l1.length)
    const hc1 = compressBlock(T.LZ4HC, text, { formatVersion: 2, level: 1 })
    const hc12 = compressBlock(T.LZ4HC, text, { formatVersion: 2, level: 12 })
    expect(hc12.length).toBeLessThan(hc1.length)
    for (const [type, p] of [
      [T.Zlib, z1],
      [T.Zlib, z9],
      [T.LZ4, l50],
      [T.LZ4HC, hc1],
      [T.LZ4HC, hc12],
    ] as const) {
      expectBytes(decompressBlock(type, p, { formatVersion: 2 }), text)
    }
  })

  it('prefix is a varint32 even for sizes needing several bytes', () => {
    const big = kvText(300_000)
    const payload = compressBlock(T.LZ4, big, { formatVersion: 2 })
    expect(Array.from(payload.subarray(0, 3))).toEqual(Array.from(encodeVarint(300_000)))
    expectBytes(decompressBlock(T.LZ4, payload, { formatVersion: 2 }), big)
  })
})

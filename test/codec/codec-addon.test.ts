/**
 * The codec kernel's Node-API addon (native/addon/codec.c) against the kernel's library through
 * koffi, its fallback: the same calls on real blocks give the same results (payload lengths and
 * bytes, failures, round trips, checksums), and recompress prints the same sizes either way; the
 * system libzstd's dictionary builder (ZDICT) through it and through koffi gives the same bytes, and
 * its Snappy compression libsnappy's.
 */
import { describe, expect, it } from 'vitest'
import { codecKernelEachWay, codecKernelPath, type KernelCalls, snappyCompression } from '../../src/codec/kernel.js'
import { koffi as koffiModule } from '../../src/codec/native.js'
import { snappyCompress } from '../../src/codec/snappy.js'
import { ZSTD_DICT_MAGIC, type ZdictCalls, zdictEachWay } from '../../src/codec/zdict.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { openTable } from '../../src/table/reader.js'
import { fixturePath, sstkit } from '../helpers.js'
import { concat, kvText, randomBytes } from './helpers.js'

const blocks: Uint8Array[] = []
for (const name of ['fv5-lz4', 'fv5-zstd', 'big-value', 'binary-keys']) {
  const table = openTable(fixturePath(name))
  try {
    for (const ref of table.dataBlocks()) blocks.push(table.readDataBlock(ref.handle).slice())
  } finally {
    table.close()
  }
}
const raw = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0))
const sizes = new Uint32Array(blocks.map((b) => b.length))
let rawAt = 0
for (const b of blocks) {
  raw.set(b, rawAt)
  rawAt += b.length
}
const dictionary = kvText(8192, 3)

const { addon, koffi } = codecKernelEachWay()

/** compress() of every block with one setting: its result, the payload lengths and bytes, the CPU reported. */
function compressAll(lib: KernelCalls, codec: unknown, cap = raw.length * 2 + 1024) {
  const dst = new Uint8Array(cap)
  const outLens = new Uint32Array(blocks.length)
  const cpuNs = new Float64Array(1)
  const result = lib.compress(codec, raw, sizes, blocks.length, dst, cap, outLens, cpuNs)
  const used = outLens.reduce((n, l) => n + l, 0)
  return { result, outLens: [...outLens], bytes: Buffer.from(dst.subarray(0, result === 0 ? used : 0)), cpuNs: cpuNs[0] }
}

describe('the codec kernel addon', () => {
  it('is built, loads here and is the way the kernel loads (koffi only without it)', () => {
    expect(addon).not.toBeNull()
    expect(koffi).not.toBeNull()
    expect(codecKernelPath()).toBe('addon')
    expect(addon!.abilities).toBe(koffi!.abilities)
    expect(addon!.abilities).toBe(7)
    expect(addon!.zstdVersion()).toBe(koffi!.zstdVersion())
    expect(addon!.threadCpuNs()).toBeGreaterThan(0)
  })

  const settings = [
    { name: 'snappy', type: CompressionType.Snappy, level: 0, checksum: 0, dict: false },
    { name: 'lz4 with a dictionary', type: CompressionType.LZ4, level: 1, checksum: 0, dict: true },
    { name: 'lz4hc', type: CompressionType.LZ4HC, level: 9, checksum: 0, dict: false },
    { name: 'zstd 3 with a checksum and a dictionary', type: CompressionType.ZSTD, level: 3, checksum: 1, dict: true },
  ]
  for (const s of settings)
    it(`${s.name}: the same payloads, failures and round trips as through koffi`, () => {
      const each = [addon!, koffi!].map((lib) => {
        const codec = lib.newCodec(s.type, s.level, s.checksum, s.dict ? dictionary : null, s.dict ? dictionary.length : 0)
        expect(codec).toBeTruthy()
        try {
          const all = compressAll(lib, codec)
          // Room for less than every payload: the first block that does not fit, as -(i + 1).
          const short = compressAll(lib, codec, Math.floor(all.bytes.length / 2))
          const payloads = new Uint8Array(all.bytes)
          const cpuNs = new Float64Array(1)
          const back = lib.roundTrip(codec, payloads, new Uint32Array(all.outLens), sizes, blocks.length, new Uint8Array(raw.length), raw.length, raw, cpuNs)
          const damaged = payloads.slice()
          damaged[all.outLens[0] >> 1] ^= 0xff
          const backDamaged = lib.roundTrip(
            codec,
            damaged,
            new Uint32Array(all.outLens),
            sizes,
            blocks.length,
            new Uint8Array(raw.length),
            raw.length,
            raw,
            cpuNs,
          )
          return { all, short: short.result, back, backDamaged, cpu: cpuNs[0] }
        } finally {
          lib.freeCodec(codec)
        }
      })
      const [viaAddon, viaKoffi] = each
      expect(viaAddon.all.result).toBe(0)
      expect(viaAddon.all.cpuNs).toBeGreaterThan(0)
      expect(viaAddon.all.outLens).toEqual(viaKoffi.all.outLens)
      expect(viaAddon.all.bytes.equals(viaKoffi.all.bytes)).toBe(true)
      expect(viaAddon.short).toBeLessThan(0)
      expect(viaAddon.short).toBe(viaKoffi.short)
      expect(viaAddon.back).toBe(0)
      expect(viaAddon.backDamaged).not.toBe(0)
      expect(viaAddon.backDamaged).toBe(viaKoffi.backDamaged)
      expect(viaAddon.cpu).toBeGreaterThan(0)
    })

  it('checksumFrames and contentChecksums give what they give through koffi', () => {
    const [a, b] = [addon!, koffi!].map((lib) => {
      const codec = lib.newCodec(CompressionType.ZSTD, 3, 0, null, 0)
      try {
        const plain = compressAll(lib, codec)
        const dst = new Uint8Array(plain.bytes.length + 4 * blocks.length + 64)
        const outLens = new Uint32Array(blocks.length)
        const cpuNs = new Float64Array(1)
        const framed = lib.checksumFrames(
          new Uint8Array(plain.bytes),
          new Uint32Array(plain.outLens),
          raw,
          sizes,
          blocks.length,
          dst,
          dst.length,
          outLens,
          cpuNs,
        )
        const content = lib.contentChecksums(raw, sizes, blocks.length, cpuNs)
        return {
          framed,
          outLens: [...outLens],
          bytes: Buffer.from(
            dst.subarray(
              0,
              outLens.reduce((n, l) => n + l, 0),
            ),
          ),
          content,
        }
      } finally {
        lib.freeCodec(codec)
      }
    })
    expect(a.framed).toBe(0)
    expect(a.outLens.every((l, i) => l > 0 && l === b.outLens[i])).toBe(true)
    expect(a.bytes.equals(b.bytes)).toBe(true)
    expect(a.content).toBe(b.content)
  })

  // libsnappy's compression: the codec kernel's own library (codec-kernel.c resolves it), called directly.
  const snappy = snappyCompression()

  it("snappyCompress gives what libsnappy through koffi gives (RocksDB's bytes), and a TypeError where the room is under MaxCompressedLength", () => {
    const lib = koffiModule().load('libsnappy.so.1')
    const compress = lib.func('int snappy_compress(const void *src, size_t n, void *dst, _Inout_ size_t *dstLen)')
    const maxLength = lib.func('size_t snappy_max_compressed_length(size_t n)')
    for (const raw of [kvText(30_000, 2), randomBytes(5000, 4), new Uint8Array(0), new Uint8Array(70_000)]) {
      const capacity = Number(maxLength(raw.length))
      expect(snappy!.snappyMaxCompressedLength(raw.length)).toBe(capacity)
      const a = new Uint8Array(capacity)
      const b = new Uint8Array(capacity)
      const length = [capacity]
      expect(compress(raw.length ? raw : new Uint8Array(1), raw.length, b, length)).toBe(0)
      const n = snappy!.snappyCompress(raw, a)
      expect(n).toBe(length[0])
      expect(Buffer.from(a.subarray(0, n)).equals(Buffer.from(b.subarray(0, n)))).toBe(true)
      // and the codec module's snappyCompress is these bytes
      expect(Buffer.from(snappyCompress(raw)).equals(Buffer.from(b.subarray(0, n)))).toBe(true)
      expect(() => snappy!.snappyCompress(raw, new Uint8Array(capacity - 1))).toThrow(TypeError)
    }
  })

  it('a codec not made by newCodec, or a missing argument, is a TypeError, not a crash', () => {
    const dst = new Uint8Array(64)
    expect(() => addon!.compress({}, raw, sizes, 1, dst, 64, new Uint32Array(1), new Float64Array(1))).toThrow(TypeError)
    expect(() => addon!.freeCodec(7)).toThrow(TypeError)
    expect(() => (addon!.submit as (...a: unknown[]) => number)(null)).toThrow(TypeError)
    // A dictionary length past the bytes given.
    expect(() => addon!.newCodec(CompressionType.ZSTD, 3, 0, new Uint8Array(4), 5)).toThrow(TypeError)
    // A codec this machine does not do: null, as through koffi.
    expect(addon!.newCodec(2, 0, 0, null, 0)).toBeNull()
  })
})

describe('recompress through the codec addon and through koffi (SSTKIT_NO_ADDON=1)', () => {
  /** recompress --json's sizes and counts: every field but timings and speeds. */
  const sizesOf = (stdout: string) => JSON.stringify(JSON.parse(stdout), (key, value) => (/Ms$|MBps$|Noisy$|^threadCpu|^cpu/i.test(key) ? undefined : value))
  for (const name of ['fv5-lz4', 'zstd-dict-trained', 'v11-fv7-zstd-dict-checksum'])
    it(`${name}: the same sizes`, () => {
      const args = ['recompress', '--json', '--types', 'snappy,lz4,lz4hc,zstd', '--levels', '1,3', '--dict', 'none,raw', fixturePath(name)]
      const viaAddon = sstkit(args)
      const viaKoffi = sstkit(args, { env: { SSTKIT_NO_ADDON: '1' } })
      expect(viaAddon.status).toBe(0)
      expect(viaKoffi.status).toBe(0)
      expect(JSON.parse(viaAddon.stdout).results.length).toBeGreaterThan(6)
      expect(sizesOf(viaKoffi.stdout)).toBe(sizesOf(viaAddon.stdout))
    })
})

describe("ZDICT through the codec addon and through koffi: the system libzstd's dictionaries either way", () => {
  const { addon: viaAddon, koffi: viaKoffi } = zdictEachWay()
  const records = Array.from({ length: 60 }, (_, i) => kvText(4096, i + 7))
  const samples = concat(...records)
  const sizes = BigUint64Array.from(records, (r) => BigInt(r.length))

  it('the same library: the same version, and the addon is the way zdict loads', () => {
    expect(viaAddon).not.toBeNull()
    expect(viaAddon!.version()).toBe(viaKoffi.version())
    expect(viaAddon!.version()).toBeGreaterThan(10400)
  })

  it('trains and finalizes the same bytes', () => {
    for (const capacity of [1024, 16384]) {
      const [a, b] = [viaAddon!, viaKoffi].map((z) => {
        const dict = new Uint8Array(capacity)
        const n = z.train(dict, capacity, samples, sizes, records.length)
        expect(typeof n).toBe('number')
        return Buffer.from(dict.subarray(0, n as number))
      })
      expect(a.length).toBeGreaterThan(0)
      expect(a.equals(b)).toBe(true)
      for (const level of [3, 19]) {
        const [c, d] = [viaAddon!, viaKoffi].map((z) => {
          const dict = new Uint8Array(capacity)
          const n = z.finalize(dict, capacity, samples.subarray(0, capacity / 2), samples, sizes, records.length, level)
          expect(typeof n).toBe('number')
          return Buffer.from(dict.subarray(0, n as number))
        })
        expect(c.readUInt32LE(0)).toBe(ZSTD_DICT_MAGIC)
        expect(c.equals(d)).toBe(true)
      }
    }
  })

  it("refuses as ZDICT does, with its error's name", () => {
    const tooFew = (z: ZdictCalls) => z.train(new Uint8Array(16384), 16384, samples.subarray(0, 8192), sizes.subarray(0, 2), 2)
    expect(typeof tooFew(viaAddon!)).toBe('string')
    expect(tooFew(viaAddon!)).toBe(tooFew(viaKoffi))
  })

  it('arguments past their buffers are a TypeError, not a read past them', () => {
    // A capacity past the dictionary, sizes past the samples, a count past the sizes.
    expect(() => viaAddon!.train(new Uint8Array(10), 11, samples, sizes, records.length)).toThrow(TypeError)
    expect(() => viaAddon!.train(new Uint8Array(1024), 1024, samples.subarray(1), sizes, records.length)).toThrow(TypeError)
    expect(() => viaAddon!.finalize(new Uint8Array(1024), 1024, samples, samples, sizes, records.length + 1, 3)).toThrow(TypeError)
  })
})

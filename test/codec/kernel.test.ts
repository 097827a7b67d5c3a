/**
 * The codec kernel (native/codec-kernel.c through codec/kernel.ts) gives the JavaScript codecs'
 * bytes for every setting it does, on real blocks (a 7.8.3 fixture's data blocks), and times what
 * it does: CPU for each batch, decompression compared with the originals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BlockCompressor } from '../../src/codec/block-compressor.js'
import { codecKernelLoaded, handedBatches, KernelCodec, lendCores, spareCores, splitKernelCompression, threadCpuMs } from '../../src/codec/kernel.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { openTable } from '../../src/table/reader.js'
import { kvText, randomBytes } from './helpers.js'

/** Data blocks real RocksDB wrote (7.8.3 and 10.x fixtures of several codecs). */
const blocks: Uint8Array[] = []
for (const name of ['fv5-lz4', 'fv5-zstd', 'fv5-snappy', 'v10-fv5-none', 'big-value', 'binary-keys']) {
  const table = openTable(new URL(`../fixtures/real/${name}.sst`, import.meta.url).pathname)
  try {
    for (const ref of table.dataBlocks()) blocks.push(table.readDataBlock(ref.handle).slice())
  } finally {
    table.close()
  }
}

const dictionary = kvText(8192, 3)
const settings = [
  { name: 'snappy', type: CompressionType.Snappy, level: null, checksum: false },
  { name: 'lz4', type: CompressionType.LZ4, level: null, checksum: false },
  { name: 'lz4 acceleration 4', type: CompressionType.LZ4, level: -4, checksum: false },
  { name: 'lz4hc', type: CompressionType.LZ4HC, level: null, checksum: false },
  { name: 'zstd 1', type: CompressionType.ZSTD, level: 1, checksum: false },
  { name: 'zstd 3 checksum', type: CompressionType.ZSTD, level: 3, checksum: true },
  { name: 'zstd 9', type: CompressionType.ZSTD, level: 9, checksum: false },
]

const ZSTD_3 = { compressionType: CompressionType.ZSTD, level: 3, zstdChecksum: false }

/**
 * A compressor whose kernel codec is made with splitKernelCompression on (`minBatchMs`: the split's
 * threshold; null: the switch off), made at its first use, here: it may use a lent core.
 */
function compressorWithHelper(options: ConstructorParameters<typeof BlockCompressor>[0], dict?: Uint8Array, minBatchMs: number | null = 2): BlockCompressor {
  if (minBatchMs !== null) splitKernelCompression(true, minBatchMs)
  try {
    const c = new BlockCompressor(options, 5, dict)
    c.compressMany(blocks.slice(0, 1))
    return c
  } finally {
    splitKernelCompression(false)
  }
}

/** The JavaScript path's payloads (the kernel switched off for the compressor). */
function javascriptPayloads(type: number, level: number | null, checksum: boolean, dict: Uint8Array | undefined, raws: Uint8Array[]): Uint8Array[] {
  process.env.SSTKIT_NO_CODEC_KERNEL = '1'
  try {
    const c = new BlockCompressor({ compressionType: type, level, zstdChecksum: checksum }, 5, dict)
    expect(c.batched).toBe(false)
    return raws.map((r) => c.compress(r).slice())
  } finally {
    delete process.env.SSTKIT_NO_CODEC_KERNEL
  }
}

describe('codec kernel', () => {
  // The split tests compress over a lent core (lendCores), as recompress's idle lanes lend theirs.
  beforeAll(() => {
    lendCores(1)
  })
  afterAll(() => {
    lendCores(-1)
  })
  it('is built and loads here (npm run build compiles it)', () => {
    expect(codecKernelLoaded()).toBe(true)
    expect(blocks.length).toBeGreaterThan(20)
  })

  for (const s of settings)
    for (const dict of [undefined, dictionary]) {
      if (dict && s.type === CompressionType.Snappy) continue
      it(`${s.name}${dict ? ' with a dictionary' : ''}: the JavaScript codecs' bytes, and back`, () => {
        const expected = javascriptPayloads(s.type, s.level, s.checksum, dict, blocks)
        const c = new BlockCompressor({ compressionType: s.type, level: s.level, zstdChecksum: s.checksum }, 5, dict)
        expect(c.batched).toBe(true)
        const got = [...c.compressMany(blocks.slice(0, 7)), ...c.compressMany(blocks.slice(7))]
        expect(got.length).toBe(expected.length)
        for (let i = 0; i < got.length; i++) expect(Buffer.from(got[i]).equals(Buffer.from(expected[i])), `block ${i}`).toBe(true)
        expect(c.compressNs).toBeGreaterThan(0)
        expect(c.roundTripMany(got, blocks)).toBe(-1)
        expect(c.decompressNs).toBeGreaterThan(0)
        // One block on its own goes through the kernel too.
        expect(Buffer.from(c.compress(blocks[3])).equals(Buffer.from(expected[3]))).toBe(true)
        c.close()
      })
    }

  for (const s of settings)
    for (const dict of [undefined, dictionary]) {
      if (dict && s.type === CompressionType.Snappy) continue
      it(`${s.name}${dict ? ' with a dictionary' : ''}, split over a helper thread: the same payloads`, () => {
        const one = new BlockCompressor({ compressionType: s.type, level: s.level, zstdChecksum: s.checksum }, 5, dict)
        // Every batch split, however short (the default splits only batches of 2 ms or more).
        const two = compressorWithHelper({ compressionType: s.type, level: s.level, zstdChecksum: s.checksum }, dict, 0)
        // Batches of 1 (on the calling thread), 2, 7 and the rest, as evaluate's batches come.
        const handed = handedBatches()
        for (const [from, to] of [
          [0, 1],
          [1, 3],
          [3, 10],
          [10, blocks.length],
        ]) {
          const expected = one.compressMany(blocks.slice(from, to))
          const got = two.compressMany(blocks.slice(from, to))
          expect(got.length).toBe(expected.length)
          for (let i = 0; i < got.length; i++) expect(Buffer.from(got[i]).equals(Buffer.from(expected[i])), `block ${from + i}`).toBe(true)
        }
        // Three handed over (the helper takes what the calling thread has not claimed when it wakes: maybe nothing).
        expect(handedBatches() - handed).toBe(3)
        expect(one.helperNs).toBe(0)
        expect(spareCores()).toBe(1)
        one.close()
        two.close()
      })
    }

  it('splits only over a lent core, and gives it back after each batch', () => {
    const c = compressorWithHelper(ZSTD_3, undefined, 0)
    lendCores(-1)
    const expected = new BlockCompressor(ZSTD_3, 5).compressMany(blocks)
    // No core lent: one thread.
    expect(lendCores(0)).toBe(0)
    const handed = handedBatches()
    c.compressMany(blocks)
    expect(handedBatches()).toBe(handed)
    // One lent: the batch is split, and the core is lent again once the batch is done.
    expect(lendCores(1)).toBe(1)
    const got = c.compressMany(blocks)
    expect(handedBatches()).toBe(handed + 1)
    expect(spareCores()).toBe(1)
    expect(got.map((b) => Buffer.from(b).toString('hex'))).toEqual(expected.map((b) => Buffer.from(b).toString('hex')))
    // Taken back: one thread again.
    expect(lendCores(-1)).toBe(0)
    c.compressMany(blocks)
    expect(handedBatches()).toBe(handed + 1)
    c.close()
    lendCores(1)
  })

  it('split only after a batch of at least the given CPU: short batches stay on the calling thread', () => {
    const never = compressorWithHelper(ZSTD_3, undefined, 1e6) // a batch of 1,000 s
    const always = compressorWithHelper(ZSTD_3, undefined, 0)
    const handed = handedBatches()
    for (let i = 0; i < 3; i++) never.compressMany(blocks)
    expect(handedBatches()).toBe(handed)
    for (let i = 0; i < 3; i++) always.compressMany(blocks)
    expect(handedBatches()).toBe(handed + 3)
    never.close()
    always.close()
  })

  for (const s of settings)
    for (const dict of [undefined, dictionary]) {
      if (dict && s.type === CompressionType.Snappy) continue
      it(`${s.name}${dict ? ' with a dictionary' : ''}, submitted to a lent core and collected: the same payloads, the core back`, () => {
        const options = { compressionType: s.type, level: s.level, zstdChecksum: s.checksum }
        const one = new BlockCompressor(options, 5, dict)
        const two = compressorWithHelper(options, dict)
        // Batches of 1, 2, 7 and the rest, and the rest again: the helper's buffers reused and grown.
        for (const [from, to] of [
          [0, 1],
          [1, 3],
          [3, 10],
          [10, blocks.length],
          [0, blocks.length],
        ]) {
          const expected = one.compressMany(blocks.slice(from, to))
          const helperBefore = two.helperNs
          expect(two.submitMany(blocks.slice(from, to))).toBe(true)
          // One batch out at a time.
          expect(two.submitMany(blocks.slice(from, to))).toBe(false)
          // Left to the helper until it gives its core back, it compresses every block on its own context.
          const until = Date.now() + 10_000
          while (spareCores() === 0 && Date.now() < until);
          const got = two.collectMany()
          expect(two.helperNs).toBeGreaterThan(helperBefore)
          expect(got.length).toBe(expected.length)
          for (let i = 0; i < got.length; i++) expect(Buffer.from(got[i]).equals(Buffer.from(expected[i])), `block ${from + i}`).toBe(true)
          // The helper gave its core back once it had no block left.
          expect(spareCores()).toBe(1)
        }
        // Collected at once, the calling thread claims the blocks the helper has not begun: the same payloads.
        const expected = one.compressMany(blocks)
        expect(two.submitMany(blocks)).toBe(true)
        const got = two.collectMany()
        for (let i = 0; i < got.length; i++) expect(Buffer.from(got[i]).equals(Buffer.from(expected[i])), `block ${i}`).toBe(true)
        expect(spareCores()).toBe(1)
        one.close()
        two.close()
      })
    }

  it('submits only over a spare lent core, with the switch on, one batch at a time', () => {
    const raws = blocks.slice(0, 6)
    const off = compressorWithHelper(ZSTD_3, undefined, null)
    expect(off.submitMany(raws)).toBe(false)
    const on = compressorWithHelper(ZSTD_3)
    const other = compressorWithHelper(ZSTD_3)
    expect(lendCores(-1)).toBe(0)
    expect(on.submitMany(raws)).toBe(false)
    expect(lendCores(1)).toBe(1)
    expect(on.submitMany(raws)).toBe(true)
    // Lent, whether a helper holds it or not.
    expect(lendCores(0)).toBe(1)
    on.collectMany()
    expect(spareCores()).toBe(1)
    // A batch collected, the core is spare again for another codec.
    expect(on.submitMany(raws)).toBe(true)
    const first = on.collectMany()
    expect(other.submitMany(raws)).toBe(true)
    expect(other.collectMany().map((p) => Buffer.from(p).toString('hex'))).toEqual(first.map((p) => Buffer.from(p).toString('hex')))
    expect(() => on.collectMany()).toThrow(/without a batch submitted/)
    // A codec freed with a batch out (a writer abandoned): its helper finishes it and the core comes back.
    expect(other.submitMany(blocks)).toBe(true)
    other.close()
    expect(spareCores()).toBe(1)
    for (const c of [off, on]) c.close()
    expect(spareCores()).toBe(1)
  })

  for (const level of [1, 3, 19])
    for (const dict of [undefined, dictionary])
      it(`zstd ${level}${dict ? ' with a dictionary' : ''}: frames with the content checksum made from those without are zstd's own`, () => {
        const plain = new BlockCompressor({ compressionType: CompressionType.ZSTD, level, zstdChecksum: false }, 5, dict)
        const summed = new BlockCompressor({ compressionType: CompressionType.ZSTD, level, zstdChecksum: true }, 5, dict)
        const raws = [...blocks, randomBytes(4096, 11), new Uint8Array(1)]
        const expected = javascriptPayloads(CompressionType.ZSTD, level, true, dict, raws)
        const made = summed.withChecksumFrom(plain.compressMany(raws), raws)!
        for (let i = 0; i < raws.length; i++) expect(Buffer.from(made[i]).equals(Buffer.from(expected[i])), `block ${i}`).toBe(true)
        expect(summed.roundTripMany(made, raws)).toBe(-1)
        expect(plain.withChecksumFrom(plain.compressMany(raws), raws)).toBeNull()
      })

  it('compresses a batch gathered once for several settings, and a new batch of as many blocks as its own', () => {
    // recompress hands one batch to every setting in turn: the kernel lays its blocks end to end once.
    const zstd = new BlockCompressor({ compressionType: CompressionType.ZSTD, level: 1, zstdChecksum: false }, 5)
    const lz4 = new BlockCompressor({ compressionType: CompressionType.LZ4, level: null, zstdChecksum: false }, 5)
    const a = blocks.slice(0, 6)
    // As many blocks in other arrays (copies of other blocks), then copies of `a`.
    const b = blocks.slice(6, 12).map((x) => x.slice())
    const c = a.map((x) => x.slice())
    const expect6 = (got: Uint8Array[], raws: Uint8Array[], type: number, level: number | null) => {
      const want = javascriptPayloads(type, level, false, undefined, raws)
      for (let i = 0; i < raws.length; i++) expect(Buffer.from(got[i]).equals(Buffer.from(want[i])), `block ${i}`).toBe(true)
    }
    for (const [raws, copyOf] of [
      [a, a],
      [b, blocks.slice(6, 12)],
      [c, a],
    ] as const) {
      expect6(zstd.compressMany(raws), copyOf, CompressionType.ZSTD, 1)
      expect6(lz4.compressMany(raws), copyOf, CompressionType.LZ4, null)
    }
    // A new array of the same blocks with one replaced is gathered again.
    const d = [...c.slice(0, 5), blocks[20]]
    expect6(zstd.compressMany(d), [...a.slice(0, 5), blocks[20]], CompressionType.ZSTD, 1)
    zstd.close()
    lz4.close()
  })

  it('with reuse, gives the same payloads in two arrays taken in turn, each valid until the call after next', () => {
    const plain = new BlockCompressor({ compressionType: CompressionType.ZSTD, level: 3, zstdChecksum: false }, 5)
    const summed = new BlockCompressor({ compressionType: CompressionType.ZSTD, level: 3, zstdChecksum: true }, 5)
    // The third smaller than the first, so that it fits the first's array.
    const batches = [blocks.slice(0, 8), blocks.slice(8, 14), blocks.slice(2, 6)]
    const expected = batches.map((b) => javascriptPayloads(CompressionType.ZSTD, 3, false, undefined, b))
    const expectedSummed = batches.map((b) => javascriptPayloads(CompressionType.ZSTD, 3, true, undefined, b))
    const same = (got: Uint8Array[], want: Uint8Array[]) => got.length === want.length && got.every((p, i) => Buffer.from(p).equals(Buffer.from(want[i])))
    const first = plain.compressMany(batches[0], true)
    const firstSummed = summed.withChecksumFrom(first, batches[0], true)!
    const second = plain.compressMany(batches[1], true)
    const secondSummed = summed.withChecksumFrom(second, batches[1], true)!
    // The first call's payloads outlive the second call.
    expect(same(first, expected[0]) && same(firstSummed, expectedSummed[0])).toBe(true)
    expect(same(second, expected[1]) && same(secondSummed, expectedSummed[1])).toBe(true)
    expect(second[0].buffer).not.toBe(first[0].buffer)
    const third = plain.compressMany(batches[2], true)
    expect(same(third, expected[2])).toBe(true)
    // The third takes the first's array again; without reuse, every call has its own.
    expect(third[0].buffer).toBe(first[0].buffer)
    expect(plain.compressMany(batches[0])[0].buffer).not.toBe(plain.compressMany(batches[0])[0].buffer)
    plain.close()
    summed.close()
  })

  it('reports the first block that does not come back, and a payload that does not decode', () => {
    const c = new BlockCompressor({ compressionType: CompressionType.ZSTD, level: 3, zstdChecksum: false }, 5)
    const raws = blocks.slice(0, 5)
    const payloads = c.compressMany(raws)
    const altered = raws.slice()
    altered[2] = raws[2].slice()
    altered[2][100] ^= 1
    expect(c.roundTripMany(payloads, altered)).toBe(2)
    const broken = payloads.slice()
    broken[4] = payloads[4].slice(0, payloads[4].length - 3)
    expect(c.roundTripMany(broken, raws)).toBe(4)
    c.close()
  })

  it('compresses incompressible and empty-ish blocks as the JavaScript codecs do', () => {
    const raws = [randomBytes(4096, 5), new Uint8Array(1), kvText(70000, 9)]
    for (const s of settings) {
      const expected = javascriptPayloads(s.type, s.level, s.checksum, undefined, raws)
      const k = new BlockCompressor({ compressionType: s.type, level: s.level, zstdChecksum: s.checksum }, 5)
      expect(k.batched).toBe(true)
      const got = k.compressMany(raws)
      for (let i = 0; i < raws.length; i++) expect(Buffer.from(got[i]).equals(Buffer.from(expected[i])), `${s.name} block ${i}`).toBe(true)
      k.close()
    }
  })

  it('leaves zlib, bzip2 and format_version 1 LZ4 to the JavaScript codecs, timed on the thread CPU clock', () => {
    expect(KernelCodec.create(CompressionType.Zlib, -1, false, 5)).toBeNull()
    expect(KernelCodec.create(CompressionType.BZip2, 0, false, 5)).toBeNull()
    expect(KernelCodec.create(CompressionType.LZ4, 1, false, 1)).toBeNull()
    const c = new BlockCompressor({ compressionType: CompressionType.Zlib, level: null, zstdChecksum: false }, 5)
    expect(c.batched).toBe(false)
    const t0 = threadCpuMs()
    c.compressMany(blocks.slice(0, 4))
    expect(c.compressNs).toBeGreaterThan(0)
    expect(c.compressNs / 1e6).toBeLessThanOrEqual(threadCpuMs() - t0 + 1e-6)
  })
})

describe('KernelCodec.roundTripGathered', () => {
  it('decodes payloads laid end to end and compares them with their blocks, as roundTrip does, timed', () => {
    const raws = blocks.slice(0, 8)
    for (const s of settings) {
      const codec = KernelCodec.create(s.type, s.level ?? 1, s.checksum, 5)!
      const payloads = codec.compress(raws)
      const src = Buffer.concat(payloads)
      const raw = Buffer.concat(raws)
      const lens = Uint32Array.from(payloads, (p) => p.length)
      const sizes = Uint32Array.from(raws, (r) => r.length)
      const before = codec.decompressNs
      expect(codec.roundTripGathered(src, lens, raw, sizes, raws.length), s.name).toBe(-1)
      expect(codec.decompressNs).toBeGreaterThan(before)
      expect(codec.roundTrip(payloads, raws)).toBe(-1)
      // The fourth block's contents changed: found at its index; the batch's count honoured (n of 3 stops before it).
      const damaged = Buffer.from(raw)
      const at = sizes[0] + sizes[1] + sizes[2] + 10
      damaged[at] ^= 0xff
      expect(codec.roundTripGathered(src, lens, damaged, sizes, raws.length), s.name).toBe(3)
      expect(codec.roundTripGathered(src, lens, damaged, sizes, 3), s.name).toBe(-1)
      codec.close()
    }
  })
})

/**
 * The stored row's decompression is timed as a setting's round trip is: the stored payloads of its
 * compressed data blocks decoded again, a batch per timed call, 1 in the round trip's stride of
 * them; not the pass's reading, checking and decoding (readWallMs keeps that).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recompressFile, type RecompressOptions } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { ReadWindow } from '../../src/io/byte-source.js'
import { newScratch } from '../../src/codec/output.js'
import { decompressEstimate, inRoundTrip } from '../../src/recompress/round-trip.js'
import { STORED_SAMPLE_BYTES, StoredDecompressTimer, storedTimingStride } from '../../src/recompress/stored-decompress.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { openTable } from '../../src/table/reader.js'
import { prng } from '../../src/util/prng.js'
import { fixturePath, ROOT } from '../helpers.js'
import { type Entry, writeSyntheticTable } from '../synthetic.js'

/** Every data block of `file` read as a pass reads them, told to a timer of `stride`; the compressed blocks' count and decoded bytes. */
function timedPass(file: string, stride: number) {
  const table = openTable(file)
  try {
    const timer = new StoredDecompressTimer(table, stride)
    const reuse = { window: new ReadWindow(table.source), scratch: newScratch(), observe: timer.observe }
    let index = 0
    let compressed = 0
    let bytes = 0
    let sampled = 0
    for (const handle of table.dataHandles()) {
      const type = table.readRaw(handle, 'data block').compressionType
      const data = table.readDataBlock(handle, reuse)
      if (type !== CompressionType.None) {
        compressed++
        bytes += data.length
        if (inRoundTrip(index, stride)) sampled++
      }
      index++
    }
    return { sums: timer.finish(), batches: timer.batches, compressed, bytes, sampled, blocks: index }
  } finally {
    table.close()
  }
}

describe('the stored decompression timer', () => {
  it('times every block of a file under twice STORED_SAMPLE_BYTES, then about that much; all with every, none with none', () => {
    expect(storedTimingStride('sample', 0)).toBe(1)
    expect(storedTimingStride('sample', 2 * STORED_SAMPLE_BYTES - 1)).toBe(1)
    expect(storedTimingStride('sample', 15e6)).toBe(3)
    expect(storedTimingStride('sample', 2e9)).toBe(476)
    expect(storedTimingStride('every', 2e9)).toBe(1)
    expect(storedTimingStride('none', 15e6)).toBe(0)
  })

  // LZ4, Snappy and zstd (with dictionaries too) through the kernel; zlib (a dictionary too), bzip2 and LZ4 before format_version 2 through the reader's own code.
  it.each([
    ['fv5-lz4', 'kernel'],
    ['lz4-dict-raw', 'kernel'],
    ['fv5-snappy', 'kernel'],
    ['fv5-zstd', 'kernel'],
    ['v11-fv7-zstd-dict', 'kernel'],
    ['fv5-zlib', 'reader'],
    ['zlib-dict-raw', 'reader'],
    ['fv5-bzip2', 'reader'],
    ['fv1-lz4', 'reader'],
  ] as const)('%s: every compressed block counted and timed, in batches, through the %s', (name, by) => {
    const { sums, batches, compressed, bytes } = timedPass(fixturePath(name), 1)
    expect(batches[by]).toBe(sums.n)
    expect(batches[by === 'kernel' ? 'reader' : 'kernel']).toBe(0)
    expect(compressed).toBeGreaterThan(0)
    expect(sums.blocks).toBe(compressed)
    expect(sums.bytes).toBe(bytes)
    expect(sums.timedBlocks).toBe(compressed)
    expect(sums.sumS).toBe(bytes)
    expect(sums.n).toBeGreaterThanOrEqual(1)
    expect(sums.n).toBeLessThanOrEqual(compressed)
    expect(sums.sumC).toBeGreaterThan(0)
    expect(decompressEstimate(sums)).toEqual({ scale: 1, relHalf: 0 })
  })

  it('1 in the stride timed, the rest counted: the estimate scales the timed ones to all', () => {
    const { sums, compressed, bytes, sampled } = timedPass(join(ROOT, 'examples/sample.sst'), 3)
    expect(compressed).toBeGreaterThan(6)
    expect(sums.blocks).toBe(compressed)
    expect(sums.bytes).toBe(bytes)
    expect(sums.timedBlocks).toBe(sampled)
    expect(sampled).toBeLessThan(compressed)
    const estimate = decompressEstimate(sums)!
    expect(estimate.scale).toBeCloseTo(bytes / sums.sumS, 9)
    expect(estimate.scale).toBeGreaterThan(1)
  })

  it('nothing to time where no block is compressed, and nothing timed under a stride of 0', () => {
    const none = timedPass(fixturePath('fv5-none'), 1)
    expect(none.blocks).toBeGreaterThan(0)
    expect(none.sums.blocks).toBe(0)
    expect(none.sums.n).toBe(0)
    expect(decompressEstimate(none.sums)).toBeNull()
    const off = timedPass(fixturePath('fv5-lz4'), 0)
    expect(off.sums.blocks).toBe(off.compressed)
    expect(off.sums.n).toBe(0)
  })
})

const zstd1 = (o: Partial<RecompressOptions> = {}): RecompressOptions => ({
  matrix: { types: [CompressionType.ZSTD], levels: [1], dicts: ['none'], checksums: [false] },
  source: { blockSize: null, samplePercent: 100 },
  dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
  jobs: 1,
  ...o,
})

describe('recompress: the stored row', () => {
  it.each([
    ['its own blocks', { blockSize: null, samplePercent: 100 }],
    ['re-cut', { blockSize: 16384, samplePercent: 100 }],
  ] as const)('(%s) times every compressed block, speed = decoded bytes over that time; the pass itself in readWallMs', async (_, source) => {
    const report = await recompressFile(fixturePath('fv5-lz4'), zstd1({ source }))
    const st = report.stored
    expect(st.blocksCompressed).toBeGreaterThan(0)
    expect(st.roundTripBlocks).toBe(st.blocksCompressed)
    expect(st.decompressMs).toBeGreaterThan(0)
    expect(st.decompressMBps).toBeCloseTo(st.uncompressedBytes / 1e6 / (st.decompressMs / 1000), 6)
    expect(st.decompressInterval).toBeNull()
    expect(st.readWallMs).toBeGreaterThan(0)
  })

  it('a file whose blocks are stored uncompressed has no decompression speed', async () => {
    const st = (await recompressFile(fixturePath('fv5-none'), zstd1())).stored
    expect(st.blocksCompressed).toBe(0)
    expect(st.decompressMs).toBe(0)
    expect(st.decompressMBps).toBeNull()
    expect(st.roundTripBlocks).toBe(0)
    expect(st.decompressNoisy).toBe(false)
  })

  it('the stored pass of its own (a sampled re-cut cannot time the stored blocks) is timed the same way', async () => {
    const st = (await recompressFile(join(ROOT, 'examples/sample.sst'), zstd1({ source: { blockSize: 16384, samplePercent: 50 } }))).stored
    expect(st.blocksCompressed).toBeGreaterThan(0)
    expect(st.roundTripBlocks).toBe(st.blocksCompressed)
    expect(st.decompressMs).toBeGreaterThan(0)
    expect(st.decompressMBps).toBeCloseTo(st.uncompressedBytes / 1e6 / (st.decompressMs / 1000), 6)
  })
})

describe('recompress: the stored row of a file whose stored blocks are sampled', () => {
  let dir: string
  let file: string
  beforeAll(() => {
    // About 3 x STORED_SAMPLE_BYTES of compressible entries in 4 KiB LZ4 blocks (written by sstkit's writer: synthetic).
    dir = mkdtempSync(join(tmpdir(), 'sstkit-stored-timing-'))
    const rnd = prng(11)
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta']
    const values = Array.from({ length: 64 }, () =>
      new TextEncoder().encode(Array.from({ length: 40 }, () => words[Math.floor(rnd() * words.length)]).join(' ')),
    )
    const count = Math.ceil((3.2 * STORED_SAMPLE_BYTES) / (values.reduce((a, v) => a + v.length, 0) / values.length + 21))
    function* entries(): Iterable<Entry> {
      for (let i = 0; i < count; i++)
        yield [encodeInternalKey(new TextEncoder().encode(`key${String(i).padStart(10, '0')}`), BigInt(i + 1), ValueType.Value), values[i % 64]]
    }
    file = writeSyntheticTable(join(dir, 'synthetic-lz4.sst'), entries(), { compression: CompressionType.LZ4 })
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('times 1 in 3 of its blocks, an estimate with its interval and a note; --verify-compression every block', async () => {
    const sample = await recompressFile(file, zstd1())
    const st = sample.stored
    expect(st.blocksCompressed).toBeGreaterThan(1000)
    expect(st.blocksCompressed).toBe(st.blocks)
    expect(st.roundTripBlocks).toBe(Array.from({ length: st.blocks }, (_, i) => i).filter((i) => inRoundTrip(i, 3)).length)
    expect(st.decompressInterval).not.toBeNull()
    expect(st.decompressInterval!.low).toBeLessThan(st.decompressMBps!)
    expect(st.decompressMBps).toBeCloseTo(st.uncompressedBytes / 1e6 / (st.decompressMs / 1000), 6)
    expect(sample.notes.join(' ')).toMatch(/the stored row's decompression timed on \d+ of its \d+ compressed blocks \(1 in 3\)/)
    const every = await recompressFile(file, zstd1({ roundTrip: 'every' }))
    expect(every.stored.roundTripBlocks).toBe(every.stored.blocksCompressed)
    expect(every.stored.decompressInterval).toBeNull()
    expect(every.notes.join(' ')).not.toMatch(/stored row's decompression/)
    const none = await recompressFile(file, zstd1({ roundTrip: 'none' }))
    expect(none.stored.roundTripBlocks).toBe(0)
    expect(none.stored.decompressMBps).toBeNull()
  })
})

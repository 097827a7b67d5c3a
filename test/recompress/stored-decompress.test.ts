/**
 * The stored row's decompression is timed as a setting's round trip is: the stored payloads of its
 * compressed data blocks decoded again, a batch per timed call, 1 in the round trip's stride of
 * them; not the pass's reading, checking and decoding (readWallMs keeps that).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recompressFile, type RecompressOptions } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { ReadWindow } from '../../src/io/byte-source.js'
import { newScratch } from '../../src/codec/output.js'
import { decompressEstimate, inRoundTrip } from '../../src/recompress/round-trip.js'
import { StoredDecompressTimer } from '../../src/recompress/stored-decompress.js'
import { openTable } from '../../src/table/reader.js'
import { fixturePath, ROOT } from '../helpers.js'

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
    return { sums: timer.finish(), compressed, bytes, sampled, blocks: index }
  } finally {
    table.close()
  }
}

describe('the stored decompression timer', () => {
  // LZ4 and zstd (a dictionary too) through the kernel; zlib, bzip2 and LZ4 before format_version 2 through the reader's own code.
  it.each(['fv5-lz4', 'fv5-snappy', 'fv5-zstd', 'v11-fv7-zstd-dict', 'fv5-zlib', 'fv5-bzip2', 'fv1-lz4'])(
    '%s: every compressed block counted and timed, in batches',
    (name) => {
      const { sums, compressed, bytes } = timedPass(fixturePath(name), 1)
      expect(compressed).toBeGreaterThan(0)
      expect(sums.blocks).toBe(compressed)
      expect(sums.bytes).toBe(bytes)
      expect(sums.timedBlocks).toBe(compressed)
      expect(sums.sumS).toBe(bytes)
      expect(sums.n).toBeGreaterThanOrEqual(1)
      expect(sums.n).toBeLessThanOrEqual(compressed)
      expect(sums.sumC).toBeGreaterThan(0)
      expect(decompressEstimate(sums)).toEqual({ scale: 1, relHalf: 0 })
    },
  )

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

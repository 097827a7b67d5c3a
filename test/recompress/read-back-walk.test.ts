/**
 * Reading back walks each uncompressed block's entries once for all the settings of a lane
 * (pending-round-trip.ts WalkTimes): the same block is the same entries whatever compressed it.
 * Every setting's read CPU still holds the walk of every block it read back.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import { recompressFile, type RecompressOptions } from '../../src/index.js'
import * as readBack from '../../src/recompress/read-back.js'
import { ROOT } from '../helpers.js'

vi.mock('../../src/recompress/read-back.js', async (original) => {
  const real = await original<typeof import('../../src/recompress/read-back.js')>()
  return { ...real, walkEntries: vi.fn(real.walkEntries) }
})

// ~2 MB of blocks, every one round-tripped (a file under twice round-trip.ts SAMPLE_BYTES of data).
const FILE = join(ROOT, 'test/fixtures/db-medium/000019.sst')

const options = (types: number[]): RecompressOptions => ({
  matrix: { types, levels: [1, 3], dicts: ['none', 'raw'], checksums: [false, true] },
  source: { blockSize: null, samplePercent: 100 },
  dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
  jobs: 1,
})

afterEach(() => vi.mocked(readBack.walkEntries).mockClear())

describe('recompress: the read-back walk', () => {
  it('walks each data block once for every setting of the lane, and charges it to each', async () => {
    const r = await recompressFile(FILE, options([CompressionType.ZSTD, CompressionType.None]))
    // zstd 1 and 3 × none/raw × checksum off/on, and none: 9 settings reading the same blocks back.
    expect(r.results.length).toBe(9)
    expect(r.roundTripStride).toBe(1)
    const blocks = r.stored.blocks
    expect(blocks).toBeGreaterThan(300)
    expect(vi.mocked(readBack.walkEntries).mock.calls.length).toBe(blocks)
    for (const x of r.results) {
      expect(x.blocks).toBe(blocks)
      // The walk (shared) and the checksums are in each row's read CPU, beyond its decompression.
      expect(x.readCpuMs!, `${x.type} ${x.level} ${x.dict} ${x.checksum}`).toBeGreaterThan(x.decompressMs)
    }
    // The none row decompresses nothing: its read CPU is the checksums and the walk, the same walk as every row's.
    const none = r.results.find((x) => x.type === 'none')!
    expect(none.decompressMs).toBe(0)
    expect(none.readCpuMs!).toBeGreaterThan(0)
  })

  it('one setting walks each block once too', async () => {
    const r = await recompressFile(FILE, {
      ...options([CompressionType.ZSTD]),
      matrix: { types: [CompressionType.ZSTD], levels: [3], dicts: ['none'], checksums: [false] },
    })
    expect(vi.mocked(readBack.walkEntries).mock.calls.length).toBe(r.stored.blocks)
  })
})

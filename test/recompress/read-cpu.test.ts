/**
 * Each row's read CPU (readCpuMs, sst_dump's read test less the file's I/O and index): the thread CPU
 * of reading the row's data blocks back as a reader does (checksum, decompression, every entry
 * walked). Every row has it, none included (its blocks are checksummed and walked too); on a file
 * whose every block is round-tripped it holds the decompression; more data costs more. The entry
 * walk meets every entry of a block.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recompressFile, type RecompressOptions } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { openTable } from '../../src/table/reader.js'
import { BlockIter } from '../../src/format/block.js'
import { walkEntries } from '../../src/recompress/read-back.js'
import { ROOT } from '../helpers.js'

const SMALL = join(ROOT, 'examples/sample.sst')
// About 23 times the sample's data (3.9 MB against 170 KB, uncompressed).
const LARGE = join(ROOT, 'test/fixtures/db-medium/000009.sst')

const options = (o: Partial<RecompressOptions> = {}): RecompressOptions => ({
  matrix: {
    types: [CompressionType.ZSTD, CompressionType.LZ4, CompressionType.Snappy, CompressionType.None],
    levels: [1],
    dicts: ['none'],
    checksums: [false],
  },
  source: { blockSize: null, samplePercent: 100 },
  dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
  jobs: 1,
  ...o,
})

describe('recompress: per-row read CPU', () => {
  it.each([1, 2])('every row has it, positive, holding the decompression of its blocks (--jobs %i)', async (jobs) => {
    const report = await recompressFile(SMALL, options({ jobs, source: { blockSize: 4096, samplePercent: 100 } }))
    expect(report.roundTripStride).toBe(1)
    expect(report.results.map((r) => r.type)).toEqual(['zstd', 'lz4', 'snappy', 'none'])
    for (const r of report.results) {
      expect(r.readCpuMs, r.type).not.toBeNull()
      expect(r.readCpuMs!, r.type).toBeGreaterThan(0)
      // Every compressed block was round-tripped: the read holds that very decompression time.
      expect(r.readCpuMs!, r.type).toBeGreaterThanOrEqual(r.decompressMs)
    }
  })

  it('more data costs more to read back', async () => {
    // The code is compiled by a first run, so that neither file pays for it.
    await recompressFile(LARGE, options())
    const small = await recompressFile(SMALL, options())
    const large = await recompressFile(LARGE, options())
    expect(large.stored.uncompressedBytes).toBeGreaterThan(20 * small.stored.uncompressedBytes)
    for (const [i, r] of large.results.entries()) expect(r.readCpuMs!, r.type).toBeGreaterThan(small.results[i].readCpuMs!)
  })

  it('is null without a round trip (nothing read back)', async () => {
    const report = await recompressFile(SMALL, options({ roundTrip: 'none' }))
    for (const r of report.results) expect(r.readCpuMs, r.type).toBeNull()
  })

  it("walks every entry of a data block, as the table reader's iterator counts them", () => {
    const table = openTable(LARGE)
    try {
      let blocks = 0
      for (const { handle } of table.dataBlocks()) {
        const data = table.readDataBlock(handle)
        let n = 0
        const it = new BlockIter(data, 0, 'data block', table.dataRestartInterval)
        for (it.seekToFirst(); it.valid; it.next()) n++
        expect(walkEntries(data, table.dataRestartInterval)).toBe(n)
        blocks++
      }
      expect(blocks).toBe(950)
    } finally {
      table.close()
    }
  })
})

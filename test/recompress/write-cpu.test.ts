/**
 * Each row's write CPU (writeCpuMs, sst_dump's write test less its reading of the input): the
 * thread CPU of the row's whole table write, which holds its data blocks' compression (compressMs)
 * and more: the placing of blocks, the index and meta blocks. A table without compression costs
 * its writer too. On one thread and on several (each row is written on one lane's thread).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recompressFile } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { ROOT } from '../helpers.js'

const SAMPLE = join(ROOT, 'examples/sample.sst')

describe('recompress: per-row write CPU', () => {
  it.each([1, 2])('covers the compression and the rest of the table write (--jobs %i)', async (jobs) => {
    const report = await recompressFile(SAMPLE, {
      matrix: { types: [CompressionType.ZSTD, CompressionType.LZ4, CompressionType.None], levels: [1, 9], dicts: ['none', 'raw'], checksums: [false, true] },
      source: { blockSize: 16384, samplePercent: 100 },
      dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
      jobs,
    })
    expect(report.results.length).toBeGreaterThan(6)
    for (const r of report.results) {
      const label = `${r.type} ${r.level} ${r.dict} ${r.checksum}`
      expect(r.writeCpuMs, label).toBeGreaterThan(0)
      // Thread CPU read around calls that hold the compression: never below it (2% for the clock's reads).
      expect(r.writeCpuMs, label).toBeGreaterThanOrEqual(r.compressMs * 0.98)
    }
    const none = report.results.find((r) => r.type === 'none')!
    expect(none.compressMs).toBe(0)
    const z9 = report.results.find((r) => r.type === 'zstd' && r.level === 9 && r.dict === 'none' && !r.checksum)!
    expect(z9.writeCpuMs).toBeGreaterThan(none.writeCpuMs)
  })
})

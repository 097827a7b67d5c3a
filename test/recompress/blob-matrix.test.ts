import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openBlobFile } from '../../src/blob/reader.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { FileByteSource } from '../../src/io/byte-source.js'
import {
  type BlobSetting,
  blobMatrixReport,
  blobRegression,
  defaultBlobSettings,
  emptyBlobSums,
  addBlobRecord,
  sampleBlobFile,
  lz4OneShotFor,
} from '../../src/recompress/blob-matrix.js'
import { BLOB_FIXTURES } from '../blob/ldb-dump.js'

const open = (file: string) => openBlobFile(new FileByteSource(join(BLOB_FIXTURES, file)))
const size = (file: string) => statSync(join(BLOB_FIXTURES, file)).size

function matrix(file: string, settings: BlobSetting[], rate?: number, lz4OneShot?: boolean) {
  const blob = open(file)
  try {
    return blobMatrixReport(blob, settings, sampleBlobFile(blob, settings, { rate, lz4OneShot }))
  } finally {
    blob.close()
  }
}

const ALL = defaultBlobSettings([CompressionType.None, CompressionType.Snappy, CompressionType.LZ4, CompressionType.ZSTD])

describe('blob recompress matrix against the files real RocksDB wrote from the same values', () => {
  // db_bench 7.8.3 wrote the same 16 values (--seed=7) with each blob_compression_type.
  it.each(['dbbench-none/000009.blob', 'dbbench-snappy/000009.blob', 'dbbench-zstd/000009.blob'])(
    '%s: every codec projects the real file of that codec',
    (file) => {
      const report = matrix(file, ALL)
      expect(report.exact).toBe(true)
      expect(report.records).toBe(16)
      const bytes = Object.fromEntries(report.results.map((r) => [r.label, r.fileBytes]))
      expect(bytes.none.estimate).toBe(size('dbbench-none/000009.blob'))
      expect(bytes.snappy.estimate).toBe(size('dbbench-snappy/000009.blob'))
      expect(bytes.zstd.estimate).toBe(size('dbbench-zstd/000009.blob'))
      // dbbench-lz4 cut the same records into two files at --blob_file_size=6000: one header and footer fewer.
      expect(bytes.lz4.estimate).toBe(size('dbbench-lz4/000009.blob') + size('dbbench-lz4/000010.blob') - 30 - 32)
      for (const r of report.results) expect([r.fileBytes.low, r.fileBytes.high]).toEqual([r.fileBytes.estimate, r.fileBytes.estimate])
      expect(report.rawValueBytes.estimate).toBe(16 * 1000)
    },
  )

  it('the stored setting projects the file itself (RocksDB 11.8.1, lz4 and zstd column families)', () => {
    for (const [file, type] of [
      ['v11/000009.blob', CompressionType.LZ4],
      ['v11/000013.blob', CompressionType.ZSTD],
    ] as const) {
      const report = matrix(file, defaultBlobSettings([type]), undefined, lz4OneShotFor([11, 8]))
      expect(report.results[0].fileBytes.estimate).toBe(size(file))
      expect(report.results[0].vsStored).toBe(0)
    }
  })

  it("LZ4 of RocksDB before 10.8 (a fresh stream) is not 11.8.1's one-shot LZ4: the release decides", () => {
    expect(lz4OneShotFor([7, 8])).toBe(false)
    expect(lz4OneShotFor([10, 8])).toBe(true)
    const stream = matrix('v11/000009.blob', defaultBlobSettings([CompressionType.LZ4]), undefined, false)
    expect(stream.results[0].fileBytes.estimate).not.toBe(size('v11/000009.blob'))
  })

  it('a sample of the records: counts exact, value bytes within the interval of the exhaustive figure', () => {
    const full = matrix('dbbench-none/000009.blob', ALL)
    const half = matrix('dbbench-none/000009.blob', ALL, 0.5)
    expect(half.exact).toBe(false)
    expect(half.sampledRecords).toBe(8)
    expect(half.records).toBe(16)
    for (const [i, r] of half.results.entries()) {
      const truth = full.results[i].fileBytes.estimate
      expect(r.fileBytes.low).toBeLessThanOrEqual(truth)
      expect(r.fileBytes.high).toBeGreaterThanOrEqual(truth)
      // Every value is 1000 bytes uncompressed: 'none' has no spread; the codecs' sizes do.
      if (r.label === 'none') expect(r.fileBytes.high).toBe(r.fileBytes.low)
      else expect(r.fileBytes.high).toBeGreaterThan(r.fileBytes.low)
    }
  })
})

describe('blobRegression', () => {
  it('is exact at rate 1 and follows the stored sizes when c = 2s + 10', () => {
    const sums = emptyBlobSums()
    for (const s of [100, 200, 300]) addBlobRecord(sums, 2 * s + 10, s)
    expect(blobRegression(sums, 600, 3, 1).estimate).toBe(1230)
    // Three of six records (stored 100..600 in all 2100): a perfect line predicts 2·2100 + 60.
    const half = blobRegression(sums, 2100, 6, 0.5)
    expect(half.estimate).toBeCloseTo(4260, 6)
    expect(half.high - half.low).toBeCloseTo(0, 6)
  })
})

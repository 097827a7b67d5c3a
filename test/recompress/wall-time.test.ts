/**
 * Each row's write and read wall time (writeWallMs, readWallMs): the wall clock read where the row's
 * thread CPU is (writeCpuMs, readCpuMs), the read scaled as its CPU. Only their presence and shape
 * are asserted (a number >= 0, null exactly where the CPU figure is), never a bound on time: wall
 * against CPU depends on what else the machine runs. On one thread and on several, with checksum
 * twins (a zstd +checksum row reuses its plain row's frames), and in JSON, CSV and --wide.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recompressFile, type RecompressOptions } from '../../src/index.js'
import { CompressionType } from '../../src/codec/compression.js'
import { recompressJson, recompressModel, renderRecompress } from '../../src/report/recompress.js'
import { ROOT } from '../helpers.js'

const SAMPLE = join(ROOT, 'examples/sample.sst')

const options = (o: Partial<RecompressOptions> = {}): RecompressOptions => ({
  matrix: { types: [CompressionType.ZSTD, CompressionType.LZ4, CompressionType.None], levels: [1], dicts: ['none'], checksums: [false, true] },
  source: { blockSize: 4096, samplePercent: 100 },
  dict: { maxDictBytes: 4096, trainBytes: 409600, maxDictBufferBytes: 0 },
  jobs: 1,
  ...o,
})

describe('recompress: per-row write and read wall time', () => {
  it.each([1, 2])('every row has both, numbers >= 0, where its CPU figures are (--jobs %i)', async (jobs) => {
    const report = await recompressFile(SAMPLE, options({ jobs }))
    // The checksum flag is zstd's alone: zstd, its +checksum twin, lz4, none.
    expect(report.results.map((r) => `${r.type}${r.checksum ? '+' : ''}`)).toEqual(['zstd', 'zstd+', 'lz4', 'none'])
    for (const r of report.results) {
      const label = `${r.type} ${r.level} ${r.checksum}`
      expect(typeof r.writeWallMs, label).toBe('number')
      expect(Number.isFinite(r.writeWallMs), label).toBe(true)
      expect(r.writeWallMs, label).toBeGreaterThanOrEqual(0)
      expect(r.readCpuMs, label).not.toBeNull()
      expect(typeof r.readWallMs, label).toBe('number')
      expect(Number.isFinite(r.readWallMs), label).toBe(true)
      expect(r.readWallMs!, label).toBeGreaterThanOrEqual(0)
    }
  })

  it('the read wall time is null exactly where the read CPU is: without a round trip', async () => {
    const report = await recompressFile(SAMPLE, options({ roundTrip: 'none' }))
    for (const r of report.results) {
      expect(r.readCpuMs, r.type).toBeNull()
      expect(r.readWallMs, r.type).toBeNull()
      // Writing is measured on every row still.
      expect(r.writeWallMs, r.type).toBeGreaterThanOrEqual(0)
    }
  })

  it('JSON carries both fields; CSV has them as its last two columns; --wide beside the CPU columns', async () => {
    const report = await recompressFile(SAMPLE, options())
    const json = recompressJson(report)
    for (const [i, r] of json.results.entries()) {
      expect(r.writeWallMs).toBe(report.results[i].writeWallMs)
      expect(r.readWallMs).toBe(report.results[i].readWallMs)
    }
    // JSON.stringify keeps them (numbers, not undefined or NaN).
    const parsed = JSON.parse(JSON.stringify(json))
    for (const r of parsed.results) {
      expect(typeof r.writeWallMs).toBe('number')
      expect(typeof r.readWallMs).toBe('number')
    }

    const csv = recompressModel(report, 'csv')
    const headers = csv.columns.map((c) => c.header)
    expect(headers.slice(-3)).toEqual(['Strategy', 'Write wall ms', 'Read wall ms'])
    // The older columns keep their positions.
    expect(headers.indexOf('Write CPU ms')).toBe(14)
    expect(headers.indexOf('Read CPU ms')).toBe(15)
    expect(csv.rows[0].slice(-2)).toEqual(['', '']) // the stored row: not written nor read back here
    for (const row of csv.rows.slice(1)) {
      const [write, read] = row.slice(-2).map(String)
      expect(write).toMatch(/^\d+\.\d\d$/)
      expect(read).toMatch(/^\d+\.\d\d$/)
    }
    const lines = renderRecompress(report, 'csv').trim().split('\n')
    expect(lines[0].split(',').slice(-2)).toEqual(['Write wall ms', 'Read wall ms'])

    const wide = recompressModel(report, 'table', { wide: true }).columns.map((c) => c.header)
    const cpu = wide.indexOf('Read CPU ms')
    expect(wide.slice(cpu - 1, cpu + 3)).toEqual(['Write CPU ms', 'Read CPU ms', 'Write wall ms', 'Read wall ms'])
    expect(recompressModel(report, 'table').columns.map((c) => c.header)).not.toContain('Write wall ms')
  })

  it('CSV leaves the read wall cell empty where the read CPU cell is', async () => {
    const report = await recompressFile(SAMPLE, options({ roundTrip: 'none' }))
    const csv = recompressModel(report, 'csv')
    const readCpu = csv.columns.findIndex((c) => c.header === 'Read CPU ms')
    for (const row of csv.rows.slice(1)) {
      expect(row[readCpu]).toBe('')
      expect(row.at(-1)).toBe('')
      expect(String(row.at(-2))).toMatch(/^\d+\.\d\d$/)
    }
  })
})

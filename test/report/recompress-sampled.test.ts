/**
 * A sampled decompression speed (the round trip's sample, src/recompress/round-trip.ts) states
 * its interval everywhere it is shown (table, Markdown, CSV, JSON) and enters the marks and the
 * verdict as an interval. Sizes from a real recompression of the sample; the timings and
 * intervals are set by the test (a 57 KB file is round-tripped whole, and its timings are noise).
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import { recompressFile, type RecompressReport, type RecompressResult } from '../../src/index.js'
import { markResults } from '../../src/recompress/engine.js'
import { renderRecompress, renderRecompressNotes } from '../../src/report/recompress.js'
import { estimateOfResult } from '../../src/report/recompress-verdict.js'
import { ROOT } from '../helpers.js'

let real: RecompressReport

beforeAll(async () => {
  real = await recompressFile(join(ROOT, 'examples/sample.sst'), {
    matrix: { types: [CompressionType.ZSTD], levels: [1, 3], dicts: ['none'], checksums: [false] },
    source: { blockSize: null, samplePercent: 100 },
    dict: { maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 0 },
    jobs: 1,
  })
})

/** Sound timings; decompression per level in MB/s with a ±share interval (0: exact). */
function sampled(speeds: Record<number, [number, number]>): RecompressReport {
  const results = real.results.map((r) => {
    const [mbps, share] = speeds[r.level!]
    return {
      ...r,
      compressMs: 100 * r.level!,
      compressMBps: r.uncompressedBytes / 1e6 / (0.1 * r.level!),
      compressNoisy: false,
      decompressMs: (r.uncompressedBytes / 1e6 / mbps) * 1000,
      decompressMBps: mbps,
      decompressNoisy: false,
      decompressInterval: share === 0 ? null : { low: mbps / (1 + share), high: mbps / (1 - share) },
      roundTripBlocks: share === 0 ? r.blocksCompressed : Math.ceil(r.blocksCompressed / 8),
      marks: [],
    }
  })
  return { ...real, results, roundTrip: 'sample', roundTripStride: 8 }
}

const marked = (rs: RecompressResult[]) => rs.filter((r) => r.marks.includes('fastest-decompress')).map((r) => r.level)

describe('a sampled decompression speed', () => {
  it('is marked fastest only when no other interval reaches it; exact speeds as before (a tie marks both)', () => {
    const apart = sampled({ 1: [900, 0.02], 3: [800, 0.02] }).results
    markResults(apart)
    expect(marked(apart)).toEqual([1])
    const overlapping = sampled({ 1: [900, 0.02], 3: [870, 0.02] }).results
    markResults(overlapping)
    expect(marked(overlapping)).toEqual([])
    const exact = sampled({ 1: [900, 0], 3: [870, 0] }).results
    markResults(exact)
    expect(marked(exact)).toEqual([1])
    const tie = sampled({ 1: [900, 0], 3: [900, 0] }).results
    markResults(tie)
    expect(marked(tie)).toEqual([1, 3])
  })

  it("enters the verdict's estimate as an interval (widened to the repeats' spread when that is wider)", () => {
    const r = sampled({ 1: [900, 0.02], 3: [800, 0] }).results
    const one = estimateOfResult(r[0], 1).decompressMBps
    expect(one.value).toBe(900)
    expect(one.low).toBeCloseTo(900 / 1.02, 9)
    expect(one.high).toBeCloseTo(900 / 0.98, 9)
    expect(estimateOfResult(r[1], 1).decompressMBps).toMatchObject({ value: 800, low: null, high: null })
    const spread = estimateOfResult({ ...r[0], decompressSpread: 0.2 }, 3).decompressMBps
    expect(spread.low).toBeCloseTo(900 * 0.9, 9)
    expect(spread.high).toBeCloseTo(900 * 1.1, 9)
  })

  it('shows its interval in the table, Markdown and CSV', () => {
    const report = sampled({ 1: [900, 0.012], 3: [800, 0] })
    const table = renderRecompress(report, 'table')
    expect(table).toMatch(/│ zstd 1 .*│ 900 ±2% │/)
    expect(table).toMatch(/│ zstd 3 .*│\s+800 │/)
    for (const l of table.split('\n')) expect(l.length, l).toBeLessThanOrEqual(100)
    expect(renderRecompress(report, 'markdown')).toMatch(/^\| zstd 1 \|.*\| 900 ±2% \|/m)
    expect(renderRecompress(report, 'markdown', { wide: true })).toMatch(/\| 900 ±2% \|/)
    const csv = renderRecompress(report, 'csv')
      .split('\n')
      .map((l) => l.split(','))
    const head = csv[0]
    const l1 = csv.find((c) => c[0] === 'zstd' && c[1] === '1')!
    const l3 = csv.find((c) => c[0] === 'zstd' && c[1] === '3')!
    expect(l1[head.indexOf('Decomp MB/s low')]).toBe(String(Math.round(900 / 1.012)))
    expect(l1[head.indexOf('Decomp MB/s high')]).toBe(String(Math.round(900 / 0.988)))
    expect(l1[head.indexOf('Round-trip blocks')]).toBe(String(Math.ceil(real.results[0].blocksCompressed / 8)))
    expect([l3[head.indexOf('Decomp MB/s low')], l3[head.indexOf('Decomp MB/s high')]]).toEqual(['', ''])
  })

  it('is noise, and says why, when its interval is too wide', () => {
    const report = sampled({ 1: [900, 0.2], 3: [800, 0] })
    report.results[0].decompressNoisy = true
    const table = renderRecompress(report, 'table')
    // The wider side: 900 / 0.8 is 25% above.
    expect(table).toMatch(/│ zstd 1 .*│ ~900 ±25% │/)
    expect(table.replace(/\s+/g, ' ')).toContain('or a sampled interval over ±5%; not ranked on')
  })
})

describe('the notes under the table', () => {
  const note =
    '1 in 8 data blocks of each setting decompressed and compared with the original: decompression speeds are estimates, ± their 95% interval (--verify-compression: every block)'
  it('a table wraps each note within 100 columns (or a narrower terminal), every word kept', () => {
    for (const width of [undefined, 60]) {
      const lines = renderRecompressNotes([note], 'table', { width })
      expect(lines.length).toBeGreaterThan(1)
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(width ?? 100)
      expect(lines[0].startsWith('note: 1 in 8')).toBe(true)
      expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true)
      expect(lines.join(' ').split(/\s+/).filter(Boolean)).toEqual(`note: ${note}`.split(' '))
    }
  })
  it('Markdown gives each note its own paragraph; CSV one line each', () => {
    expect(renderRecompressNotes([note, 'b'], 'markdown')).toEqual(['', `note: ${note}`, '', 'note: b'])
    expect(renderRecompressNotes([note], 'csv')).toEqual([`note: ${note}`])
  })
})

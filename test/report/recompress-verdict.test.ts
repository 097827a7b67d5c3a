/**
 * The recompress verdict is advise's decision over exact results. Sizes come
 * from a real recompression of the sample; the timings are set by the test
 * (synthetic, so that the rule is checked the same on any machine: on a 57 KB
 * file real timings are noise).
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import { recompressFile, type RecompressReport, type RecompressResult } from '../../src/index.js'
import { estimateOfResult, recompressVerdict, resultLabel, VERDICT_RULE } from '../../src/report/recompress-verdict.js'
import { ROOT } from '../helpers.js'

let real: RecompressReport

beforeAll(async () => {
  real = await recompressFile(join(ROOT, 'examples/sample.sst'), {
    matrix: { types: [CompressionType.ZSTD], levels: [1, 3, 19], dicts: ['none', 'finalize'], checksums: [false] },
    source: { blockSize: null, samplePercent: 100 },
    dict: { maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 0 },
    jobs: 1,
  })
})

/** Synthetic compression times per level (ms over the whole file), sound unless listed as noisy. */
const MS: Record<number, number> = { 1: 100, 3: 150, 19: 9000 }

function withTimings(report: RecompressReport, noisy: (r: RecompressResult) => boolean = () => false): RecompressReport {
  const results = report.results.map((r) => {
    const ms = MS[r.level!]
    return {
      ...r,
      compressMs: ms,
      compressMBps: r.uncompressedBytes / 1e6 / (ms / 1000),
      compressNoisy: noisy(r),
      decompressMs: 60,
      decompressMBps: r.uncompressedBytes / 1e6 / 0.06,
      decompressNoisy: false,
    }
  })
  return { ...report, results }
}

const size = (r: RecompressResult) => r.dataBytes + r.dictBytes

describe('recompress verdict', () => {
  it('turns an exact result into an estimate whose interval is the point, and a noisy timing into an unmeasured one', () => {
    const r = withTimings(real, (x) => x.level === 1).results
    const sound = estimateOfResult(r.find((x) => x.level === 3)!, 1)
    expect(sound.bytes.low).toBe(sound.bytes.estimate)
    expect(sound.bytes.high).toBe(sound.bytes.estimate)
    expect(sound.setting.label).toBe('zstd 3')
    // 1000 / MB/s = s/GB; one run has no interval.
    expect(sound.compressSecPerGB.value).toBeCloseTo(150 / (real.results[0].uncompressedBytes / 1e6), 9)
    expect(sound.compressSecPerGB).toMatchObject({ low: null, high: null, noisy: false })
    const noisy = estimateOfResult(r.find((x) => x.level === 1)!, 1)
    expect(noisy.compressSecPerGB).toEqual({ value: null, low: null, high: null, noisy: true })
  })

  it("with sound timings: the smallest within advise's multiple of the fastest setting's compression CPU, as advise decides for files", () => {
    const report = withTimings(real)
    const v = recompressVerdict(report)!
    expect(v.rankedOnSpeed).toBe(true)
    // advise's rule for files without levels, e.g. "within 2x the fastest codec's CPU".
    const factor = Number(/^within ([\d.]+)x the fastest codec's CPU$/.exec(VERDICT_RULE)![1])
    expect(factor).toBeGreaterThan(1)
    expect(factor * MS[1]).toBeLessThan(MS[19]) // the synthetic timings leave zstd 19 outside the limit
    const fastest = Math.min(...report.results.map((r) => r.compressMs))
    const within = report.results.filter((r) => r.compressMs <= factor * fastest)
    const expected = within.reduce((a, b) => (size(b) < size(a) ? b : a))
    expect(v.recommended.label).toBe(resultLabel(expected))
    expect(v.recommended.level).not.toBe(19)
    expect(v.text).toMatch(/^verdict: zstd \d+( dict=\w+)? — /)
    expect(v.text).toContain(`— smallest ${VERDICT_RULE}`)
    expect(v.runnerUp).not.toBeNull()
    expect(v.text).toMatch(/runner-up .+ \(\+\d+\.\d% bytes, [\d.]+x the compression CPU\)/)
    // What the limit left out: the smallest setting, its saving and its CPU (60x here).
    const smallest = report.results.reduce((a, b) => (size(b) < size(a) ? b : a))
    expect(v.text).toContain(`; smallest ${resultLabel(smallest)} (-`)
    expect(v.text).toMatch(/bytes, 60x the compression CPU\)$/)
  })

  it('one noisy compression timing: no CPU limit rests on it, the choice is by size and says so', () => {
    const report = withTimings(real, (r) => r.level === 1)
    const v = recompressVerdict(report)!
    expect(v.rankedOnSpeed).toBe(false)
    const smallest = Math.min(...report.results.map(size))
    const pick = report.results.find((r) => resultLabel(r) === v.recommended.label)!
    expect(size(pick)).toBeLessThanOrEqual(smallest * 1.01)
    expect(v.recommended.level).toBe(19)
    expect(v.text).toContain('were not weighed')
  })

  it('auto-skip variants are not candidates', () => {
    const report = withTimings(real)
    const variants = report.results.map((r) => ({ ...r, autoSkip: 'ratio' as const, dataBytes: 1 }))
    const v = recompressVerdict({ ...report, results: [...report.results, ...variants] })!
    expect(v.recommended.label).toBe(recompressVerdict(report)!.recommended.label)
    expect(recompressVerdict({ ...report, results: variants })).toBeNull()
  })
})

import { describe, expect, it } from 'vitest'
import {
  withUnreadFiles,
  addBlock,
  clearlyBelow,
  emptySums,
  mergeSums,
  rateFor,
  regressionEstimate,
  relativeHalfWidth,
  t95,
  timing,
} from '../../src/decide/estimate.js'
import { blockDraw, fileKey, inShard, parseShard } from '../../src/advise/sampling.js'

/** A synthetic population of blocks: stored size s and size under some setting c, correlated as real blocks are. */
function population(n: number, seed: number): { s: number; c: number }[] {
  let x = seed >>> 0
  const rand = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 0x100000000
  return Array.from({ length: n }, () => {
    const s = 1200 + Math.floor(rand() * 2800)
    const c = Math.round(s * (0.7 + 0.2 * rand()) + 40)
    return { s, c }
  })
}

function sample(pop: { s: number; c: number }[], seed: number, rate: number) {
  const sums = emptySums()
  pop.forEach((b, i) => {
    if (blockDraw(seed, fileKey('f.sst', null), i * 4096) < rate) addBlock(sums, b.c, b.s, 4096, false)
  })
  const total = pop.reduce((a, b) => a + b.s, 0)
  return { sums, total, truth: pop.reduce((a, b) => a + b.c, 0) }
}

describe('regression estimator', () => {
  it('is exact when every block is sampled', () => {
    const pop = population(500, 1)
    const { sums, total, truth } = sample(pop, 0, 1)
    const e = regressionEstimate(sums, total, pop.length, 1)
    expect(e.estimate).toBeCloseTo(truth, 6)
    expect(e.low).toBe(e.estimate)
    expect(e.high).toBe(e.estimate)
  })

  it('its 95% interval covers the truth in about 95% of samples', () => {
    const pop = population(4000, 7)
    let covered = 0
    const trials = 400
    for (let seed = 0; seed < trials; seed++) {
      const { sums, total, truth } = sample(pop, seed, 0.05)
      const e = regressionEstimate(sums, total, pop.length, 0.05)
      if (e.low <= truth && truth <= e.high) covered++
    }
    expect(covered / trials).toBeGreaterThan(0.9)
    expect(covered / trials).toBeLessThan(0.99)
  })

  it('narrows as the rate grows, and rateFor predicts the rate that reaches a target', () => {
    const pop = population(20000, 3)
    const a = sample(pop, 5, 0.02)
    const wa = relativeHalfWidth(regressionEstimate(a.sums, a.total, pop.length, 0.02))
    const target = wa / 3
    const next = rateFor(wa, 0.02, target)
    expect(next).toBeGreaterThan(0.02)
    const b = sample(pop, 5, next)
    const wb = relativeHalfWidth(regressionEstimate(b.sums, b.total, pop.length, next))
    expect(wb).toBeLessThan(wa)
    expect(wb).toBeLessThan(target * 1.3)
    expect(wb).toBeGreaterThan(target * 0.7)
  })

  it('has no bias when the size under a setting is the stored size plus a constant (a frame checksum)', () => {
    const pop = population(6000, 11).map((b) => ({ s: b.s, c: b.s + 4 }))
    const { sums, total, truth } = sample(pop, 3, 0.2)
    const e = regressionEstimate(sums, total, pop.length, 0.2)
    expect(Math.abs(e.estimate - truth)).toBeLessThan(1e-6 * truth)
    expect(e.low).toBeLessThanOrEqual(truth + 1)
    expect(e.high).toBeGreaterThanOrEqual(truth - 1)
  })

  it('sums of disjoint parts merge to the sums of the whole, exactly', () => {
    const pop = population(3000, 9)
    const whole = emptySums()
    const parts = [emptySums(), emptySums(), emptySums()]
    pop.forEach((b, i) => {
      addBlock(whole, b.c, b.s, 4096, i % 7 === 0)
      addBlock(parts[i % 3], b.c, b.s, 4096, i % 7 === 0)
    })
    const merged = parts.reduce(mergeSums, emptySums())
    for (const k of ['n', 'sumC', 'sumS', 'sumCC', 'sumCS', 'sumSS', 'sumU', 'rejected'] as const) expect(merged[k]).toBe(whole[k])
  })
})

describe('block draws', () => {
  it('are uniform, stable, and nested: a higher rate only adds blocks', () => {
    const key = fileKey('000012.sst', 12)
    const draws = Array.from({ length: 20000 }, (_, i) => blockDraw(42, key, i * 4133))
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true)
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length
    expect(mean).toBeGreaterThan(0.49)
    expect(mean).toBeLessThan(0.51)
    expect(blockDraw(42, key, 4133)).toBe(draws[1])
    expect(blockDraw(43, key, 4133)).not.toBe(draws[1])
    const at = (r: number) => new Set(draws.flatMap((d, i) => (d < r ? [i] : [])))
    const small = at(0.1)
    const large = at(0.3)
    for (const i of small) expect(large.has(i)).toBe(true)
    expect(small.size / draws.length).toBeGreaterThan(0.09)
    expect(small.size / draws.length).toBeLessThan(0.11)
  })

  it('shards deal files round-robin and reject malformed specs', () => {
    expect(parseShard('1/4')).toEqual({ index: 1, count: 4 })
    expect(() => parseShard('4/4')).toThrow(/0 <= K < N/)
    expect(() => parseShard('x')).toThrow(/K\/N/)
    expect([0, 1, 2, 3, 4, 5].filter((p) => inShard({ index: 1, count: 3 }, p))).toEqual([1, 4])
  })
})

describe('timings', () => {
  it('a steady rate is not noisy; a scattered one is, and noisy timings are never ranked', () => {
    const steady = timing(null, [10, 10.2, 9.9, 10.1, 10, 9.8, 10.05, 9.95])
    expect(steady.noisy).toBe(false)
    expect(steady.value).toBeCloseTo(10, 1)
    expect(steady.low!).toBeLessThan(10)
    expect(steady.high!).toBeGreaterThan(10)
    // A median resists one spike from a busy neighbour...
    expect(timing(null, [10, 10.2, 9.9, 60, 10, 9.8, 10.05, 9.95]).value).toBeCloseTo(10, 0)
    // ...but not a spread that could reverse a ranking.
    const scattered = timing(null, [4, 18, 7, 15, 9, 12, 5, 16])
    expect(scattered.noisy).toBe(true)
    expect(timing(10, [10, 10, 10]).noisy).toBe(true)
    expect(timing(10, []).value).toBe(10)
    const slow = timing(null, [20, 20.3, 19.8, 20.1, 20, 19.9, 20.2, 20.05])
    expect(clearlyBelow(steady, slow)).toBe(true)
    expect(clearlyBelow(slow, steady)).toBe(false)
    expect(clearlyBelow(scattered, slow)).toBe(false)
  })
})

describe('the spread between files (levels whose files were not all read)', () => {
  /** Files of varied size whose compressed total varies around a common ratio, as files of one level do. */
  function files(n: number, seed: number): { x: number; y: number }[] {
    let v = seed >>> 0
    const rand = () => (v = (Math.imul(v, 1664525) + 1013904223) >>> 0) / 0x100000000
    return Array.from({ length: n }, () => {
      const x = 20e6 + rand() * 48e6
      return { x, y: x * (0.3 + 0.1 * rand()) }
    })
  }

  it('its 95% interval covers the level total in about 95% of size-proportional samples of files read', () => {
    const all = files(300, 5)
    const truth = all.reduce((a, f) => a + f.y, 0)
    let v = 99
    const rand = () => (v = (Math.imul(v, 22695477) + 1) >>> 0) / 0x100000000
    for (const m of [10, 30]) {
      let covered = 0
      const trials = 600
      for (let k = 0; k < trials; k++) {
        // Sequential Poisson sampling in proportion to size, as population.ts draws files: the m smallest u / x.
        const order = all.map((f) => ({ f, key: rand() / f.x })).sort((a, b) => a.key - b.key)
        const read = order.slice(0, m).map((o) => o.f)
        const unread = order.slice(m).map((o) => o.f)
        const i = withUnreadFiles(
          { estimate: read.reduce((a, f) => a + f.y, 0), half: 0 },
          read.map((f) => f.y / f.x),
          unread.reduce((a, f) => a + f.x, 0),
          unread.reduce((a, f) => a + f.x * f.x, 0),
        )
        if (truth >= i.low && truth <= i.high) covered++
      }
      expect(covered / trials, `${m} files read`).toBeGreaterThan(0.91)
      expect(covered / trials, `${m} files read`).toBeLessThan(0.995)
    }
    // Every file read: nothing to extrapolate, the files' own interval.
    expect(withUnreadFiles({ estimate: 10, half: 1 }, [0.3, 0.4], 0, 0)).toEqual({ estimate: 10, low: 9, high: 11 })
    expect(withUnreadFiles({ estimate: 10, half: 1 }, [0.3, 0.4], 0, 0, { perFile: [5, 5], unreadFiles: 0 })).toEqual({ estimate: 10, low: 9, high: 11 })
    // One file read: the unread part is as uncertain as itself.
    expect(withUnreadFiles({ estimate: 10, half: 0 }, [0.5], 100, 100 * 100)).toEqual({ estimate: 60, low: 10, high: 110 })
    expect(t95(2)).toBeCloseTo(4.303, 3)
    expect(t95(1000)).toBeCloseTo(1.96, 2)
  })
})

describe('a fixed part of every file (its dictionary block) outside the ratio', () => {
  it("prices an unread small file at its dictionary plus its data, not at a large file's share of its size", () => {
    // Four 1 MB files read and a 60 KB tail file unread, each with a 16 KiB dictionary and data at 0.78 of its size.
    const dict = 16389
    const read = [1.09e6, 1.09e6, 1.09e6, 1.09e6]
    const tail = 6e4
    const truth = [...read, tail].reduce((a, x) => a + 0.78 * x + dict, 0)
    const readTotal = read.reduce((a, x) => a + 0.78 * x + dict, 0)
    const asRatio = withUnreadFiles(
      { estimate: readTotal, half: 0 },
      read.map((x) => (0.78 * x + dict) / x),
      tail,
      tail * tail,
    )
    const apart = withUnreadFiles(
      { estimate: readTotal, half: 0 },
      read.map(() => 0.78),
      tail,
      tail * tail,
      { perFile: read.map(() => dict), unreadFiles: 1 },
    )
    expect(apart.estimate).toBeCloseTo(truth, 3)
    // In the ratio, the tail's dictionary is priced at 60 KB x 16 KiB / 1.09 MB: 15.5 KB short.
    expect(truth - asRatio.estimate).toBeGreaterThan(15e3)
  })

  it('adds the spread of the fixed parts between files', () => {
    const same = withUnreadFiles({ estimate: 100, half: 0 }, [0.5, 0.5, 0.5], 30, 300, { perFile: [4, 4, 4], unreadFiles: 3 })
    expect(same).toEqual({ estimate: 127, low: 127, high: 127 })
    const varied = withUnreadFiles({ estimate: 100, half: 0 }, [0.5, 0.5, 0.5], 30, 300, { perFile: [2, 4, 6], unreadFiles: 3 })
    expect(varied.estimate).toBe(127)
    // s² = 4 for the fixed parts: 4 · (3²/3 + 3) = 24, times t95(2)².
    expect(varied.high - varied.estimate).toBeCloseTo(t95(2) * Math.sqrt(24), 6)
  })
})

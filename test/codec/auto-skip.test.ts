import { describe, expect, it } from 'vitest'
import { ALPHA_BETTER, ALPHA_WORSE, RateDecider, RatioDecider } from '../../src/codec/auto-skip.js'
import { prng } from '../../src/util/prng.js'

const never = () => 0.99 // a "random" source that never explores and picks the longest gap
const always0 = () => 0 // exploration always on, shortest gap

describe('rate (RocksDB AutoSkipCompressorWrapper)', () => {
  it('attempts the first 10 blocks, then skips while the window rejected more than half', () => {
    const d = new RateDecider(never)
    for (let i = 0; i < 10; i++) {
      expect(d.attempt()).toBe(true)
      d.record(i < 6) // 6 of 10 rejected => p = 60
    }
    expect(d.attempt()).toBe(false)
  })
  it('keeps attempting at exactly 50% rejection', () => {
    const d = new RateDecider(never)
    for (let i = 0; i < 10; i++) d.record(i < 5)
    expect(d.attempt()).toBe(true)
  })
  it('explores 10% of the time even when predicting rejection', () => {
    const d = new RateDecider(always0)
    for (let i = 0; i < 10; i++) d.record(true)
    expect(d.attempt()).toBe(true)
  })
})

describe('ratio', () => {
  it('always attempts the first block of a file', () => {
    const d = new RatioDecider(never, 896, 64, 1.0)
    expect(d.attempt()).toBe(true)
    expect(d.attempt()).toBe(false) // carried estimate 1.0 > bar
  })
  it('attempts while q_hat <= bar (max_compressed_bytes_per_kb / 1024), skips above', () => {
    const d = new RatioDecider(never, 896)
    expect(d.bar).toBe(0.875)
    d.attempt()
    d.record(false, 870, 1000) // 0.87 <= bar
    expect(d.attempt()).toBe(true)
    d.record(true, 1000, 1000)
    d.record(true, 1000, 1000)
    expect(d.qHat!).toBeGreaterThan(0.875)
    expect(d.attempt()).toBe(false)
  })
  it('samples one block after at most min_sample_every skipped blocks, the gap doubling while skipping lasts', () => {
    const d = new RatioDecider(never, 896, 8, 1.0)
    d.attempt()
    const gaps: number[] = []
    for (let i = 0; i < 6; i++) {
      let skipped = 0
      while (!d.attempt()) skipped++
      gaps.push(skipped)
      d.record(true, 1000, 1000)
    }
    // never() picks the longest allowed gap: 2, 4, 8, then capped at min_sample_every = 8
    expect(gaps).toEqual([1, 3, 7, 7, 7, 7])
  })
  it('moves faster toward better compression than toward worse', () => {
    expect(ALPHA_BETTER).toBeGreaterThan(ALPHA_WORSE)
    const down = new RatioDecider(never, 896, 64, null)
    const up = new RatioDecider(never, 896, 64, null)
    for (let i = 0; i < 40; i++) {
      down.record(false, 500, 1000)
      up.record(false, 500, 1000)
    } // both settle at 0.5
    down.record(false, 300, 1000)
    up.record(false, 700, 1000)
    expect(0.5 - down.qHat!).toBeCloseTo(0.2 * ALPHA_BETTER, 10)
    expect(up.qHat! - 0.5).toBeCloseTo(0.2 * ALPHA_WORSE, 10)
  })
  it('is not flipped back to attempting by one marginal sample', () => {
    const d = new RatioDecider(never, 896, 64, null)
    for (let i = 0; i < 200; i++) d.record(i % 2 === 0, i % 2 === 0 ? 1000 : 860, 1000) // marginal 50/50 mix
    expect(d.qHat!).toBeGreaterThan(d.bar)
    d.record(false, 850, 1000)
    expect(d.qHat!).toBeGreaterThan(d.bar)
  })
  it('keeps attempting a high-payoff mix through long runs of incompressible blocks', () => {
    const r = prng(7)
    const d = new RatioDecider(r, 896, 64, null)
    let skipped = 0
    for (let i = 0; i < 5000; i++) {
      const compressible = r() < 0.5
      if (!d.attempt()) {
        skipped++
        continue
      }
      d.record(!compressible, compressible ? 300 : 1000, 1000)
    }
    expect(skipped).toBe(0)
  })
})

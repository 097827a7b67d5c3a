/**
 * Planning within the time budget (src/advise/plan.ts): a round is sized on
 * what the run measured of its own costs, or on priors before any
 * measurement, and a plan never spends more than the time left. Pure and
 * deterministic: costs and times are given, never read from a clock.
 */
import { describe, expect, it } from 'vitest'
import { type FirstRoundAsk, firstRoundShare, leastFirstRoundMs, planFirstRound, priorBlockMs, priorFileMs, unitCosts } from '../../src/advise/plan.js'
import { defaultSettings, spec } from '../../src/decide/settings.js'

const ask = (over: Partial<FirstRoundAsk>): FirstRoundAsk => ({
  filesRead: 4,
  minFiles: 2,
  dataBlocks: 4000,
  wantBlocks: 256,
  minBlocks: 128,
  shareMs: 10_000,
  leftMs: 20_000,
  costs: { fileMs: 500, blockMs: 5 },
  ...over,
})

describe('planFirstRound', () => {
  it('takes every file read and the blocks asked for when the share pays for them', () => {
    expect(planFirstRound(ask({}))).toEqual({ files: 4, blocks: 256, ms: 4 * 500 + 256 * 5 })
  })

  it('takes fewer files (never fewer than an interval needs), then fewer blocks, to fit the share', () => {
    // Half the share (1.5 s) pays for 3 files; the rest (1.5 s) for 300 blocks, more than asked.
    expect(planFirstRound(ask({ shareMs: 3000 }))).toEqual({ files: 3, blocks: 256, ms: 3 * 500 + 256 * 5 })
    // A share of 1.8 s: 2 files (the fewest) and 160 blocks.
    expect(planFirstRound(ask({ shareMs: 1800 }))).toEqual({ files: 2, blocks: 160, ms: 1800 })
    // Below that the share is exceeded rather than the estimate left without blocks: the fewest blocks, while time is left.
    expect(planFirstRound(ask({ shareMs: 1000 }))).toEqual({ files: 2, blocks: 128, ms: 2 * 500 + 128 * 5 })
  })

  it('plans nothing when the fewest files and blocks do not fit in the time left: the level is not sampled', () => {
    expect(planFirstRound(ask({ shareMs: 1000, leftMs: 1639 }))).toBeNull()
    expect(planFirstRound(ask({ shareMs: 1000, leftMs: 1640 }))).not.toBeNull()
  })

  it('never plans to spend more than the time left, whatever the costs and times', () => {
    for (const fileMs of [0, 1, 50, 400, 3000])
      for (const blockMs of [0.01, 0.5, 4, 30])
        for (const shareMs of [100, 1000, 5000, 60_000])
          for (const leftMs of [shareMs, shareMs * 1.5, shareMs * 4])
            for (const filesRead of [1, 2, 7]) {
              const p = planFirstRound(ask({ filesRead, shareMs, leftMs, costs: { fileMs, blockMs } }))
              if (p === null) continue
              expect(p.ms).toBeLessThanOrEqual(leftMs)
              expect(p.ms).toBeCloseTo(p.files * fileMs + p.blocks * blockMs, 6)
              expect(p.files).toBeGreaterThanOrEqual(Math.min(2, filesRead))
              expect(p.blocks).toBeGreaterThanOrEqual(Math.min(128, Math.round((4000 * p.files) / filesRead)))
            }
  })

  it('a small level is evaluated whole when affordable: blocks asked for are all there are', () => {
    expect(planFirstRound(ask({ filesRead: 1, dataBlocks: 95, wantBlocks: 95, costs: { fileMs: 200, blockMs: 8 } }))).toEqual({
      files: 1,
      blocks: 95,
      ms: 200 + 95 * 8,
    })
  })
})

describe('priors and measured costs', () => {
  it('a block costs more under a matrix of slow settings, and less spread over more lanes', () => {
    const lz4 = [spec('lz4', null, 'none', false)]
    const all = defaultSettings()
    expect(priorBlockMs(all, 16 << 10, 1)).toBeGreaterThan(10 * priorBlockMs(lz4, 16 << 10, 1))
    expect(priorBlockMs(all, 16 << 10, 2)).toBeCloseTo(priorBlockMs(all, 16 << 10, 1) / 2, 9)
    expect(priorBlockMs(all, 64 << 10, 1)).toBeGreaterThan(priorBlockMs(all, 16 << 10, 1))
  })

  it('a file costs its dictionaries when the settings have any, growing with the bytes RocksDB buffers', () => {
    const noDict = [spec('zstd', 3, 'none', false)]
    const all = defaultSettings()
    expect(priorFileMs(all, 32 << 20)).toBeGreaterThan(priorFileMs(all, 1 << 20))
    expect(priorFileMs(all, 1 << 20)).toBeGreaterThan(20 * priorFileMs(noDict, 1 << 20))
  })

  it('measured costs replace the priors once there are any', () => {
    const prior = { blockMs: 3, fileMs: 700 }
    expect(unitCosts({ blocks: 0, blockMs: 0, files: 0, fileMs: 0 }, prior)).toEqual(prior)
    expect(unitCosts({ blocks: 200, blockMs: 1000, files: 0, fileMs: 0 }, prior)).toEqual({ blockMs: 5, fileMs: 700 })
    expect(unitCosts({ blocks: 200, blockMs: 1000, files: 4, fileMs: 1200 }, prior)).toEqual({ blockMs: 5, fileMs: 300 })
  })
})

describe('firstRoundShare: the other levels keep their least', () => {
  it('holds back the least of every level still to come, and shares only what is beyond', () => {
    // 10 s left; this level's least 1 s, two more at 2 s each: 5 s beyond every least, shared by three.
    expect(firstRoundShare(10_000, [1000, 2000, 2000])).toBeCloseTo(1000 + 5000 / 3, 6)
  })
  it('when the time does not cover every least, a level gets its least only (not an even share that starves the later ones)', () => {
    // An even share would be 2 s each: the first level's 3 s least would take 1 s from the others.
    expect(firstRoundShare(6000, [3000, 1000, 1000, 1000])).toBe(3000)
    expect(firstRoundShare(6000, [1000, 3000, 1000, 1000])).toBe(1000)
  })
  it('the least of a first round: the fewest files an interval needs and the fewest blocks, or all a level holds', () => {
    const costs = { blockMs: 2, fileMs: 100 }
    expect(leastFirstRoundMs({ filesRead: 5, filesPending: 0, dataBlocks: 1000, minFiles: 2, minBlocks: 128, costs })).toBe(2 * 100 + 128 * 2)
    expect(leastFirstRoundMs({ filesRead: 1, filesPending: 0, dataBlocks: 40, minFiles: 2, minBlocks: 128, costs })).toBe(100 + 40 * 2)
    // Files not read yet: their blocks are unknown, the fewest an estimate rests on.
    expect(leastFirstRoundMs({ filesRead: 0, filesPending: 7, dataBlocks: 0, minFiles: 2, minBlocks: 128, costs })).toBe(2 * 100 + 128 * 2)
  })
})

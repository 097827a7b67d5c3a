/**
 * `--max-bytes`: the allocation of settings to levels that keeps the projected
 * total within the limit at the least compression CPU, checked against every
 * combination (a brute force over a small matrix).
 */
import { describe, expect, it } from 'vitest'
import { budgetChoice, type BudgetLevel, withinBytes } from '../../src/decide/max-bytes.js'
import { decide, limitsFor, NOT_SAMPLED } from '../../src/decide/rule.js'
import { emptySums } from '../../src/decide/estimate.js'
import type { SettingEstimate } from '../../src/types/advice.js'
import { sharesOpts } from '../../src/db/compression-options.js'
import { spec } from '../../src/decide/settings.js'

const NONE = spec('none', null, 'none', false)
const LZ4 = spec('lz4', null, 'none', false)
const Z1 = spec('zstd', 1, 'none', false)
const Z3 = spec('zstd', 3, 'none', false)
const Z9 = spec('zstd', 9, 'none', false)
const Z3F = spec('zstd', 3, 'finalize', false)

/** An estimate of `bytes` at `cpu` s/GB (a steady timing). */
function estimate(setting: ReturnType<typeof spec>, bytes: number, cpu: number): SettingEstimate {
  const timing = (v: number | null) => ({ value: v, low: v, high: v, noisy: false })
  return {
    setting,
    bytes: { estimate: bytes, low: bytes, high: bytes },
    change: { estimate: 0, low: 0, high: 0 },
    ratio: 1,
    dictSecPerGB: 0,
    compressSecPerGB: timing(setting.type === 'none' ? null : cpu),
    decompressMBps: timing(setting.type === 'none' ? null : 1000),
    rejectedShare: 0,
    dictBytes: 0,
    dictFilesBuilt: 0,
    dictBytesBuilt: 0,
    dictMsPerFile: 0,
    dictReferenceMsPerFile: 0,
    pareto: false,
    sums: emptySums(),
  }
}

/** A level of `raw` bytes where each setting keeps `share` of them at `cpu` s/GB. */
function level(family: string, sharesOptsWithUpper: boolean, raw: number, table: [ReturnType<typeof spec>, number, number][]): BudgetLevel {
  return {
    family,
    sharesOpts: sharesOptsWithUpper,
    inputGB: raw / 1e9,
    candidates: table.map(([s, share, cpu]) => estimate(s, Math.round(raw * share), cpu)),
  }
}

const MATRIX: [ReturnType<typeof spec>, number, number][] = [
  [NONE, 1, 0],
  [LZ4, 0.62, 2],
  [Z1, 0.5, 4],
  [Z3, 0.46, 6],
  [Z3F, 0.43, 6.5],
  [Z9, 0.41, 30],
]

function database(): BudgetLevel[] {
  return [
    level('default', true, 100e6, MATRIX),
    level('default', true, 300e6, MATRIX),
    level('default', false, 2000e6, MATRIX),
    level(
      'events',
      true,
      50e6,
      MATRIX.map(([s, share, cpu]) => [s, share === 1 ? 1 : Math.min(1, share + 0.3), cpu] as [typeof s, number, number]),
    ),
    level('events', false, 800e6, MATRIX),
  ]
}

const cpuOf = (l: BudgetLevel, x: SettingEstimate) => (x.compressSecPerGB.value ?? 0) * l.inputGB
const totalOf = (picks: SettingEstimate[]) => picks.reduce((a, x) => a + x.bytes.estimate, 0)

/** Whether the upper levels of each family agree on compression_opts, as RocksDB requires. */
function sharing(levels: BudgetLevel[], picks: SettingEstimate[]): boolean {
  const upper = levels.flatMap((l, i) => (l.sharesOpts ? [{ family: l.family, s: picks[i].setting }] : []))
  return upper.every((a) => upper.some((c) => c.family === a.family && upper.every((b) => b.family !== a.family || sharesOpts(b.s, c.s))))
}

/** The least-CPU combination that fits, by trying every one. */
function bruteForce(levels: BudgetLevel[], maxBytes: number): { cpu: number; picks: SettingEstimate[] } | null {
  let best: { cpu: number; picks: SettingEstimate[] } | null = null
  const walk = (i: number, picks: SettingEstimate[]) => {
    if (i === levels.length) {
      if (totalOf(picks) > maxBytes || !sharing(levels, picks)) return
      const cpu = picks.reduce((a, x, k) => a + cpuOf(levels[k], x), 0)
      if (!best || cpu < best.cpu) best = { cpu, picks: [...picks] }
      return
    }
    for (const x of levels[i].candidates) walk(i + 1, [...picks, x])
  }
  walk(0, [])
  return best
}

describe('--max-bytes: the least compression CPU within the limit', () => {
  const levels = database()
  const today = levels.reduce((a, l) => a + l.inputGB * 1e9, 0)

  it('a limit above what no compression takes: every level stores its data raw, the cheapest', () => {
    const r = withinBytes(levels, today * 1.1, sharesOpts)
    expect(r.met).toBe(true)
    expect(r.picks.map((p) => p.setting.label)).toEqual(['none', 'none', 'none', 'none', 'none'])
  })

  it('fits the limit at the least CPU any combination needs, sharing compression_opts', () => {
    for (const share of [0.9, 0.7, 0.55, 0.5, 0.47, 0.45]) {
      const max = today * share
      const r = withinBytes(levels, max, sharesOpts)
      const best = bruteForce(levels, max)
      expect(best, `${share}`).not.toBeNull()
      expect(r.met, `${share}`).toBe(true)
      expect(r.projected).toBeLessThanOrEqual(max)
      expect(sharing(levels, r.picks), `${share}`).toBe(true)
      const cpu = r.picks.reduce((a, x, k) => a + cpuOf(levels[k], x), 0)
      expect(cpu, `${share}: ${r.picks.map((p) => p.setting.label).join(', ')}`).toBeCloseTo(best!.cpu, 9)
    }
  })

  it('squeezes the bottommost levels first: they hold the bytes, so a byte saved there costs least', () => {
    const r = withinBytes(levels, today * 0.7, sharesOpts)
    expect(r.picks[2].setting.type).not.toBe('none')
    expect(r.picks[0].bytes.estimate / (levels[0].inputGB * 1e9)).toBeGreaterThanOrEqual(r.picks[2].bytes.estimate / (levels[2].inputGB * 1e9))
  })

  it('when nothing fits, every level gets its smallest setting and says so', () => {
    const r = withinBytes(levels, today * 0.2, sharesOpts)
    expect(r.met).toBe(false)
    expect(r.picks.map((p) => p.setting.label)).toEqual(
      levels.map((l) => l.candidates.reduce((a, b) => (b.bytes.estimate < a.bytes.estimate ? b : a)).setting.label),
    )
    const choice = budgetChoice(levels[2].candidates, r.picks[2], r.met, '--max-bytes (20% of today)')
    expect(choice.recommended.reason).toMatch(/^the smallest: no choice of settings fits --max-bytes/)
  })

  it('the reason and runner-up say what fitting cost, and what squeezing further would', () => {
    const r = withinBytes(levels, today * 0.5, sharesOpts)
    const i = 2
    const choice = budgetChoice(levels[i].candidates, r.picks[i], r.met, '--max-bytes (50% of today)')
    expect(choice.recommended.estimate).toBe(r.picks[i])
    expect(choice.recommended.reason).toMatch(/--max-bytes \(50% of today\)/)
    expect(choice.runnerUp!.estimate.bytes.estimate).toBeLessThan(r.picks[i].bytes.estimate)
    expect(choice.runnerUp!.reason).toMatch(/^−\d+\.\d% bytes, \d+\.\dx the compression CPU \(\d+(\.\d+)? s\/GB vs \d+(\.\d+)? s\/GB\)$/)
  })
})

describe('a level of which no block was evaluated', () => {
  const unmeasured = (setting: ReturnType<typeof spec>) => {
    const e = estimate(setting, Number.NaN, 1)
    return { ...e, bytes: { estimate: Number.NaN, low: Number.NaN, high: Number.NaN } }
  }
  const limits = { maxCompressSecPerGB: null, minDecompressMBps: null, describe: 'none' }

  it("keeps today's setting (nothing measured speaks for a change), and says why", () => {
    const xs = [NONE, LZ4, Z3, Z9].map(unmeasured)
    const today = xs[1]
    const { recommended, runnerUp } = decide(xs, limits, today)
    expect(recommended.estimate).toBe(today)
    expect(recommended.reason).toBe(`keep today's setting: ${NOT_SAMPLED}`)
    expect(runnerUp).toBeNull()
  })

  it('without a known today: no setting is made up (the engine keeps such a level out of the options)', () => {
    const xs = [Z3, Z9].map(unmeasured)
    expect(() => decide(xs, limits)).toThrow(/not sampled/)
  })
})

describe("the rule's reasons and runner-up", () => {
  const SNAPPY = spec('snappy', null, 'none', false)

  it("never calls today's setting outside the limits when it meets them, though the candidates leave it out", () => {
    // today's lz4 is the fastest codec: within any multiple of it (here the size objective's 4x for an upper level)
    const today = estimate(LZ4, 620, 2)
    const xs = [estimate(Z3, 460, 6), estimate(SNAPPY, 600, 3)]
    const limits = limitsFor('size', false, [...xs, today], today, null)
    const { recommended } = decide(xs, limits, today)
    expect(recommended.estimate.setting).toBe(Z3)
    expect(recommended.reason).not.toMatch(/outside the limits/)
  })

  it('says so when today is outside them', () => {
    const today = estimate(Z9, 410, 30)
    const xs = [estimate(LZ4, 620, 2), estimate(Z3, 460, 6), today]
    const limits = limitsFor('size', false, xs, today, null)
    expect(decide(xs, limits, today).recommended.reason).toMatch(/today's is outside the limits \(within 4x the fastest codec's CPU\)/)
  })

  it('a runner-up is never worse in both bytes and CPU than the recommendation', () => {
    const xs = [estimate(Z3, 460, 6), estimate(SNAPPY, 600, 8), estimate(LZ4, 620, 2)]
    const limits = { maxCompressSecPerGB: null, minDecompressMBps: null, describe: 'whatever the CPU' }
    const { recommended, runnerUp } = decide(xs, limits)
    expect(recommended.estimate.setting).toBe(Z3)
    // snappy is larger and slower than zstd 3: no alternative; lz4 is larger but cheaper
    expect(runnerUp?.estimate.setting).toBe(LZ4)
    expect(runnerUp?.reason).toMatch(/^\+34\.8% bytes, 0\.3x the compression CPU/)
  })

  it('no runner-up when every other setting is worse in both', () => {
    const xs = [estimate(LZ4, 460, 2), estimate(SNAPPY, 600, 8)]
    const limits = { maxCompressSecPerGB: null, minDecompressMBps: null, describe: 'whatever the CPU' }
    expect(decide(xs, limits).runnerUp).toBeNull()
  })
})

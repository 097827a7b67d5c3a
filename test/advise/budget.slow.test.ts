/**
 * The time budget is a promise: on a simulated machine, where evaluating a
 * block and building a file's dictionaries take a fixed time on an injected
 * clock, advise ends within the budget + 10% however slow the machine, from
 * its first round (which has nothing measured to plan on) to its last.
 * Deterministic: the clock moves only with the work done, never with the wall.
 */
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { noteText } from '../../src/report/advise-notes.js'
import { ROOT } from '../helpers.js'
import { RUN_DICT, testAdviseOptions } from './options.js'

const machine = { now: 0, blockMs: 0, dictFileMs: 0, timingTaskMs: 0 }

vi.mock('../../src/advise/evaluate.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/advise/evaluate.js')>()
  return {
    ...real,
    evaluateFile: (task: Parameters<typeof real.evaluateFile>[0]) => {
      const r = real.evaluateFile(task)
      // The simulated cost of the task: per block and setting, per file's dictionaries, per timing measurement.
      if (task.dictionariesOnly) machine.now += machine.dictFileMs
      else if (task.timing) machine.now += machine.timingTaskMs
      else machine.now += r.blocks * task.settings.length * machine.blockMs
      return r
    },
  }
})

const { adviseGroups: advise } = await import('../../src/advise/engine.js')
const { resolveInputs } = await import('../../src/advise/inputs.js')
const { spec } = await import('../../src/decide/settings.js')

/** A short matrix (the simulated costs are per setting): a codec without and a zstd level with a dictionary. */
const SETTINGS = [spec('lz4', null, 'none', false), spec('zstd', 1, 'none', false), spec('zstd', 1, 'finalize', false)]

const DB = join(ROOT, 'test/fixtures/db-medium')

async function run(budgetMs: number, blockMs: number, dictFileMs: number) {
  Object.assign(machine, { now: 0, blockMs, dictFileMs, timingTaskMs: 30 })
  const inputs = resolveInputs([DB])
  // Reading a file's index, or the clock itself, costs a little too.
  const clock = () => (machine.now += 1)
  const advice = await advise(inputs.groups, testAdviseOptions(inputs, SETTINGS, { timeBudgetMs: budgetMs, clock, dict: RUN_DICT }))
  return { advice, levels: advice.columnFamilies.flatMap((c) => c.levels) }
}

describe('advise within its time budget on a simulated machine', () => {
  it.each([
    // budget ms, ms per block and setting, ms per file's dictionaries
    [2000, 2, 150],
    [5000, 3, 300],
    [5000, 12, 1500],
    [10_000, 6, 600],
    [10_000, 24, 3000],
  ])('budget %i ms, %f ms per block and setting, %i ms per file of dictionaries: ends within 1.1 times the budget', async (budget, blockMs, dictFileMs) => {
    const { advice, levels } = await run(budget, blockMs, dictFileMs)
    expect(advice.elapsedSec * 1000).toBeLessThanOrEqual(budget * 1.1)
    // Whatever was left out says so, and every level has a finite projection.
    for (const l of levels) expect(Number.isFinite(l.recommended.estimate.bytes.estimate)).toBe(true)
    const notSampled = levels.filter((l) => l.sample.stopped === 'not-sampled').map((l) => ({ columnFamily: l.columnFamily, level: l.level }))
    if (notSampled.length) expect(advice.notes.find((n) => n.code === 'levels-not-sampled')).toMatchObject({ levels: notSampled })
  })

  it.each([
    [2000, 12, 1500],
    [5000, 24, 3000],
  ])(
    'budget %i ms, %f ms per block and setting, %i ms per file: the not-sampled note names a budget that samples every level',
    async (budget, blockMs, dictFileMs) => {
      const first = await run(budget, blockMs, dictFileMs)
      expect(first.levels.some((l) => l.sample.stopped === 'not-sampled')).toBe(true)
      const note = first.advice.notes.find((n) => n.code === 'levels-not-sampled')
      const suggested = note?.budgetMs ?? Number.NaN
      expect(noteText(note!)).toContain(`; a --time-budget of about ${suggested / 1000} s would sample every level`)
      expect(suggested).toBeGreaterThan(budget)
      const again = await run(suggested, blockMs, dictFileMs)
      expect(again.levels.filter((l) => l.sample.stopped === 'not-sampled').map((l) => `${l.columnFamily} L${l.level}`)).toEqual([])
    },
  )

  it('a budget that affords every level samples every level, the largest first', async () => {
    const { advice, levels } = await run(10_000, 1, 100)
    expect(advice.elapsedSec * 1000).toBeLessThanOrEqual(11_000)
    expect(levels.every((l) => l.sample.stopped !== 'not-sampled')).toBe(true)
  })

  it.each([
    [10_000, 2, 100],
    [20_000, 4, 200],
    [30_000, 6, 100],
  ])(
    "budget %i ms, %f ms per block and setting: the first level's round takes its share, not the others' time: every level sampled",
    async (budget, blockMs, dictFileMs) => {
      // (The run's first round has nothing measured: it probes, then takes what its share affords.)
      const { advice, levels } = await run(budget, blockMs, dictFileMs)
      expect(advice.elapsedSec * 1000).toBeLessThanOrEqual(budget * 1.1)
      expect(levels.filter((l) => l.sample.stopped === 'not-sampled').map((l) => `${l.columnFamily} L${l.level}`)).toEqual([])
    },
  )

  it('a budget that affords only some levels samples the largest', async () => {
    const { advice, levels } = await run(5000, 12, 1500)
    expect(advice.elapsedSec * 1000).toBeLessThanOrEqual(5500)
    const largest = levels.reduce((a, b) => (b.fileBytes > a.fileBytes ? b : a))
    expect(largest.sample.stopped).not.toBe('not-sampled')
  })
})

/**
 * The first pass (every live file's index, properties and dictionary framing)
 * is bounded by the time budget: on a database of very many files advise
 * reads what the budget allows, one file per level in turn, and estimates the
 * rest of each level from the files read, scaled by size on disk, with the
 * spread between files in the interval. Deterministic: an injected clock that
 * charges a fixed time per reading, never the wall clock.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type AdviseOptions, advise, advisePopulation } from '../../src/advise/advise.js'
import { resolveInputs } from '../../src/advise/inputs.js'
import { readPopulation } from '../../src/advise/population.js'
import { spec } from '../../src/advise/settings.js'
import { ROOT } from '../helpers.js'
import { RUN_DICT, testAdviseOptions } from './options.js'

const DB = join(ROOT, 'test/fixtures/db-medium')
const DICT = RUN_DICT
const SETTINGS = [spec('none', null, 'none', false), spec('lz4', null, 'none', false), spec('zstd', 3, 'none', false), spec('zstd', 3, 'finalize', false)]

/** A clock that moves `step` ms each time it is read, and counts its reads. */
function steppingClock(step: number) {
  let t = 0
  let reads = 0
  return {
    now: () => {
      reads++
      t += step
      return t
    },
    reads: () => reads,
  }
}

/** db-medium's SST files as plain files: two groups (one per column family) of 4 and 5 files. */
function plainFiles() {
  const inputs = resolveInputs([DB]).groups.flatMap((g) => g.files.map((f) => f.path))
  return resolveInputs(inputs.sort())
}

const options = (inputs: ReturnType<typeof resolveInputs>, extra: Partial<AdviseOptions>) => testAdviseOptions(inputs, SETTINGS, extra)

describe('the first pass within the time budget', () => {
  it('stops reading at the deadline, one file per level in turn, every level keeping at least one', () => {
    const inputs = plainFiles()
    expect(inputs.groups.map((g) => g.files.length).sort()).toEqual([4, 5])
    const clock = steppingClock(1000)
    const { groups, problems } = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: 2500, clock: clock.now })
    expect(problems).toEqual([])
    // The first file of each level is read whatever the clock says; then one clock read per file until 2.5 s.
    expect(groups.map((g) => g.files.length).reduce((a, b) => a + b)).toBe(4)
    for (const [k, g] of groups.entries()) {
      expect(g.files.length).toBeGreaterThanOrEqual(1)
      expect(g.files.length + g.unread.files).toBe(inputs.groups[k].files.length)
      // What is not read is known by its size on disk only.
      const read = new Set(g.files.map((f) => f.path))
      const rest = inputs.groups[k].files.filter((f) => !read.has(f.path))
      expect(g.unread.fileBytes).toBe(rest.reduce((a, f) => a + statSync(f.path).size, 0))
      // The files read keep the level's own order.
      const order = inputs.groups[k].files.map((f) => f.path).filter((p) => read.has(p))
      expect(g.files.map((f) => f.path)).toEqual(order)
    }
    expect(clock.reads()).toBe(groups.reduce((a, g) => a + g.files.length - 1 + g.unread.files, 0))
    // Which files are read is drawn from the seed.
    const again = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: 2500, clock: steppingClock(1000).now })
    expect(again.groups.map((g) => g.files.map((f) => f.path))).toEqual(groups.map((g) => g.files.map((f) => f.path)))
    const seeds = [1, 2, 3, 4, 5].map((seed) =>
      JSON.stringify(
        readPopulation(inputs.groups, { dict: DICT, seed, deadline: 2500, clock: steppingClock(1000).now }).groups.map((g) => g.files.map((f) => f.path)),
      ),
    )
    expect(new Set([...seeds, JSON.stringify(groups.map((g) => g.files.map((f) => f.path)))]).size).toBeGreaterThan(1)
  })

  it('advise returns within the budget on a slow first pass, and says what it left unread', async () => {
    const inputs = plainFiles()
    // Each clock read costs 3 s: a 10 s budget leaves time for about one file per level, then ends sampling.
    const clock = steppingClock(3000)
    const a = await advise(inputs.groups, options(inputs, { timeBudgetMs: 10_000, clock: clock.now }))
    // Past the budget nothing more is started: a few reads of the clock to find that out, no sampling round.
    // (One read per file after each level's first, then: sampling's check, the timing pass's two, the final one.)
    expect(clock.reads()).toBeLessThanOrEqual(12)
    expect(a.columnFamilies.flatMap((c) => c.levels).every((l) => l.sample.blocks === 0)).toBe(true)
    const levels = a.columnFamilies.flatMap((c) => c.levels)
    expect(levels.some((l) => l.sample.filesRead < l.files)).toBe(true)
    for (const l of levels) if (l.sample.filesRead < l.files) expect(l.sample.stopped).toBe('time-budget')
    expect(a.notes.join('\n')).toMatch(/the time budget ended the first pass with \d+ of 9 files in \d level\(s\) unread/)
  })

  it('estimates a level from the files read, scaled by size on disk, with the spread between files in its interval', async () => {
    const inputs = plainFiles()
    const whole = await advise(inputs.groups, options(inputs, { fixedRate: 1 }))
    const population = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: 4500, clock: steppingClock(1000).now })
    const partial = await advisePopulation(population, options(inputs, { fixedRate: 1 }), 0)
    // The same files read as plain files, whole: what the scaled estimate starts from.
    const readPaths = population.groups.flatMap((g) => g.files.map((f) => f.path))
    const readOnly = resolveInputs(readPaths)
    const exact = await advise(readOnly.groups, options(readOnly, { fixedRate: 1 }))
    let compared = 0
    for (const cf of partial.columnFamilies) {
      const l = cf.levels[0]
      const truth = whole.columnFamilies.find((c) => c.name === cf.name)!.levels[0]
      const base = exact.columnFamilies.find((c) => c.name === cf.name)!.levels[0]
      expect(l.sample.filesRead).toBeLessThan(l.files)
      expect(l.sample.filesRead).toBeGreaterThanOrEqual(2)
      // The level's size on disk is known exactly; what its indexes say is scaled from the files read.
      expect(l.files).toBe(truth.files)
      expect(l.fileBytes).toBe(truth.fileBytes)
      const scale = l.fileBytes / base.fileBytes
      expect(l.dataBytes).toBe(Math.round(base.dataBytes * scale))
      expect(l.sample.stopped).toBe('time-budget')
      for (const m of l.matrix) {
        const b = base.matrix.find((x) => x.setting.label === m.setting.label)
        if (!b) continue
        expect(m.bytes.estimate / (b.bytes.estimate * scale), `${cf.name} ${m.setting.label}`).toBeCloseTo(1, 9)
        // Every block of the files read was evaluated: the whole width is the spread between files.
        expect(b.bytes.high).toBe(b.bytes.low)
        expect(m.bytes.high, `${cf.name} ${m.setting.label}`).toBeGreaterThan(m.bytes.low)
        compared++
      }
    }
    expect(compared).toBeGreaterThanOrEqual(2 * SETTINGS.length)
    expect(partial.notes.join('\n')).toMatch(/6 of 9 files|3 of 9 files/)
  }, 120_000)
})

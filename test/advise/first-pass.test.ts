/**
 * The first pass (every live file's index, properties and dictionary framing)
 * is bounded by the time budget: on a database of very many files advise
 * reads what the budget allows, one file per level in turn, and estimates the
 * rest of each level from the files read, scaled by size on disk, with the
 * spread between files in the interval. Deterministic: an injected clock that
 * charges a fixed time per reading, never the wall clock.
 */
import { statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AdviseOptions } from '../../src/advise/engine-options.js'
import { adviseGroups } from '../../src/advise/engine.js'
import { advisePopulation } from '../../src/advise/rounds.js'
import { resolveInputs } from '../../src/advise/inputs.js'
import { MIN_FILES_READ, readPopulation, sizeProportionalOrder, smallEarly } from '../../src/advise/population.js'
import { spec } from '../../src/decide/settings.js'
import { noteText } from '../../src/report/advise-notes.js'
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
  it('reads MIN_FILES_READ files per level whatever the clock, then one file per level in turn until the deadline', () => {
    const inputs = plainFiles()
    expect(inputs.groups.map((g) => g.files.length).sort()).toEqual([4, 5])
    const clock = steppingClock(1000)
    const { groups, problems } = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: 2500, clock: clock.now })
    expect(problems).toEqual([])
    // Two files per level without looking at the clock; then one clock read per file tried: 1 s, 2 s read, 3 s stops.
    expect(groups.map((g) => g.files.length).reduce((a, b) => a + b)).toBe(2 * MIN_FILES_READ + 2)
    // A level's small file is read right after its first two large ones: db-medium's 000015.sst, 71 KB beside 270-680 KB.
    expect(groups.flatMap((g) => g.files.filter((f) => f.small).map((f) => basename(f.path)))).toEqual(['000015.sst'])
    for (const [k, g] of groups.entries()) {
      expect(g.files.length).toBeGreaterThanOrEqual(MIN_FILES_READ)
      expect(g.files.length + g.unread.files).toBe(inputs.groups[k].files.length)
      // What is not read is known by its size on disk only, and stays pending in the order it would be read.
      const read = new Set(g.files.map((f) => f.path))
      const rest = inputs.groups[k].files.filter((f) => !read.has(f.path))
      expect(g.unread.fileBytes).toBe(rest.reduce((a, f) => a + statSync(f.path).size, 0))
      expect(g.pending.map((f) => f.path).sort()).toEqual(rest.map((f) => f.path).sort())
      // Files are read in the level's size-proportional order, small ones first: the read ones are its first.
      const order = smallEarly(
        sizeProportionalOrder(
          inputs.groups[k].files.map((f) => ({ ...f, size: statSync(f.path).size })),
          0,
          (f) => f.size,
        ),
      ).map((f) => f.path)
      expect([...g.files.map((f) => f.path), ...g.pending.map((f) => f.path)]).toEqual(order)
    }
    // Which files are read is drawn from the seed.
    const again = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: 2500, clock: steppingClock(1000).now })
    expect(again.groups.map((g) => g.files.map((f) => f.path))).toEqual(groups.map((g) => g.files.map((f) => f.path)))
    const seeds = [1, 2, 3, 4, 5].map((seed) =>
      JSON.stringify(
        readPopulation(inputs.groups, { dict: DICT, seed, deadline: 2500, clock: steppingClock(1000).now }).groups.map((g) => g.files.map((f) => f.path)),
      ),
    )
    expect(new Set([...seeds, JSON.stringify(groups.map((g) => g.files.map((f) => f.path)))]).size).toBeGreaterThan(1)
    // A cap per level: the rest pending even with time to spare.
    const capped = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: Number.POSITIVE_INFINITY, clock: () => 0, filesPerLevel: 3 })
    expect(capped.groups.map((g) => g.files.length)).toEqual([3, 3])
  })

  it("reads a level's small files (under a quarter of its median size) right after its first two large ones", () => {
    const files = [1000, 1000, 200, 1000, 260, 1000, 100].map((size, i) => ({ path: `f${i}.sst`, fileNumber: i + 1, size }))
    const got = smallEarly(files)
    expect(got.map((f) => f.path)).toEqual(['f0.sst', 'f1.sst', 'f2.sst', 'f6.sst', 'f3.sst', 'f4.sst', 'f5.sst'])
    expect(got.map((f) => Boolean((f as { small?: boolean }).small))).toEqual([false, false, true, true, false, false, false])
    // Two files: both are read anyway.
    expect(smallEarly(files.slice(0, 3).slice(1))).toEqual(files.slice(1, 3))
  })

  it('draws files in proportion to their size: a file twice as large is read first about twice as often', () => {
    const files = Array.from({ length: 40 }, (_, i) => ({ path: `f${i}.sst`, fileNumber: i + 1, size: i < 20 ? 1000 : 2000 }))
    let large = 0
    for (let seed = 0; seed < 3000; seed++) if (sizeProportionalOrder(files, seed, (f) => f.size)[0].size === 2000) large++
    // 20 files of 2000 bytes against 20 of 1000: the first file is a large one with probability 2/3.
    expect(large / 3000).toBeGreaterThan(0.63)
    expect(large / 3000).toBeLessThan(0.7)
  })

  it("advise returns within the budget on a slow first pass: levels it could not sample keep today's setting, and say so", async () => {
    const inputs = plainFiles()
    // Each clock read costs 3 s: a 3 s budget is spent by the time sampling first looks at the clock.
    const clock = steppingClock(3000)
    const a = await adviseGroups(inputs.groups, options(inputs, { timeBudgetMs: 3000, clock: clock.now }))
    // Past the budget nothing more is started: a few reads of the clock to find that out, no sampling round.
    expect(clock.reads()).toBeLessThanOrEqual(12)
    const levels = a.columnFamilies.flatMap((c) => c.levels)
    expect(levels.every((l) => l.sample.blocks === 0)).toBe(true)
    expect(levels.some((l) => l.sample.filesRead < l.files)).toBe(true)
    for (const l of levels) {
      expect(l.sample.stopped).toBe('not-sampled')
      // Today's setting, as the files' properties say (plain files: no OPTIONS), never 'none'.
      expect(l.recommended.estimate.setting.type).not.toBe('none')
      expect(l.todayCompression.toLowerCase()).toContain(l.recommended.estimate.setting.type)
      expect(l.recommended.reason).toMatch(/not sampled.*keep today's setting/)
      expect(l.matrix).toEqual([])
      for (const v of [l.recommended.estimate.bytes.estimate, l.recommended.estimate.bytes.low, l.recommended.estimate.bytes.high])
        expect(Number.isFinite(v)).toBe(true)
    }
    const notSampled = a.notes.find((n) => n.code === 'levels-not-sampled')
    expect(notSampled).toMatchObject({ levels: levels.map((l) => ({ columnFamily: l.columnFamily, level: l.level })) })
    expect(noteText(notSampled!)).toMatch(/^not sampled \(the time budget ended first\): .*; (it keeps|they keep) today's setting/)
    expect(Number.isFinite(a.total.projected.estimate) && Number.isFinite(a.total.change.estimate)).toBe(true)
  })

  it('estimates a level from the files read and the mean of their bytes per byte on disk, with the spread between files in its interval', async () => {
    const inputs = plainFiles()
    const whole = await adviseGroups(inputs.groups, options(inputs, { fixedRate: 1 }))
    const population = readPopulation(inputs.groups, { dict: DICT, seed: 0, deadline: 0, clock: () => 1 })
    const partial = await advisePopulation(population, options(inputs, { fixedRate: 1 }), 0)
    let compared = 0
    for (const cf of partial.columnFamilies) {
      const l = cf.levels[0]
      const group = population.groups.find((g) => g.columnFamily === cf.name)!
      const truth = whole.columnFamilies.find((c) => c.name === cf.name)!.levels[0]
      const large = group.files.map((f) => !f.small)
      expect(l.sample.filesRead).toBe(MIN_FILES_READ + large.filter((x) => !x).length)
      expect(l.sample.filesRead).toBeLessThan(l.files)
      // The level's size on disk is known exactly.
      expect(l.files).toBe(truth.files)
      expect(l.fileBytes).toBe(truth.fileBytes)
      expect(l.sample.stopped).toBe('time-budget')
      // Each file read, evaluated whole on its own: the estimate is their bytes plus the unread bytes on disk times their mean ratio.
      const own: { x: number; advice: Awaited<ReturnType<typeof adviseGroups>> }[] = []
      for (const f of group.files) {
        const one = resolveInputs([f.path])
        own.push({ x: f.fileSize, advice: await adviseGroups(one.groups, options(one, { fixedRate: 1 })) })
      }
      const unread = group.pending.reduce((a, f) => a + (f.size ?? 0), 0)
      for (const m of l.matrix) {
        const found = own.map((o) => o.advice.columnFamilies[0].levels[0].matrix.find((x) => x.setting.label === m.setting.label))
        // Today's own entry (its own dictionary options) is in a file's matrix only where that file is today's.
        if (found.some((x) => !x)) continue
        const ys = found.map((x) => x!.bytes.estimate)
        // The unread files at the large files' mean data bytes per byte on disk, plus their mean dictionary block each.
        const ds = found.map((x) => x!.dictBytes)
        const ks = own.flatMap((_, k) => (large[k] ? [k] : []))
        const mean = ks.reduce((a, k) => a + (ys[k] - ds[k]) / own[k].x, 0) / ks.length
        const dict = ks.reduce((a, k) => a + ds[k], 0) / ks.length
        const expected = ys.reduce((a, b) => a + b, 0) + unread * mean + group.pending.length * dict
        expect(m.bytes.estimate / expected, `${cf.name} ${m.setting.label}`).toBeCloseTo(1, 9)
        // Every block of the files read was evaluated: the whole width is the spread between files.
        expect(m.bytes.high, `${cf.name} ${m.setting.label}`).toBeGreaterThan(m.bytes.low)
        // The files read are a floor: the unread files cannot hold fewer than no bytes. (Whether a 95% interval covers
        // the truth is a frequency over draws, tested in estimate.test.ts; two files of a mixed level are a poor sample.)
        const readBytes = ys.reduce((a, b) => a + b, 0)
        expect(m.bytes.low).toBeGreaterThanOrEqual(readBytes * (1 - 1e-9))
        expect(truth.matrix.some((x) => x.setting.label === m.setting.label)).toBe(true)
        compared++
      }
    }
    expect(compared).toBeGreaterThanOrEqual(2 * SETTINGS.length)
    expect(partial.notes.find((n) => n.code === 'files-sampled')).toMatchObject({ read: 4, files: 9 })
    expect(partial.notes.map(noteText).join('\n')).toMatch(/files drawn in proportion to their size, 4 of 9 read \(/)
  }, 120_000)
})

/**
 * A small database answers at once: with default flags, a database whose live files hold under
 * 10 MiB is sampled within 1.8 s on one thread with the small database's matrix, and says so; a
 * --time-budget or a --types of one's own gets the full evaluation. (Wall time itself is measured
 * by bench/advise-budget.mjs, never here.)
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { defaultSettings, smallDatabaseSettings } from '../../src/decide/settings.js'
import { jsonNoteTexts, ROOT, sstkit } from '../helpers.js'

const EXAMPLE = join(ROOT, 'examples/db')

function json(args: string[]): Advice {
  const r = sstkit(['advise', EXAMPLE, ...args, '--json'])
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout) as Advice
}

const labels = (a: Advice) => [...new Set(a.columnFamilies.flatMap((cf) => cf.levels.flatMap((l) => l.matrix.map((m) => m.setting.label))))]

describe('advise on a small database', () => {
  it('with default flags: the small matrix, within the small budget, and a note saying so', () => {
    const a = json([])
    const small = smallDatabaseSettings().map((s) => s.label)
    expect(small.length).toBeLessThan(defaultSettings().length)
    // Every row evaluated is the small matrix's (today's own setting aside, when it is not in it).
    const today = new Set(a.columnFamilies.flatMap((cf) => cf.levels.flatMap((l) => (l.today ? [l.today.setting.label] : []))))
    for (const l of labels(a)) expect(small.includes(l) || today.has(l)).toBe(true)
    expect(labels(a)).not.toContain('zstd 12')
    expect(a.notes.find((n) => n.code === 'small-database')).toMatchObject({ limitBytes: 10 << 20, timeBudgetMs: 1800, narrowed: true })
    expect(jsonNoteTexts(a).join('\n')).toMatch(/under 10 MiB\): a time budget of 1\.8 s, without zstd 9 and 12/)
    // The budget shown is the one asked for (the default); the note says what the small database got.
    expect(a.timeBudgetSec).toBe(60)
    expect(Number.isFinite(a.total.projected.estimate)).toBe(true)
    // Every level has evidence, however busy the machine: a first round whatever the clock.
    for (const l of a.columnFamilies.flatMap((cf) => cf.levels)) expect(l.sample.stopped, `L${l.level}`).not.toBe('not-sampled')
  })

  it('a --time-budget or --types of its own: the full evaluation, no note', () => {
    const budget = json(['--time-budget', '2s'])
    expect(budget.notes.map((n) => n.code)).not.toContain('small-database')
    // Every level sampled got the default matrix.
    for (const l of budget.columnFamilies.flatMap((cf) => cf.levels))
      if (l.matrix.length) expect(l.matrix.length).toBeGreaterThanOrEqual(defaultSettings().length)
    const types = json(['--types', 'zstd', '--levels', '1,12', '--dict', 'none'])
    expect(labels(types)).toContain('zstd 12')
    expect(types.notes.map((n) => n.code)).not.toContain('small-database')
  })
})

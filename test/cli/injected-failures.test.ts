/**
 * The CLI side of injected failures (src/cli/fault-injection.ts): with the N-th read of every file
 * throwing a plain Error, each command still reports every file of a multi-file run (one line on
 * stderr, or its own report), never a stack trace nor a run-wide abort.
 */
import { describe, expect, it } from 'vitest'
import { FAIL_READ_ENV } from '../../src/cli/fault-injection.js'
import { fixturePath, sstkit } from '../helpers.js'

const FILES = [fixturePath('fv5-none'), fixturePath('filter-fastbloom'), fixturePath('index-partitioned')]
/** Footer, metaindex, properties, then index, filter or data reads: every stage of opening and reading (scan --limit 1 stops after 5). */
const COMMANDS: [string[], number[]][] = [
  [['verify'], [1, 2, 3, 4, 5, 7]],
  [['props'], [1, 2, 3, 4, 5, 7]],
  [
    ['layout', '--summary'],
    [1, 2, 3, 4, 5, 7],
  ],
  [
    ['scan', '--limit', '1'],
    [1, 2, 3, 4, 5],
  ],
]

describe.each(COMMANDS.map(([c, reads]) => [c.join(' '), c, reads] as const))('%s', (_name, cmd, reads) => {
  it.each(reads)('read %i failing: every file is reported, in one line each where it fails', (k) => {
    const r = sstkit([...cmd, ...FILES], { env: { [FAIL_READ_ENV]: String(k) } })
    expect([1, 2], r.stderr).toContain(r.status)
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\n\s+at |run with --debug/)
    const errLines = r.stderr.split('\n').filter(Boolean)
    for (const line of errLines) expect(line).toMatch(/^sstkit: \S+: .*injected failure of read \d+ \(offset \d+, \d+ bytes\)/)
    for (const f of FILES) expect(`${r.stdout}${r.stderr}`, f).toContain(f)
    // The failure is named, with its offset, wherever it shows.
    expect(`${r.stdout}${r.stderr}`).toMatch(new RegExp(`injected failure of read ${k} \\(offset \\d+`))
  })
})

it('verify --json: one report per file, the failure a problem of each', () => {
  const r = sstkit(['verify', ...FILES, '--json'], { env: { [FAIL_READ_ENV]: '4' } })
  expect(r.status).toBe(1)
  expect(r.stderr).toBe('')
  const j = JSON.parse(r.stdout) as { file: string; ok: boolean; problems: { message: string; offset: number | null }[] }[]
  expect(j.map((x) => x.file)).toEqual(FILES)
  for (const x of j) {
    expect(x.ok).toBe(false)
    expect(x.problems.some((p) => /internal error: injected failure of read 4/.test(p.message))).toBe(true)
  }
})

it('unset, nothing fails', () => {
  const r = sstkit(['verify', ...FILES])
  expect(r.status).toBe(0)
})

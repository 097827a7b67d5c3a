/**
 * `sstkit advise` on a database of many small files written by real RocksDB
 * (Debian's db_bench 7.8.3, generated here into a temp dir): every level that
 * holds data is sampled or says "not sampled" and keeps today's setting, no
 * format prints NaN, Infinity or a made-up `none`, and the engine keeps its
 * time budget (on an injected clock; the wall clock is bench/advise-many.mjs's).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Advice, LevelAdvice } from '../../src/types/advice.js'
import { adviseGroups } from '../../src/advise/engine.js'
import { resolveInputs } from '../../src/advise/inputs.js'
import { defaultSettings } from '../../src/decide/settings.js'
import { renderAdviceText } from '../../src/report/advise.js'
import { renderAdviceMarkdown } from '../../src/report/advise-markdown.js'
import { renderAdviceHtml } from '../../src/report/advise-html.js'
import { openDatabase } from '../../src/db/database.js'
import { testAdviseOptions } from '../advise/options.js'
import { jsonNoteTexts, sstkit, toolPresent } from '../helpers.js'

const DB_BENCH = '/usr/bin/db_bench'
const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-many-'))
const DB = join(tmp, 'db')
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** ~150 live files of ~32 KiB in L0-L2, LZ4, in a few seconds (small memtables, no write stalls). */
const DB_BENCH_ARGS = [
  '--benchmarks=filluniquerandom',
  `--db=${DB}`,
  '--num=40000',
  '--value_size=200',
  '--compression_type=lz4',
  '--target_file_size_base=32768',
  '--max_bytes_for_level_base=131072',
  '--write_buffer_size=65536',
  '--max_background_jobs=2',
  '--level0_slowdown_writes_trigger=100',
  '--level0_stop_writes_trigger=200',
  '--soft_pending_compaction_bytes_limit=0',
  '--hard_pending_compaction_bytes_limit=0',
  '--seed=1',
  '--statistics=0',
  '--histogram=0',
]

/** Every number reachable from `v`, with its path. */
function numbers(v: unknown, path = ''): { path: string; value: number }[] {
  if (typeof v === 'number') return [{ path, value: v }]
  if (Array.isArray(v)) return v.flatMap((x, i) => numbers(x, `${path}[${i}]`))
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => numbers(x, `${path}.${k}`))
  return []
}

/** What must hold of every level of an advice on this database. */
function checkLevels(advice: Advice, liveLevels: number[]) {
  const levels = advice.columnFamilies.flatMap((c) => c.levels)
  expect(levels.map((l) => l.level).sort()).toEqual(liveLevels)
  for (const l of levels) {
    const where = `L${l.level}`
    const projection = [l.recommended.estimate.bytes, l.recommended.estimate.change]
    // A finite projection for every level: sampled, or today's bytes when not.
    for (const i of projection) for (const v of [i.estimate, i.low, i.high]) expect(Number.isFinite(v), where).toBe(true)
    if (l.sample.stopped === 'not-sampled') {
      expect(l.sample.blocks, where).toBe(0)
      expect(l.recommended.reason, where).toMatch(/^not sampled .*: keep today's setting$/)
      // Today is LZ4 everywhere (the files and OPTIONS say so): never "none".
      expect(l.recommended.estimate.setting.label, where).toBe('lz4')
      expect(l.matrix, where).toEqual([])
    } else {
      expect(l.sample.blocks, where).toBeGreaterThan(0)
      expect(l.matrix.length, where).toBeGreaterThan(1)
      for (const m of l.matrix)
        for (const v of [m.bytes.estimate, m.bytes.low, m.bytes.high]) expect(Number.isFinite(v), `${where} ${m.setting.label}`).toBe(true)
    }
  }
  for (const v of [advice.total.todayBytes, advice.total.projected.estimate, advice.total.projected.low, advice.total.change.estimate])
    expect(Number.isFinite(v)).toBe(true)
  // The options name a setting for every level, and a level not sampled gets today's.
  const options = advice.columnFamilies[0].options
  // (no compression_per_level where its every entry would be what compression gives)
  const perLevel = options.compression_per_level?.split(':')
  for (const l of levels) {
    const at = perLevel ? perLevel[l.level!] : options.compression
    if (l.sample.stopped === 'not-sampled') expect(at, `L${l.level}`).toBe('kLZ4Compression')
    if (l.bottommost && l.sample.stopped === 'not-sampled') expect(options.bottommost_compression).toBe('kLZ4Compression')
  }
}

/** The note on files drawn lists exactly the levels that read fewer files than they hold, with their counts (the JSON's text aside); none when every level read all. */
function checkDrawnNote(advice: Advice) {
  const levels = advice.columnFamilies.flatMap((c) => c.levels)
  const partial = levels.filter((l) => l.sample.filesRead < l.files).map((l) => ({ level: l.level, read: l.sample.filesRead, files: l.files }))
  const drawn = advice.notes.find((n) => n.code === 'files-sampled')
  if (partial.length === 0) {
    expect(drawn).toBeUndefined()
    return
  }
  if (drawn?.code !== 'files-sampled') throw new Error(`no files-sampled note, though ${partial.length} level(s) read fewer files than they hold`)
  expect(drawn.levels.map((l) => ({ level: l.level, read: l.read, files: l.files }))).toEqual(partial)
  expect(drawn.read).toBe(partial.reduce((a, l) => a + l.read, 0))
  expect(drawn.files).toBe(partial.reduce((a, l) => a + l.files, 0))
}

describe.runIf(toolPresent('db_bench', existsSync(DB_BENCH), 'apt-get install rocksdb-tools'))('advise on a db_bench database of many small files', () => {
  let liveLevels: number[] = []
  beforeAll(() => {
    const r = spawnSync(DB_BENCH, DB_BENCH_ARGS, { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const db = openDatabase(DB)
    liveLevels = db.columnFamilies[0].levels.flatMap((files, level) => (files.length > 0 ? [level] : []))
    const files = db.columnFamilies[0].levels.flat().length
    expect(files).toBeGreaterThan(100)
    expect(liveLevels.length).toBeGreaterThanOrEqual(3)
  }, 60_000)

  it('a budget that allows it: every level holding data is sampled, in every format without NaN', () => {
    const r = sstkit(['advise', DB, '--time-budget', '8s', '--json'])
    expect(r.status, r.stderr).toBe(0)
    const advice = JSON.parse(r.stdout) as Advice
    checkLevels(advice, liveLevels)
    // Files are drawn in proportion to their size as far as the budget goes, and the note says, level by level, how
    // many were read wherever fewer than all (how far 8 s go depends on the machine; the injected clock below draws).
    checkDrawnNote(advice)
    if (advice.notes.some((n) => n.code === 'files-sampled'))
      expect(jsonNoteTexts(advice).join('\n')).toMatch(/files drawn in proportion to their size, \d+ of \d+ read/)
    // No number in the JSON is NaN or infinite (JSON would have made it null).
    expect(r.stdout).not.toMatch(/NaN|Infinity/)
    for (const n of numbers(advice)) expect(Number.isFinite(n.value), n.path).toBe(true)
    for (const l of advice.columnFamilies[0].levels) expect(JSON.stringify(l.recommended.estimate.bytes)).not.toMatch(/null/)
  }, 30_000)

  it('keeps its time budget on a clock that charges every look at it (deterministic: no wall clock)', async () => {
    // Every read of the clock costs 100 ms: rounds, reads and timing passes are planned on what they were measured to cost.
    let t = 0
    const clock = () => (t += 100)
    const inputs = resolveInputs([DB])
    const budget = 3000
    const advice = await adviseGroups(inputs.groups, { ...testAdviseOptions(inputs, defaultSettings()), timeBudgetMs: budget, jobs: 1, clock })
    checkLevels(advice, liveLevels)
    // 100 ms a look at the clock leaves no time for every file: some are drawn, and the note says which levels.
    expect(advice.notes.some((n) => n.code === 'files-sampled')).toBe(true)
    checkDrawnNote(advice)
    expect(advice.elapsedSec * 1000).toBeLessThanOrEqual(budget * 1.1)
    expect(advice.columnFamilies[0].levels.some((l) => l.sample.blocks > 0)).toBe(true)
  }, 60_000)

  it('a budget too small for some levels: those say "not sampled" and keep today in text, Markdown, HTML and the options', () => {
    const json = sstkit(['advise', DB, '--time-budget', '1s', '--json'])
    expect(json.status, json.stderr).toBe(0)
    const advice = JSON.parse(json.stdout) as Advice
    checkLevels(advice, liveLevels)
    expect(json.stdout).not.toMatch(/NaN|Infinity/)
    const missing = advice.columnFamilies[0].levels.filter((l: LevelAdvice) => l.sample.stopped === 'not-sampled')
    // Text, Markdown and HTML of that same run, rendered as the command renders it: which levels a
    // second run's budget reaches could differ on a loaded machine.
    const text = { stdout: renderAdviceText(advice) }
    const markdown = { stdout: renderAdviceMarkdown(advice) }
    const html = renderAdviceHtml(advice)
    for (const [name, out] of [
      ['text', text.stdout],
      ['markdown', markdown.stdout],
      ['html', html],
    ]) {
      expect(out, name).not.toMatch(/NaN|Infinity|undefined/)
      expect(out, name).not.toMatch(/kNoCompression/)
    }
    // Which levels the budget reaches depends on the machine; whichever were not sampled say so everywhere.
    if (missing.length > 0) {
      expect(text.stdout).toMatch(/not sampled/)
      expect(markdown.stdout).toMatch(/not sampled/)
      expect(html).toMatch(/not sampled/)
      expect(advice.notes.find((n) => n.code === 'levels-not-sampled')).toMatchObject({ levels: expect.any(Array) })
      expect(jsonNoteTexts(advice).join('\n')).toMatch(/not sampled \(the time budget ended first\)/)
    }
  }, 30_000)
})

import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { spawnSync } from 'node:child_process'
import { parseOptionsFile, encodeOptionsFile } from '../../src/format/options-file.js'
import { newestOptionsFile } from '../../src/db/options.js'
import { adviseJson } from './advise-run.js'
import { ROOT, sstkit, toolPresent } from '../helpers.js'

const EXAMPLE = join(ROOT, 'examples/db')
/** Levels of hundreds of blocks (layered at 40x), so that a --sample share really samples. */
const MEDIUM = join(ROOT, 'test/fixtures/db-medium')
/** A small matrix: these tests are about which blocks are evaluated, not about the settings. */
const FEW = ['--types', 'zstd,lz4', '--levels', 'default', '--dict', 'none,finalize']
const DB = join(ROOT, 'test/fixtures/db')
const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('sstkit advise on a database written by real RocksDB', () => {
  const advice = adviseJson([EXAMPLE, '--time-budget', '120s'])

  it('sees the live files per column family and level as ldb lists them, and what OPTIONS says today', () => {
    const listed = readFileSync(join(DB, 'layered.live_files_metadata.txt'), 'utf8')
    expect(listed).toMatch(/level 3, column family 'default'/)
    expect(advice.source.kind).toBe('database')
    expect(advice.source.manifest).toMatch(/MANIFEST-\d+$/)
    expect(advice.source.optionsFile).toMatch(/OPTIONS-\d+$/)
    const levels = advice.columnFamilies.map((c) => `${c.name}:${c.levels.map((l) => `${l.level}${l.bottommost ? 'b' : ''}`).join(',')}`)
    expect(levels).toEqual(['default:0,1,2,3b', 'events:0,1,2,4b'])
    const bottom = advice.columnFamilies[0].levels[3]
    expect(bottom.todayCompression).toBe('ZSTD')
    expect(bottom.todayOptions?.type).toBe('zstd')
    expect(bottom.todayOptions?.dict).not.toBe('none')
  })

  it('recommends one setting per level, with a reason, a runner-up and paste-ready options', () => {
    for (const cf of advice.columnFamilies) {
      for (const l of cf.levels) {
        expect(l.matrix.map((m) => m.setting.label)).toContain(l.recommended.estimate.setting.label)
        expect(l.recommended.reason.length).toBeGreaterThan(5)
        expect(l.runnerUp?.estimate.setting.label).not.toBe(l.recommended.estimate.setting.label)
      }
      expect(cf.optionsText.split('\n')[0]).toBe(`[CFOptions "${cf.name}"]`)
      expect(cf.options.compression_per_level.split(':').length).toBeGreaterThanOrEqual(4)
      expect(cf.options.bottommost_compression).toMatch(/^k/)
      expect(cf.options.bottommost_compression_opts).toMatch(/enabled=true/)
    }
  })

  it('advises block_size per column family by default: today, each candidate with its projected bytes and interval, the recommendation', () => {
    for (const cf of advice.columnFamilies) {
      const b = cf.blockSize!
      expect(b.columnFamily).toBe(cf.name)
      expect(b.today).toBe(cf.name === 'default' ? 4096 : 8192)
      expect(b.candidates.map((c) => c.blockSize)).toEqual([...new Set([4096, 8192, 16384, 32768, 65536, b.today])].sort((x, y) => x - y))
      for (const c of b.candidates) {
        expect(Object.keys(c.bytes).sort()).toEqual(['estimate', 'high', 'low'])
        // Every file re-cut within the 120 s: exact.
        expect(c.bytes.low).toBe(c.bytes.estimate)
        expect(c.bytes.high).toBe(c.bytes.estimate)
      }
      expect(b.files).toEqual({ evaluated: b.files.of, of: cf.levels.reduce((n, l) => n + l.files, 0) })
      // Recommended only with a saving whose interval is wholly below today's.
      const today = b.candidates.find((c) => c.blockSize === b.today)!
      if (b.recommended !== null) expect(b.candidates.find((c) => c.blockSize === b.recommended)!.bytes.high).toBeLessThan(today.bytes.low)
    }
  })

  it('small levels are evaluated whole: the estimate is exact, the interval has no width', () => {
    for (const l of advice.columnFamilies.flatMap((c) => c.levels)) {
      expect(l.sample.stopped).toBe('all-blocks')
      for (const m of l.matrix) expect(m.bytes.high - m.bytes.low).toBe(0)
    }
  })

  it('prints a table that fits 100 columns, Markdown, and an HTML report written atomically', () => {
    const text = sstkit(['advise', EXAMPLE, '--time-budget', '120s'])
    expect(text.status).toBe(0)
    // The options are printed verbatim (for pasting): a diff against today's lines where there is an OPTIONS file.
    const options = new Set(advice.columnFamilies.flatMap((c) => c.optionsText.split('\n')))
    const diffLine = /^[-+] {2}[a-z_]+=/
    expect(text.stdout).toMatch(/^[-+] {2}[a-z_]+=/m)
    for (const line of text.stdout.split('\n')) if (!options.has(line) && !diffLine.test(line)) expect(line.length, line).toBeLessThanOrEqual(100)
    expect(text.stdout).toMatch(/RocksDB options to set/)
    // The block size: its section, and its table section's change with the column family's options.
    expect(text.stdout).toContain('\nBlock size per column family (block_size)\n')
    for (const cf of advice.columnFamilies) {
      const b = cf.blockSize!
      if (b.recommended === null) expect(text.stdout).toContain(`column family "${cf.name}": ${b.files.evaluated} of`)
      else expect(text.stdout).toContain(`[TableOptions/BlockBasedTable "${cf.name}"]\n-  block_size=${b.today}\n+  block_size=${b.recommended}\n`)
    }
    // Markdown and the HTML report from one run.
    const page = join(tmp, 'advice.html')
    const md = sstkit(['advise', EXAMPLE, '--format', 'markdown', '--report', page, '--time-budget', '120s'])
    expect(md.stdout).toMatch(/^\|.*\|$/m)
    expect(md.stdout).toMatch(/```diff\n\[CFOptions "default"\]\n[-+] {2}\w+=/)
    expect(md.stdout).toContain('\n### Block size per column family (block_size)\n')
    expect(md.status).toBe(0)
    expect(readFileSync(page, 'utf8')).toMatch(/<svg/)
    expect(readFileSync(page, 'utf8')).toContain('<section class="block-size">')
  }, 240_000)

  it('--block-size chooses the candidates (today always among them), none leaves block size out', () => {
    const chosen = adviseJson([EXAMPLE, '--time-budget', '120s', '--block-size', '16KiB'])
    for (const cf of chosen.columnFamilies) expect(cf.blockSize!.candidates.map((c) => c.blockSize)).toEqual([cf.blockSize!.today, 16384])
    const none = adviseJson([EXAMPLE, '--block-size', 'none'])
    expect(none.columnFamilies.every((cf) => cf.blockSize === undefined)).toBe(true)
  })
})

const LDB_PRESENT = spawnSync('ldb', ['--version'], { encoding: 'utf8' }).status === 0

describe.runIf(toolPresent('ldb', LDB_PRESENT, 'apt-get install rocksdb-tools'))('the options advise prints are what real RocksDB reads', () => {
  it('RocksDB 7.8.3 opens the database with every recommended option set in its OPTIONS file', () => {
    const a = adviseJson([EXAMPLE, '--time-budget', '120s'])
    const copy = join(tmp, 'db-advised-options')
    cpSync(EXAMPLE, copy, { recursive: true })
    const path = newestOptionsFile(copy)!
    const file = parseOptionsFile(readFileSync(path, 'utf8'), path)
    for (const cf of a.columnFamilies) {
      const section = file.sections.find((s) => s.title === 'CFOptions' && s.argument === cf.name)!
      for (const [key, value] of Object.entries(cf.options)) section.entries.set(key, value)
    }
    writeFileSync(path, encodeOptionsFile(file))
    const open = () => spawnSync('ldb', [`--db=${copy}`, 'scan', '--max_keys=1'], { encoding: 'utf8' })
    const r = open()
    expect(r.stderr + r.stdout).not.toMatch(/Failed|Invalid|Unrecognized/i)
    expect(r.status).toBe(0)
    // ldb does read that file: a value RocksDB does not know makes the same open fail.
    const section = file.sections.find((s) => s.title === 'CFOptions' && s.argument === 'default')!
    section.entries.set('bottommost_compression_opts', '{level=6;no_such_option=1;}')
    writeFileSync(path, encodeOptionsFile(file))
    const bad = open()
    expect(bad.stderr + bad.stdout).toMatch(/no_such_option|Invalid|Failed/i)
  })
})

describe('sstkit advise on plain files and damaged databases', () => {
  it('groups plain files by the column family their properties name; levels unknown, one setting each', () => {
    const files = ['000009.sst', '000019.sst', '000011.sst'].map((f) => join(EXAMPLE, f))
    const a = adviseJson([...files, '--time-budget', '120s'])
    expect(a.source.kind).toBe('files')
    expect(a.columnFamilies.map((c) => c.name).sort()).toEqual(['default', 'events'])
    for (const cf of a.columnFamilies) {
      expect(cf.levels).toHaveLength(1)
      expect(cf.levels[0].level).toBeNull()
      expect(Object.keys(cf.options)).toEqual(['compression', 'compression_opts'])
    }
    expect(a.notes).toContainEqual({
      code: 'no-manifest',
      text: 'no MANIFEST: levels are unknown, so each column family gets one setting (compression and compression_opts)',
    })
  })

  it('files on disk the MANIFEST does not list are reported and left out', () => {
    const a = adviseJson([join(DB, 'churn'), '--time-budget', '5s'])
    expect(a.source.unlistedFiles.map((f) => f.split('/').pop()).sort()).toEqual(['000900.sst', '000901.ldb'])
    const used = a.columnFamilies.flatMap((c) => c.levels).reduce((n, l) => n + l.files, 0)
    expect(used).toBe(3)
  })

  it('a live file missing on disk (ldb fails on it) is a finding: one line naming it, exit 1, the rest advised on', () => {
    const r = sstkit(['advise', join(DB, 'churn-missing'), '--json', '--time-budget', '5s'])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^sstkit: \S*churn-missing\/000021\.sst: live file the MANIFEST lists is missing on disk: left out$/m)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.problems.map((p) => p.file.split('/').pop())).toEqual(['000021.sst'])
    expect(a.columnFamilies.flatMap((c) => c.levels).length).toBeGreaterThan(0)
  })

  it('a damaged MANIFEST is one line naming it and the offset, exit 2', () => {
    const r = sstkit(['advise', join(DB, 'layered-damaged-crc')])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/MANIFEST-000005.*checksum mismatch.*offset \d+/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('a damaged live SST is reported with its file and left out; the rest is still advised on (exit 1)', () => {
    const copy = join(tmp, 'db-damaged-sst')
    cpSync(EXAMPLE, copy, { recursive: true })
    truncateSync(join(copy, '000011.sst'), 100)
    const r = sstkit(['advise', copy, '--json', '--time-budget', '5s'])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/000011\.sst: .*left out/)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.problems).toHaveLength(1)
    expect(a.columnFamilies.flatMap((c) => c.levels).length).toBe(7)
    expect(existsSync(join(copy, '000011.sst'))).toBe(true)
    copyFileSync(join(EXAMPLE, '000011.sst'), join(copy, '000011.sst'))
  })

  it('--max-bytes: the least CPU that keeps the total within the limit, or each level its smallest and says so', () => {
    const base = [MEDIUM, ...FEW, '--sample', '30%']
    // Block size is not this test's subject (and not evaluated under --max-bytes): left out of the free run too.
    const free = adviseJson([...base, '--block-size', 'none'])
    const today = free.total.todayBytes
    const fit = adviseJson([...base, '--max-bytes', '85%'])
    expect(fit.total.maxBytes).toEqual({ bytes: 0.85 * today, met: true })
    expect(fit.total.projected.estimate).toBeLessThanOrEqual(0.85 * today)
    const levels = fit.columnFamilies.flatMap((c) => c.levels)
    for (const l of levels) expect(l.recommended.reason, `L${l.level}`).toMatch(/--max-bytes \(85% of today's total\)/)
    // Some level gets less than its smallest setting: the limit is met at less CPU than squeezing everything.
    expect(levels.some((l) => l.recommended.estimate.bytes.estimate > Math.min(...l.matrix.map((m) => m.bytes.estimate)))).toBe(true)
    const absolute = adviseJson([...base, '--max-bytes', String(Math.round(0.85 * today))])
    expect(absolute.columnFamilies.flatMap((c) => c.levels.map((l) => l.recommended.estimate.setting.label))).toEqual(
      levels.map((l) => l.recommended.estimate.setting.label),
    )
    const tight = adviseJson([...base, '--max-bytes', '1KiB'])
    expect(tight.total.maxBytes).toEqual({ bytes: 1024, met: false })
    for (const l of tight.columnFamilies.flatMap((c) => c.levels)) {
      expect(l.recommended.reason).toMatch(/^the smallest: no choice of settings fits --max-bytes/)
      // The upper levels' smallest that share one compression_opts; the bottommost level has its own.
      if (l.bottommost) expect(l.recommended.estimate.bytes.estimate).toBe(Math.min(...l.matrix.map((m) => m.bytes.estimate)))
    }
    const text = sstkit(['advise', ...base, '--max-bytes', '1KiB'])
    expect(text.stdout).toMatch(/--max-bytes +│ +│ +1\.00 KiB │ +does not fit │/)
    const md = sstkit(['advise', ...base, '--max-bytes', '85%', '--format', 'markdown'])
    expect(md.stdout).toMatch(/- \*\*--max-bytes:\*\* .*: the projected total fits/)
  }, 240_000)

  it('usage errors are exit 2 and name the flag', () => {
    for (const [args, message] of [
      [['--time-budget', 'soon'], /--time-budget takes a duration/],
      [['--precision', '200%'], /--precision must be/],
      [['--shard', '1/2'], /--shard needs --sample/],
      [['--levels', '3'], /give --types too/],
      [['--types', 'brotli'], /unknown compression type "brotli"/],
      [['--max-bytes', '1XB'], /--max-bytes takes a size such as 500MiB/],
      [['--max-bytes', '0%'], /--max-bytes must be above 0%/],
      [['--block-size', '2MiB'], /--block-size: 2097152 is above advise's largest block size/],
      [['--block-size', '16KiB', '--max-bytes', '80%'], /--block-size is advised under an objective/],
      [['--block-size', '16KiB', '--shard', '0/2', '--sample', '5%'], /--block-size is advised over the whole database, not a --shard/],
      [['--merge', '--block-size', 'none'], /--block-size cannot be used together with --merge/],
    ] as [string[], RegExp][]) {
      const r = sstkit(['advise', EXAMPLE, ...args])
      expect(r.status, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(message)
    }
    const none = sstkit(['advise', join(tmp, 'nothing-here')])
    expect(none.status).toBe(2)
    expect(none.stderr).toMatch(/no such file or directory/)
  })
})

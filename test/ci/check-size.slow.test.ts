/**
 * `sstkit check-size` end to end on real fixtures: pass, regression, the
 * edges of every threshold, new/missing files, bad baselines and SSTs, and
 * the CI outputs (JUnit, Markdown, $GITHUB_STEP_SUMMARY, annotations).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BAD, ROOT, sstkit } from '../helpers.js'
import { cleanup, CONFIGS, err, NAMES, ok, readJson, row, takeBaseline, workspace, writeJson, type Workspace } from './workspace.js'
import { findAll, parseXml } from './xml.js'

let ws: Workspace
let base: any
/** data/a.sst rewritten without compression: the "worse" file. */
let worse: string

/** Rows of a --json result by "name config". */
function statuses(json: any): Record<string, string> {
  return Object.fromEntries(json.rows.map((r: any) => [`${r.name} ${r.config}`, r.status]))
}

beforeAll(() => {
  ws = workspace('check')
  base = takeBaseline(ws)
  worse = join(ws.dir, 'a-worse.sst')
  ok(sstkit(['rewrite', join(ws.data, 'a.sst'), '-o', worse, '--compression', 'none', '--keep-blocks']))
})

afterAll(cleanup)

describe('check-size', () => {
  it('the baseline records versions, settings, and exact per file × configuration counts', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(base).toMatchObject({ schema: 'sstkit-baseline', schemaVersion: 1, sstkitVersion: pkg.version, flags: [] })
    expect(base.zstd.library).toMatch(/^\d+\.\d+\.\d+$/)
    expect(base.settings).toMatchObject({ types: ['zstd'], levels: [3, 9], dicts: ['none'], checksums: ['off'], blockSize: null, samplePercent: 100 })
    expect(base.files.map((f: any) => f.name)).toEqual(NAMES)
    for (const f of base.files) {
      expect(f.rows.map((r: any) => r.config)).toEqual(CONFIGS)
      expect(f.entries).toBeGreaterThan(0)
      const stored = f.rows[0]
      expect(stored.fileBytes).toBe(statSync(join(ws.dir, f.path)).size)
      for (const r of f.rows.slice(1)) {
        expect(r.dataBytes + r.dictBytes + r.indexBytes + r.filterBytes + r.metaBytes).toBe(r.fileBytes)
        expect(r.ratio).toBeCloseTo(r.uncompressedBytes / (r.dataBytes + r.dictBytes), 9)
        expect(r.timings.compressMs).toBeGreaterThanOrEqual(0)
      }
    }
    // What was printed is what was written.
    expect(readJson(ws.baseline)).toEqual(base)
  })

  it('an unchanged run passes, with one JUnit test case per file × configuration', () => {
    const junit = join(ws.dir, 'pass.xml')
    const r = ok(sstkit(['check-size', ws.data, '--baseline', ws.baseline, '--jobs', '1', '--junit', junit]))
    expect(r.stdout).toMatch(/size check passed: 9 unchanged/)
    const xml = parseXml(readFileSync(junit, 'utf8'))
    expect(findAll(xml, 'testcase')).toHaveLength(9)
    expect(findAll(xml, 'failure')).toHaveLength(0)
    expect(xml.attrs).toMatchObject({ tests: '9', failures: '0', errors: '0' })
  })

  it('a worse-compressed file fails (exit 1) and names the row, in the table, JUnit, Markdown, step summary and annotations', () => {
    const summary = join(ws.dir, 'summary.md')
    writeFileSync(summary, '# earlier step\n')
    const junit = join(ws.dir, 'fail.xml')
    const files = [`data/a.sst=${worse}`, join(ws.data, 'b.sst'), join(ws.data, 'c.sst')]
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }
    const j = ok(sstkit(['check-size', ...files, '--baseline', ws.baseline, '--jobs', '1', '--json', '--junit', junit], { env }), 1)
    const json = JSON.parse(j.stdout)
    expect(json.ok).toBe(false)
    const first = json.rows[0]
    expect(first).toMatchObject({ name: 'data/a.sst', config: 'stored', status: 'regression', severity: 'fail' })
    expect(first.before).toBe(row(base, 'data/a.sst', 'stored').fileBytes)
    expect(first.after).toBe(statSync(worse).size)
    expect(first.change).toBe(first.after - first.before)
    // Under --json the annotations go to stderr, stdout stays JSON.
    expect(j.stderr).toContain('::error file=')
    expect(j.stderr).toMatch(/^::error file=.*,title=SST size regression::data\/a\.sst \[stored\]: FAIL regression/m)

    const failures = json.rows.filter((x: any) => x.severity === 'fail').length
    const xml = parseXml(readFileSync(junit, 'utf8'))
    const cases = findAll(xml, 'testcase')
    expect(cases).toHaveLength(9)
    expect(findAll(xml, 'failure')).toHaveLength(failures)
    expect(xml.attrs.failures).toBe(String(failures))
    const failed = cases.find((c) => c.children.some((x) => x.name === 'failure'))!
    expect(failed.attrs).toMatchObject({ classname: 'data/a.sst', name: 'stored' })

    // $GITHUB_STEP_SUMMARY is appended to, not replaced; the Markdown is a table.
    const md = readFileSync(summary, 'utf8')
    expect(md.startsWith('# earlier step\n')).toBe(true)
    expect(md).toContain('❌ sstkit size check FAILED')
    const lines = md.split('\n')
    const head = lines.findIndex((l) => l.startsWith('| File | Config | Before | After | Change | Change % | Status'))
    expect(head).toBeGreaterThan(0)
    const cols = lines[head].split(' | ').length
    expect(lines[head + 1]).toMatch(/^\|(-{3}|-{3}:)(\|(-{3}|-{3}:))+\|$/)
    expect(lines[head + 1].split('|').length - 2).toBe(cols)
    expect(lines[head + 2]).toMatch(/^\| data\/a\.sst \| stored \| [\d,]+ \| [\d,]+ \| \+[\d,]+ \| \+\d+\.\d\d% \| FAIL regression \|/)
    expect(md).toMatch(/<details><summary>\d+ unchanged<\/summary>/)

    // The table: worst first, on stdout with the annotations.
    const t = ok(sstkit(['check-size', ...files, '--baseline', ws.baseline, '--jobs', '1'], { env: { GITHUB_ACTIONS: 'true' } }), 1)
    const out = t.stdout.split('\n')
    expect(out[0]).toMatch(/^::error file=.*a-worse\.sst,title=SST size regression::data\/a\.sst \[stored\]/)
    const firstRow = out.find((l) => l.startsWith('│ data/'))!
    expect(firstRow).toMatch(/data\/a\.sst\s+│ stored\s+│.*FAIL regression/)
    expect(t.stdout).toMatch(/size check FAILED: \d+ regressed/)
    expect(t.stdout).toContain('any increase fails')

    // --markdown prints the same document.
    const m = ok(sstkit(['check-size', ...files, '--baseline', ws.baseline, '--jobs', '1', '--markdown', '--max-increase', '1000%']))
    expect(m.stdout).toMatch(/^### ✅ sstkit size check passed/)
    expect(m.stdout).toMatch(/\| data\/a\.sst \| stored \| .* \| grew \| within \+1000% \|/)
    // --format markdown, as layout and recompress spell it, is the same document.
    const f = ok(sstkit(['check-size', ...files, '--baseline', ws.baseline, '--jobs', '1', '--format', 'markdown', '--max-increase', '1000%']))
    expect(f.stdout).toBe(m.stdout)
  })

  it('relative threshold: exactly at the limit passes, just past it fails (exact arithmetic)', () => {
    // Tamper the baseline's before-sizes of data/a.sst; the files on disk are unchanged.
    const doc = readJson(ws.baseline)
    const sizeOfA = (c: string) => row(base, 'data/a.sst', c).fileBytes as number
    const b0 = 5000 // a power-of-ten-friendly size: the growth is an exact decimal percentage
    expect(sizeOfA('stored')).toBeGreaterThan(b0)
    const pct = ((sizeOfA('stored') - b0) / 50).toString() // 100 · (A - 5000) / 5000
    const [int, frac = ''] = pct.split('.')
    const num = BigInt(int + frac)
    const scale = 10n ** BigInt(frac.length)
    // fails ⇔ (A - B) · 100 · scale > num · B ⇔ B < A · 100 · scale / (100 · scale + num)
    const edge = (a: number) => {
      const n = BigInt(a) * 100n * scale
      const d = 100n * scale + num
      return Number((n + d - 1n) / d) // the smallest passing B
    }
    row(doc, 'data/a.sst', 'stored').fileBytes = b0
    row(doc, 'data/a.sst', 'zstd-3-none-off').fileBytes = edge(sizeOfA('zstd-3-none-off')) - 1
    row(doc, 'data/a.sst', 'zstd-9-none-off').fileBytes = edge(sizeOfA('zstd-9-none-off'))
    const path = join(ws.dir, 'pct.json')
    writeJson(path, doc)
    const r = ok(sstkit(['check-size', ws.data, '--baseline', path, '--jobs', '1', '--max-increase', `${pct}%`, '--json']), 1)
    expect(statuses(JSON.parse(r.stdout))).toMatchObject({
      'data/a.sst stored': 'grew',
      'data/a.sst zstd-3-none-off': 'regression',
      'data/a.sst zstd-9-none-off': 'grew',
      'data/b.sst stored': 'unchanged',
    })
    expect(JSON.parse(r.stdout).counts.regression).toBe(1)
  })

  it('absolute threshold, change floor and budgets at their edges; config file with flags overriding it', () => {
    const doc = readJson(ws.baseline)
    const set = (name: string, config: string, delta: number) => {
      row(doc, name, config).fileBytes = row(base, name, config).fileBytes + delta
    }
    set('data/a.sst', 'stored', -300) // grew by exactly 300: at the limit
    set('data/a.sst', 'zstd-3-none-off', -301) // one past
    set('data/a.sst', 'zstd-9-none-off', +49) // 49 smaller: under the 50-byte floor
    set('data/b.sst', 'stored', -49) // 49 larger: under the floor
    set('data/b.sst', 'zstd-3-none-off', -50) // 50 larger: at the floor, counted, within the limit
    set('data/b.sst', 'zstd-9-none-off', +50) // 50 smaller: counted
    const path = join(ws.dir, 'abs.json')
    writeJson(path, doc)
    const cStored = row(base, 'data/c.sst', 'stored').fileBytes
    const c3 = row(base, 'data/c.sst', 'zstd-3-none-off').fileBytes
    const config = join(ws.dir, 'ci.json')
    writeJson(config, {
      checkSize: {
        baseline: 'abs.json',
        maxIncreaseBytes: '1KiB', // overridden by the flag below
        minChangeBytes: 50,
        budgets: { 'data/c.sst:stored': cStored, 'data/c.sst:zstd-3-none-off': `${c3 - 1}B`, 'zstd-9-none-off': '6KiB', '*': '1MB' },
      },
    })
    const r = ok(sstkit(['check-size', ws.data, '--config', config, '--max-increase-bytes', '300', '--jobs', '1', '--json']), 1)
    const json = JSON.parse(r.stdout)
    expect(json.baseline).toBe(path)
    expect(json.thresholds).toMatchObject({ maxIncreaseBytes: 300, minChangeBytes: 50 })
    expect(statuses(json)).toEqual({
      'data/a.sst stored': 'grew',
      'data/a.sst zstd-3-none-off': 'regression',
      'data/a.sst zstd-9-none-off': 'unchanged',
      'data/b.sst stored': 'unchanged',
      'data/b.sst zstd-3-none-off': 'grew',
      'data/b.sst zstd-9-none-off': 'smaller',
      'data/c.sst stored': 'unchanged',
      'data/c.sst zstd-3-none-off': 'over-budget',
      'data/c.sst zstd-9-none-off': 'unchanged',
    })
    // Worst first; the improvement last.
    expect(json.rows.slice(0, 2).map((x: any) => x.status)).toEqual(['regression', 'over-budget'])
    expect(json.rows.at(-1).status).toBe('smaller')
    expect(json.rows.find((x: any) => x.config === 'zstd-9-none-off' && x.name === 'data/a.sst').reason).toMatch(/below the 50-byte floor/)
    expect(json.rows.find((x: any) => x.config === 'zstd-3-none-off' && x.name === 'data/c.sst').reason).toBe(
      `${c3.toLocaleString('en-US')} B > budget ${c3 - 1}B (${(c3 - 1).toLocaleString('en-US')} B)`,
    )
  })

  it('"sstkit" in package.json is found in the working directory; no files: the baseline\'s own', () => {
    writeJson(join(ws.dir, 'package.json'), { name: 'x', private: true, sstkit: { checkSize: { baseline: 'sstkit-baseline.json', maxIncrease: '0.5%' } } })
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), 'check-size', '--jobs', '1', '--json'], { cwd: ws.dir, encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const json = JSON.parse(r.stdout)
    expect(json).toMatchObject({ ok: true, config: 'package.json#sstkit', baseline: 'sstkit-baseline.json', thresholds: { maxIncrease: '0.5%' } })
    expect(json.counts.unchanged).toBe(9)
  })

  it('new and missing files are reported; missing fails unless --allow-missing', () => {
    const doc = readJson(ws.baseline)
    const gone = structuredClone(doc.files[2])
    gone.name = gone.path = 'data/gone.sst'
    doc.files = [doc.files[0], doc.files[1], gone] // data/c.sst is not in this baseline
    const path = join(ws.dir, 'newmissing.json')
    writeJson(path, doc)
    const r = ok(sstkit(['check-size', ws.data, '--baseline', path, '--jobs', '1', '--json']), 1)
    const json = JSON.parse(r.stdout)
    expect(json.newFiles).toEqual(['data/c.sst'])
    expect(json.missingFiles).toEqual(['data/gone.sst'])
    expect(json.counts).toMatchObject({ new: 3, missing: 3, unchanged: 6 })
    const a = ok(sstkit(['check-size', ws.data, '--baseline', path, '--jobs', '1', '--allow-missing']))
    expect(a.stdout).toMatch(/data\/gone\.sst\s+│ stored .*│ missing/)
    expect(a.stdout).toMatch(/data\/c\.sst\s+│ stored .*│ new/)
  })

  it('unreadable, corrupt, foreign and future baselines are exit 2 with a clear message', () => {
    const cases: [string, string, RegExp][] = [
      ['missing.json', '', /baseline .*missing\.json: no such file/],
      ['broken.json', '{"schema": "sstkit-baseline", "schemaVersion": 1,', /baseline .*broken\.json: not valid JSON/],
      ['foreign.json', '{"name": "x"}', /not an sstkit baseline/],
      ['future.json', JSON.stringify({ ...base, schemaVersion: 99 }), /schema version 99 is not supported \(this sstkit reads version 1\)/],
      [
        'norows.json',
        JSON.stringify({ ...base, files: [{ ...base.files[0], rows: [{ config: 'stored' }] }] }),
        /files\[0\]\.rows\[0\]: "dataBytes" must be a byte or block count/,
      ],
    ]
    for (const [name, text, message] of cases) {
      const path = join(ws.dir, name)
      if (text) writeFileSync(path, text)
      const r = sstkit(['check-size', ws.data, '--baseline', path])
      expect(r.status, name).toBe(2)
      expect(err(r), name).toMatch(message)
      expect(r.stdout, name).toBe('')
    }
  })

  it('a zstd version change is exit 2, named as such; --allow-version-change compares anyway', () => {
    const path = join(ws.dir, 'oldzstd.json')
    writeJson(path, { ...base, zstd: { ...base.zstd, library: '1.4.0' } })
    const r = sstkit(['check-size', ws.data, '--baseline', path, '--jobs', '1'])
    expect(r.status).toBe(2)
    expect(err(r)).toMatch(/zstd changed since the baseline was taken: zstd library \(compresses the blocks\) 1\.4\.0 → \d+\.\d+\.\d+/)
    expect(r.stderr).toContain('--allow-version-change')
    const a = ok(sstkit(['check-size', ws.data, '--baseline', path, '--jobs', '1', '--allow-version-change'], { env: { GITHUB_ACTIONS: 'true' } }))
    expect(a.stderr).toMatch(/warning: zstd changed since the baseline was taken.*accepted with --allow-version-change/)
    expect(a.stdout).toMatch(/^::warning title=sstkit check-size::zstd changed/m)
  })

  it('a corrupt SST is exit 2 with the file and the problem named; the others are still compared', () => {
    const r = sstkit([
      'check-size',
      ws.data,
      `data/bad.sst=${join(BAD, 'data-flip-zstd.sst')}`,
      `data/short.sst=${join(BAD, 'truncated-half.sst')}`,
      '--baseline',
      ws.baseline,
      '--jobs',
      '1',
      '--junit',
      join(ws.dir, 'err.xml'),
    ])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/data-flip-zstd\.sst: 1 data block\(s\) could not be read \(first at offset \d+: data block checksum mismatch/)
    expect(r.stderr).toMatch(/truncated-half\.sst: not an SST file/)
    expect(r.stdout).toMatch(/data\/bad\.sst\s+│ \*.*│ ERROR/)
    expect(r.stdout).toMatch(/size check error: 2 could not be measured, 9 unchanged/)
    const xml = parseXml(readFileSync(join(ws.dir, 'err.xml'), 'utf8'))
    expect(findAll(xml, 'error')).toHaveLength(2)
  })

  it('usage errors: a budget naming no configuration, a bad size or percentage, a missing path (exit 2)', () => {
    const cases: [string[], RegExp][] = [
      [['--budget', 'zstd-6-none-off=10MB'], /no such configuration \(the baseline has stored, zstd-3-none-off, zstd-9-none-off\)/],
      [['--budget', 'stored=10 parsecs'], /is not a size/],
      [['--max-increase', '1'], /not a percentage \(write it with a % sign/],
      [['--min-change-bytes', '-5'], /is not a size/],
      [[join(ws.dir, 'nope')], /nope: no such file or directory/],
      [['--types', 'lz4'], /unknown flag --types/],
    ]
    for (const [args, message] of cases) {
      const r = sstkit(['check-size', ...(args[0].startsWith('-') ? [ws.data] : []), ...args, '--baseline', ws.baseline])
      expect(r.status, args.join(' ')).toBe(2)
      expect(err(r), args.join(' ')).toMatch(message)
    }
  })
})

/**
 * `sstkit baseline`: determinism across runs and --jobs, --update (atomic,
 * same settings), refusing to overwrite, flags recorded, corrupt inputs.
 */
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSize } from '../../src/report/text.js'
import { BAD, sstkit } from '../helpers.js'
import { cleanup, err, ok, readJson, row, takeBaseline, workspace, type Workspace } from './workspace.js'

let ws: Workspace
let base: any

function withoutTimings(doc: any): any {
  const d = structuredClone(doc)
  for (const f of d.files) for (const r of f.rows) delete r.timings
  return d
}

beforeAll(() => {
  ws = workspace('baseline')
  base = takeBaseline(ws)
})

afterAll(cleanup)

describe('baseline', () => {
  it('sizes are deterministic across runs and --jobs; --no-timings files are byte-identical', () => {
    const one = join(ws.dir, 'jobs1.json')
    const two = join(ws.dir, 'jobs2.json')
    ok(sstkit(['baseline', ws.data, '-o', one, '--jobs', '1', '--no-timings']))
    ok(sstkit(['baseline', ws.data, '-o', two, '--jobs', '2', '--no-timings']))
    expect(readFileSync(two, 'utf8')).toBe(readFileSync(one, 'utf8'))
    expect(readJson(one)).toEqual(withoutTimings(base))
    // Updating an unchanged baseline taken with --no-timings reproduces it byte for byte.
    const text = readFileSync(one, 'utf8')
    ok(sstkit(['baseline', '--update', '-o', one, '--jobs', '2']))
    expect(readFileSync(one, 'utf8')).toBe(text)
    // And check-size measures the same under --jobs 2 as the --jobs 1 baseline.
    const r = ok(sstkit(['check-size', ws.data, '--baseline', ws.baseline, '--jobs', '2', '--json']))
    expect(JSON.parse(r.stdout).counts.unchanged).toBe(9)
  })

  it('prints sizes in KiB like every table, and with --bytes the exact counts the baseline file holds', () => {
    const path = join(ws.dir, 'units.json')
    const human = ok(sstkit(['baseline', join(ws.data, 'a.sst'), '-o', path, '--levels', '3', '--jobs', '1']))
    const doc = readJson(path)
    const stored = row(doc, 'data/a.sst', 'stored')
    const cells = (out: string, config: string) =>
      out
        .split('\n')
        .find((l) => l.includes(` ${config} `))!
        .split('│')
        .map((c) => c.trim())
    // After the left border: File, Config, Entries, Data, Index, Filter, Total, Ratio
    // (Compression only with --wide, Dict only when a row has a dictionary: none here)
    expect(stored.dictBytes).toBe(0)
    expect(cells(human.stdout, 'stored').slice(4, 8)).toEqual([
      formatSize(stored.dataBytes),
      formatSize(stored.indexBytes),
      formatSize(stored.filterBytes),
      formatSize(stored.fileBytes),
    ])
    expect(cells(human.stdout, 'stored')[7]).toMatch(/^\d+\.\d+ KiB$/)
    const exact = ok(sstkit(['baseline', join(ws.data, 'a.sst'), '-o', path, '--levels', '3', '--jobs', '1', '--force', '--bytes']))
    for (const config of ['stored', 'zstd-3-none-off']) {
      const r = row(readJson(path), 'data/a.sst', config)
      expect(cells(exact.stdout, config).slice(4, 8)).toEqual([r.dataBytes, r.indexBytes, r.filterBytes, r.fileBytes].map(String))
    }
  })

  it('refuses to replace an existing baseline without --update or --force', () => {
    const before = readFileSync(ws.baseline, 'utf8')
    const r = sstkit(['baseline', ws.data, '-o', ws.baseline])
    expect(r.status).toBe(2)
    expect(err(r)).toMatch(/exists: use --update to re-measure it with its own settings, or --force to replace it/)
    expect(readFileSync(ws.baseline, 'utf8')).toBe(before)
  })

  it('records the flags given and the resolved settings; check-size reuses them, not its command line', () => {
    const path = join(ws.dir, 'custom.json')
    const doc = JSON.parse(
      ok(sstkit(['baseline', join(ws.data, 'a.sst'), '-o', path, '--levels', '1', '--checksum', 'on', '--types', 'zstd,snappy', '--jobs', '1', '--json']))
        .stdout,
    )
    expect(doc.flags).toEqual(['--levels', '1', '--checksum', 'on', '--types', 'zstd,snappy'])
    expect(doc.settings).toMatchObject({ types: ['zstd', 'snappy'], levels: [1], dicts: ['none'], checksums: ['on'] })
    expect(doc.files[0].rows.map((r: any) => r.config)).toEqual(['stored', 'zstd-1-none-on', 'snappy-default-none-off'])
    const r = ok(sstkit(['check-size', join(ws.data, 'a.sst'), '--baseline', path, '--jobs', '1', '--json']))
    expect(
      JSON.parse(r.stdout)
        .rows.map((x: any) => x.config)
        .sort(),
    ).toEqual(['snappy-default-none-off', 'stored', 'zstd-1-none-on'])
  })

  it('--update re-measures with the same settings and replaces the file atomically', () => {
    const dir = workspace('update')
    takeBaseline(dir)
    const original = readFileSync(dir.baseline, 'utf8')
    const inode = statSync(dir.baseline).ino

    // Settings come from the baseline: measurement flags are refused.
    const refused = sstkit(['baseline', '--update', '-o', dir.baseline, '--levels', '6'])
    expect(refused.status).toBe(2)
    expect(err(refused)).toMatch(/--update re-measures with the baseline's own settings: drop --levels/)

    // A failed update (a corrupt file) leaves the baseline exactly as it was.
    const failed = sstkit(['baseline', '--update', '-o', dir.baseline, `data/a.sst=${join(BAD, 'index-flip.sst')}`, '--jobs', '1'])
    expect(failed.status).toBe(2)
    expect(failed.stderr).toMatch(/index-flip\.sst: index block checksum mismatch/)
    expect(err(failed)).toMatch(/baseline not written: 1 file\(s\) could not be measured/)
    expect(readFileSync(dir.baseline, 'utf8')).toBe(original)

    // The file changes; the check fails; --update (no files: the baseline's own) accepts it; the check passes.
    copyFileSync(join(ws.data, 'b.sst'), join(dir.data, 'a.sst'))
    ok(sstkit(['check-size', '--baseline', dir.baseline, '--jobs', '1']), 1)
    const u = ok(sstkit(['baseline', '--update', '-o', dir.baseline, '--jobs', '1']))
    expect(u.stdout).toMatch(/updated .*sstkit-baseline\.json: 3 file\(s\) × 3 configuration\(s\) \(\d of 9 sizes changed\)/)
    const updated = readJson(dir.baseline)
    expect(row(updated, 'data/a.sst', 'stored').fileBytes).toBe(statSync(join(ws.data, 'b.sst')).size)
    expect(updated.settings).toEqual(readJson(ws.baseline).settings)
    expect(updated.files[0].rows[1].timings.compressMs).toBeGreaterThanOrEqual(0)
    // Renamed into place (a new inode), no temporary file left behind.
    expect(statSync(dir.baseline).ino).not.toBe(inode)
    expect(readdirSync(dir.dir).filter((n) => n.includes('.tmp'))).toEqual([])
    ok(sstkit(['check-size', '--baseline', dir.baseline, '--jobs', '1']))
  })

  it('a corrupt SST or an unusable argument writes no baseline (exit 2)', () => {
    const out = join(ws.dir, 'never.json')
    const r = sstkit(['baseline', ws.data, join(BAD, 'data-flip-none.sst'), '-o', out, '--jobs', '1'])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/data-flip-none\.sst: 1 data block\(s\) could not be read/)
    const cases: [string[], RegExp][] = [
      [[ws.data, '--levels', 'x'], /not a level or range/],
      [[ws.data, '--strip', '('], /Invalid regular expression/],
      [[ws.data, `dup=${join(ws.data, 'a.sst')}`, `dup=${join(ws.data, 'b.sst')}`], /both have the name "dup"/],
      [[], /give the SST files or directories to measure/],
    ]
    for (const [args, message] of cases) {
      const e = sstkit(['baseline', ...args, '-o', out])
      expect(e.status, args.join(' ')).toBe(2)
      expect(err(e), args.join(' ')).toMatch(message)
    }
    expect(() => statSync(out)).toThrow()
  })

  it('--strip gives numbered files stable names', () => {
    const path = join(ws.dir, 'strip.json')
    const doc = JSON.parse(ok(sstkit(['baseline', ws.data, '-o', path, '--strip', '^data/', '--levels', '3', '--jobs', '1', '--json'])).stdout)
    expect(doc.files.map((f: any) => f.name)).toEqual(['a.sst', 'b.sst', 'c.sst'])
    expect(doc.files.map((f: any) => f.path)).toEqual(['data/a.sst', 'data/b.sst', 'data/c.sst'])
    expect(doc.settings.strip).toBe('^data/')
  })
})

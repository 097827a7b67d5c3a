/** Every command's table fits 100 columns by default, in human sizes; --bytes gives exact bytes. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, sstkit } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-tables-'))
// Paths are printed whole, never cut: outputs go to a short relative path (.scratch/ is ignored by git).
const SCRATCH = '.scratch/tt'
mkdirSync(join(ROOT, SCRATCH), { recursive: true })
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(join(ROOT, SCRATCH), { recursive: true, force: true })
  rmSync(join(ROOT, 'tables-test-baseline.tmp'), { force: true })
})
const SAMPLE = 'examples/sample.sst'
/** Display columns of the widest line (box characters are one column each). */
const widest = (s: string) => Math.max(...s.split('\n').map((l) => [...l].length))

describe('tables at 100 columns', () => {
  // In the repository root (*.tmp is ignored by git): its file names are relative to it, short as in a repository.
  const baseline = 'tables-test-baseline.tmp'

  it('props, layout, scan headers, recompress, rewrite, baseline and check-size fit', () => {
    const runs: [string, string[]][] = [
      ['props', ['props', SAMPLE, 'test/fixtures/real/fv5-zstd.sst']],
      ['layout', ['layout', SAMPLE]],
      ['scan', ['scan', SAMPLE, 'test/fixtures/real/fv5-none.sst', '--limit', '0']],
      ['recompress', ['recompress', SAMPLE, '--levels', '1,3']],
      ['rewrite', ['rewrite', SAMPLE, '-o', `${SCRATCH}/out.sst`]],
      ['baseline', ['baseline', SAMPLE, '--levels', '1', '--no-timings', '-o', baseline]],
      ['check-size', ['check-size', SAMPLE, '-b', baseline]],
    ]
    for (const [name, args] of runs) {
      const r = sstkit(args)
      expect(r.status, `${name}: ${r.stderr}`).toBe(0)
      expect(widest(r.stdout), name).toBeLessThanOrEqual(100)
    }
  })

  it('check-size with a regression fits too: why each row failed goes under the table', () => {
    // The sample stored uncompressed: every byte it grew is a regression.
    expect(sstkit(['rewrite', SAMPLE, '-o', `${SCRATCH}/worse.sst`, '--compression', 'none', '--keep-blocks']).status).toBe(0)
    const r = sstkit(['check-size', `${SAMPLE}=${SCRATCH}/worse.sst`, '-b', baseline])
    expect(r.status, r.stderr).toBe(1)
    expect(r.stdout).toMatch(/^│ examples\/sample\.sst │ stored +│ .* │ FAIL regression │$/m)
    expect(r.stdout).not.toMatch(/│ Why|│ Change │/)
    expect(r.stdout).toMatch(/^ {2}examples\/sample\.sst stored: grew \(no increase allowed\)$/m)
    expect(widest(r.stdout)).toBeLessThanOrEqual(100)
  })

  it('sizes are human in tables and exact with --bytes: rewrite, baseline, check-size', () => {
    expect(sstkit(['rewrite', SAMPLE, '-o', join(dir, 'r2.sst')]).stdout).toMatch(/56\.4 KiB/)
    const b = sstkit(['baseline', SAMPLE, '--levels', '1', '--no-timings', '--force', '--bytes', '-o', join(dir, 'b2.json')]).stdout
    expect(b).toMatch(/│\s+57785 │/)
    expect(b).not.toMatch(/57,785/)
    const human = sstkit(['check-size', SAMPLE, '-b', baseline]).stdout
    expect(human).toMatch(/│ stored\s+│ 56\.4 KiB │ 56\.4 KiB │\s+0\.00% │ unchanged/)
    const exact = sstkit(['check-size', SAMPLE, '-b', baseline, '--bytes']).stdout
    expect(exact).toMatch(/│ stored\s+│\s+57785 │\s+57785 │\s+0\.00% │/)
    // The change in bytes with --wide.
    expect(sstkit(['check-size', SAMPLE, '-b', baseline, '--bytes', '--wide']).stdout).toMatch(/│ stored\s+│\s+57785 │\s+57785 │\s+0 │\s+0\.00% │/)
  })

  it('--wide brings back the columns left out: baseline Compression, check-size Change and Why', () => {
    expect(sstkit(['baseline', SAMPLE, '--levels', '1', '--no-timings', '--force', '--wide', '-o', join(dir, 'b3.json')]).stdout).toMatch(/│ Compression │/)
    expect(sstkit(['check-size', SAMPLE, '-b', baseline, '--wide']).stdout).toMatch(/│ Why\s+│/)
  })
})

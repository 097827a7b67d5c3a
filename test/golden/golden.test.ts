/**
 * Golden tests of sstkit's own text output: every `$ sstkit …` block in test/golden/*.txt runs
 * through the built CLI (`sstkit()` of test/helpers.ts, cwd = the repository root) and its stdout,
 * stderr and exit code must equal the block exactly. The format is described in datadriven.ts.
 *
 * To change an expectation: change the code, then
 *   npm run build && UPDATE_GOLDEN=1 npx vitest run test/golden
 * which rewrites the files from what the CLI prints now; review the change with `git diff test/golden`.
 * To add a case: add a block `$ sstkit ARGS` followed by `exit 0`, then run the same command.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, sstkit } from '../helpers.js'
import { formatGolden, parseGolden, type GoldenCase } from './datadriven.js'

const DIR = join(ROOT, 'test/golden')
const UPDATE = process.env.UPDATE_GOLDEN === '1'
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.txt'))
  .sort()

describe('golden files', () => {
  it('exist and each holds cases', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(4)
    for (const f of FILES) expect(parseGolden(readFileSync(join(DIR, f), 'utf8'), f).cases.length).toBeGreaterThan(0)
  })

  it('parse and format back to the same text (so an update rewrites nothing by accident)', () => {
    for (const f of FILES) {
      const text = readFileSync(join(DIR, f), 'utf8')
      expect(formatGolden(parseGolden(text, f)), f).toBe(text)
    }
  })
})

for (const file of FILES) {
  describe(file, () => {
    const path = join(DIR, file)
    const golden = parseGolden(readFileSync(path, 'utf8'), file)
    const actual: GoldenCase[] = []

    for (const [i, expected] of golden.cases.entries()) {
      it(`$ sstkit ${expected.args.join(' ')}`, () => {
        const r = sstkit(expected.args)
        const got: GoldenCase = { args: expected.args, stdout: r.stdout, stderr: r.stderr, status: r.status }
        actual[i] = got
        if (UPDATE) return
        expect(got.stdout, 'stdout').toBe(expected.stdout)
        expect(got.stderr, 'stderr').toBe(expected.stderr)
        expect(got.status, 'exit code').toBe(expected.status)
      })
    }

    afterAll(() => {
      if (!UPDATE || actual.length !== golden.cases.length || actual.includes(undefined as never)) return
      const text = formatGolden({ header: golden.header, cases: actual })
      // An output the format cannot hold unambiguously must not be written silently.
      const back = parseGolden(text, file)
      if (JSON.stringify(back.cases) !== JSON.stringify(actual)) throw new Error(`${file}: output does not round-trip through the golden format`)
      writeFileSync(path, text)
    })
  })
}

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
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'
import { formatGolden, parseGolden } from './datadriven.js'
import { describeGoldenFiles } from './runner.js'

const DIR = join(ROOT, 'test/golden')
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

describeGoldenFiles(DIR, FILES)

/**
 * The golden files' runner, shared by golden.test.ts and advise.test.ts: every `$ sstkit …` case of
 * each file runs through the built CLI and its stdout, stderr and exit code (after `normalise`)
 * must equal the file's; under UPDATE_GOLDEN=1 the file is rewritten from what the CLI prints now.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sstkit } from '../helpers.js'
import { formatGolden, type GoldenCase, parseGolden } from './datadriven.js'

export const UPDATE = process.env.UPDATE_GOLDEN === '1'

export function describeGoldenFiles(dir: string, files: readonly string[], normalise: (s: string) => string = (s) => s): void {
  for (const file of files) {
    describe(file, () => {
      const path = join(dir, file)
      const golden = parseGolden(readFileSync(path, 'utf8'), file)
      const actual: GoldenCase[] = []

      for (const [i, expected] of golden.cases.entries()) {
        it(`$ sstkit ${expected.args.join(' ')}`, () => {
          const r = sstkit(expected.args)
          const got: GoldenCase = { args: expected.args, stdout: normalise(r.stdout), stderr: normalise(r.stderr), status: r.status }
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
}

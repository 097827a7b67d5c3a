/**
 * Golden tests of format/'s decoders (pebble's datadriven style): every `$ decode …` block in
 * test/format/golden/*.txt runs one decoder over a committed file (decode.ts) and its output must
 * equal the block exactly. The files are real RocksDB output (test/fixtures/real, test/fixtures/db)
 * and the damaged copies in test/fixtures/bad, so a changed decoder shows as a diff of what it read.
 *
 * To change an expectation: change the decoder, then
 *   UPDATE_GOLDEN=1 npx vitest run test/format/golden.test.ts
 * and review `git diff test/format/golden`. To add a case: a block `$ decode COMMAND FILE` with
 * `exit 0` under it, then the same command. No build needed: the decoders run from src/.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'
import { formatGolden, type GoldenCase, parseGolden } from '../golden/datadriven.js'
import { DECODE_COMMANDS, decode } from './decode.js'

const DIR = join(ROOT, 'test/format/golden')
const UPDATE = process.env.UPDATE_GOLDEN === '1'
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.txt'))
  .sort()
const parse = (f: string) => parseGolden(readFileSync(join(DIR, f), 'utf8'), f, 'decode')

describe('decoder golden files', () => {
  it('cover every decode command, each file parsing and formatting back to itself', () => {
    const used = new Set<string>()
    for (const f of FILES) {
      const text = readFileSync(join(DIR, f), 'utf8')
      const golden = parseGolden(text, f, 'decode')
      expect(golden.cases.length, f).toBeGreaterThan(0)
      for (const c of golden.cases) used.add(c.args[0])
      expect(formatGolden(golden, 'decode'), f).toBe(text)
    }
    expect([...used].sort()).toEqual([...DECODE_COMMANDS].sort())
  })
})

for (const file of FILES) {
  describe(file, () => {
    const golden = parse(file)
    const actual: GoldenCase[] = []
    for (const [i, expected] of golden.cases.entries()) {
      it(`$ decode ${expected.args.join(' ')}`, () => {
        const r = decode(expected.args, ROOT)
        actual[i] = { args: expected.args, ...r }
        if (UPDATE) return
        expect(r.stdout, 'stdout').toBe(expected.stdout)
        expect(r.stderr, 'stderr').toBe(expected.stderr)
        expect(r.status, 'exit code').toBe(expected.status)
      })
    }
    afterAll(() => {
      if (!UPDATE || actual.length !== golden.cases.length || actual.includes(undefined as never)) return
      writeFileSync(join(DIR, file), formatGolden({ header: golden.header, cases: actual }, 'decode'))
    })
  })
}

/**
 * docs/library.md: every `js` block runs against the built dist/ ('sstkit' pointed at
 * dist/index.js), from the repository root, and every export of dist/index.js appears in one.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { assertFreshBuild, ROOT } from '../helpers.js'

const DOC = readFileSync(join(ROOT, 'docs/library.md'), 'utf8')
const examples = [...DOC.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1])
const dir = mkdtempSync(join(tmpdir(), 'sstkit-library-doc-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('docs/library.md', () => {
  it('has examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(8)
  })

  it('names every export of the library in an example', async () => {
    assertFreshBuild()
    const exports = Object.keys(await import(pathToFileURL(join(ROOT, 'dist/index.js')).href))
    const code = examples.join('\n')
    const missing = exports.filter((name) => !new RegExp(`\\b${name}\\b`).test(code))
    expect(missing).toEqual([])
  })

  for (const [i, source] of examples.entries()) {
    it(`example ${i + 1} runs: ${source.split('\n')[0].slice(0, 80)}`, () => {
      assertFreshBuild()
      const file = join(dir, `example-${i + 1}.mjs`)
      writeFileSync(file, source.replaceAll("from 'sstkit'", `from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/index.js')).href)}`))
      const r = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 })
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      expect(r.stdout.length).toBeGreaterThan(0)
    })
  }
})

/**
 * The examples `--help` prints are copied into shells: each must be one command line (oclif
 * joins the lines of a multi-line example with ` \`, so a `#` comment on one line swallowed the
 * next command), and the repository files they name must exist.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'

interface ManifestCommand {
  examples?: (string | { command: string; description?: string })[]
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> }
const examples = Object.entries(manifest.commands).flatMap(([id, c]) => (c.examples ?? []).map((e) => ({ id, command: typeof e === 'string' ? e : e.command })))

describe('--help examples', () => {
  it('are there, one command line each', () => {
    expect(examples.length).toBeGreaterThan(30)
    for (const { id, command } of examples) expect(command.includes('\n'), `${id}: ${command}`).toBe(false)
  })

  it('name only files that exist under examples/', () => {
    for (const { id, command } of examples)
      for (const path of command.match(/\bexamples\/[\w./-]+/g) ?? []) expect(existsSync(join(ROOT, path)), `${id}: ${path}`).toBe(true)
  })
})

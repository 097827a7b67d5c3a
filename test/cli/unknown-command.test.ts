/**
 * A first word that names no command is one line and exit 2, with the nearest command's name or,
 * for a file's path, how to name a command first (oclif alone joins the words with its topic
 * separator: "command scna:x.sst not found"). Every command's name, `help NAME` and the root
 * help still reach oclif.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, sstkit } from '../helpers.js'

const commands = Object.keys(JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')).commands)

describe('an unknown command', () => {
  it.each([
    [['scna', 'examples/sample.sst'], 'sstkit: unknown command "scna" (did you mean "scan"?): sstkit --help lists the commands'],
    [['verfy', '--help'], 'sstkit: unknown command "verfy" (did you mean "verify"?): sstkit --help lists the commands'],
    [['help', 'nosuch'], 'sstkit: unknown command "nosuch": sstkit --help lists the commands'],
    [
      ['examples/sample.sst'],
      'sstkit: unknown command "examples/sample.sst" (a file? name a command first, e.g. sstkit props examples/sample.sst): sstkit --help lists the commands',
    ],
  ])('%j: one line, exit 2', (argv, line) => {
    const r = sstkit(argv)
    expect(r.status).toBe(2)
    expect(r.stderr).toBe(`${line}\n`)
    expect(r.stdout).toBe('')
  })

  it('every command, `help NAME` and the root help still run', () => {
    expect(commands.length).toBeGreaterThan(8)
    for (const id of commands) {
      const r = sstkit(['help', id])
      expect(r.status, id).toBe(0)
      expect(r.stdout, id).toContain(`sstkit ${id}`)
    }
    const root = sstkit(['--help'])
    expect(root.status).toBe(0)
    for (const id of commands) expect(root.stdout).toContain(id)
  })
})

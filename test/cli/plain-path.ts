/**
 * Running a command that bin/run.cjs may take without oclif (props, verify), and the same command
 * line through oclif, as a user's shell would: the two test files of those plain paths share it.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { assertFreshBuild, BAD, ROOT } from '../helpers.js'

// A user's environment: without the test runner's NODE_ENV (oclif's development mode) and DEBUG.
const { NODE_ENV: _n, NODE_OPTIONS: _o, DEBUG: _d, ...rest } = process.env
export const userEnv: NodeJS.ProcessEnv = rest

/** A scratch directory for a plain path's test file, removed after it, with an empty HOME inside (no oclif theme). */
export function scratchWithHome(command: string): { dir: string; home: string } {
  const dir = mkdtempSync(join(tmpdir(), `sstkit-${command}-main-`))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const home = join(dir, 'home')
  mkdirSync(home)
  return { dir, home }
}

export interface PlainRun {
  status: number | null
  stdout: string
  stderr: string
}

/** `sstkit <command> ARGS` with HOME at `home`, and the same through oclif (DEBUG, for a namespace that prints nothing, sends it there). */
export function plainPathRunner(command: string, home: string, timeoutMs: number) {
  const run = (args: string[], env: Record<string, string> = {}): PlainRun => {
    assertFreshBuild()
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.cjs'), command, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...userEnv, HOME: home, FORCE_COLOR: '0', ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
    })
    return { status: r.status, stdout: r.stdout, stderr: r.stderr }
  }
  const throughOclif = (args: string[], env: Record<string, string> = {}) => run(args, { ...env, DEBUG: 'sstkit-no-such-namespace' })
  /** A test per case (name, arguments, environment): the plain path prints and exits as oclif does; and the exit codes. */
  const itPrintsAsOclif = (cases: [string, string[], Record<string, string>?][]) => {
    for (const [name, args, env] of cases) {
      it(name, () => {
        const plain = run(args, env)
        const oclif = throughOclif(args, env)
        expect(plain).toEqual(oclif)
        expect(plain.stdout.length + plain.stderr.length).toBeGreaterThan(0)
      })
    }
    it('exit codes: 0 clean, 1 a finding, 2 a file that cannot be opened', () => {
      expect(run(['examples/sample.sst']).status).toBe(0)
      expect(run([join(BAD, 'filter-flip.sst')]).status).toBe(1)
      expect(run([join(BAD, 'bad-magic.sst'), join(BAD, 'filter-flip.sst')]).status).toBe(2)
    })
  }
  return { run, throughOclif, itPrintsAsOclif }
}

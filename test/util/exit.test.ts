/** util/exit.ts: a plain command's process ends at once only where nothing is left to do at its exit. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadAddon } from '../../src/util/addon.js'
import { assertFreshBuild, ROOT, sstkit } from '../helpers.js'

const built = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href)

/**
 * Run `body` in a process of its own, a CommonJS script as bin/run.cjs is (an ES module entry
 * adds an exit listener of Node's), with the built util/exit.js's exitAtOnce in scope and, unless
 * `withAddon` is false, the kernel's addon loaded as a command loads it: its status and output.
 */
function runWithExit(body: string, o: { env?: NodeJS.ProcessEnv; execArgv?: string[]; withAddon?: boolean } = {}) {
  assertFreshBuild()
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-exit-'))
  try {
    const script = join(dir, 'run.cjs')
    // The imports' own file closes may still be in flight when they resolve: the body runs once they are done.
    writeFileSync(
      script,
      `Promise.all([import(${built('dist/util/exit.js')}), import(${built('dist/util/addon.js')})]).then(([{ exitAtOnce }, { loadAddon }]) => {
if (${o.withAddon ?? true}) loadAddon(new URL(${built('dist/native/sstkit.node')}))
// How the process ended, where it went through process.exit.
const exit = process.exit
process.exit = (code) => { process.stderr.write('process.exit'); exit(code) }
const run = () => {\n${body}\n}
const whenSettled = () => (process.getActiveResourcesInfo().length > 0 ? setImmediate(whenSettled) : run())
whenSettled()
})`,
    )
    const r = spawnSync(process.execPath, [...(o.execArgv ?? []), script], { encoding: 'utf8', env: o.env ?? plainEnv(), maxBuffer: 64 << 20 })
    return { status: r.status, stdout: r.stdout, stderr: r.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** This process's environment without what would keep exitAtOnce from ending a process, and `extra`. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of ['NODE_OPTIONS', 'NODE_V8_COVERAGE', 'SSTKIT_NO_FAST_EXIT']) delete env[name]
  return { ...env, ...extra }
}

describe('exitAtOnce', () => {
  it('ends the process with the code given, once what it wrote is handed to the system: at once where the addon is loaded, else through process.exit', () => {
    const body = `process.stdout.write('done\\n')
exitAtOnce(3)
process.stdout.write('not ended\\n')`
    expect(runWithExit(body)).toEqual({ status: 3, stdout: 'done\n', stderr: '' })
    // A command that has not loaded the addon (props) is not made to load it to exit.
    expect(runWithExit(body, { withAddon: false })).toEqual({ status: 3, stdout: 'done\n', stderr: 'process.exit' })
    // Called from a tick queued after the command's, as bin/run.cjs calls it: a warning printed on a later tick is not lost.
    const warned = runWithExit(`process.emitWarning('a late warning')
process.nextTick(() => exitAtOnce(3))`)
    expect(warned.status).toBe(3)
    expect(warned.stderr).toContain('Warning: a late warning')
  })

  it('leaves the exit to Node where something is left to do (an exit listener, a timer, unwritten output, a profiler or coverage), or under SSTKIT_NO_FAST_EXIT', () => {
    const returned = (body: string, o: Parameters<typeof runWithExit>[1] = {}) =>
      runWithExit(
        `${body}
process.stdout.write(String(exitAtOnce(3)))
process.exitCode = 4`,
        o,
      )
    const usual = { status: 4, stdout: 'false', stderr: '' }
    expect(returned(`process.on('exit', () => process.stderr.write('exit listener ran'))`)).toEqual({ ...usual, stderr: 'exit listener ran' })
    expect(returned(`setTimeout(() => process.stderr.write('timer ran'), 10)`)).toEqual({ ...usual, stderr: 'timer ran' })
    // 8 MiB into a pipe the parent reads as it can: most of it is still queued when exitAtOnce is called, and arrives whole.
    const queued = returned(`process.stdout.write('x'.repeat(8 << 20))`)
    expect(queued.status).toBe(4)
    expect(queued.stdout).toBe(`${'x'.repeat(8 << 20)}false`)
    expect(returned('', { env: plainEnv({ SSTKIT_NO_FAST_EXIT: '1' }) })).toEqual(usual)
    expect(runWithExit(`process.stdout.write(String(exitAtOnce(undefined)))`)).toEqual({ status: 0, stdout: 'false', stderr: '' })
    expect(returned('', { env: plainEnv({ NODE_OPTIONS: '--trace-warnings' }) })).toEqual(usual)
    expect(returned('', { execArgv: ['--trace-uncaught'] })).toEqual(usual)
    // Without any of them, the same body ends at once.
    expect(returned('')).toEqual({ status: 3, stdout: '', stderr: '' })
  })

  it("the addon's exitNow refuses a code that is not an int32 with a TypeError", () => {
    assertFreshBuild()
    const addon = loadAddon<{ exitNow(code?: unknown): unknown }>(new URL('../../dist/native/sstkit.node', import.meta.url))
    expect(addon).not.toBeNull()
    expect(() => addon?.exitNow('0')).toThrow(TypeError)
    expect(() => addon?.exitNow()).toThrow(TypeError)
  })

  it("a plain command's output through a pipe is the same whole, and its exit code, with Node's own exit", () => {
    const file = join(ROOT, 'test/fixtures/real/big-value.sst')
    for (const args of [
      ['scan', '--hex', file],
      ['verify', file],
      ['props', '--json', file],
      ['sst-dump', `--file=${file}`, '--command=scan', '--output_hex'],
    ]) {
      const fast = sstkit(args, { env: { SSTKIT_NO_FAST_EXIT: '' } })
      const usual = sstkit(args, { env: { SSTKIT_NO_FAST_EXIT: '1' } })
      expect(fast.stdout.length).toBeGreaterThan(100)
      expect(fast).toEqual(usual)
    }
    const bad = join(ROOT, 'test/fixtures/bad/bad-magic.sst')
    expect(sstkit(['verify', bad]).status).toBe(2)
  })
})

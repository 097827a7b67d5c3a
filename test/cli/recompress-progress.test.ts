/**
 * recompress on a terminal: a progress bar with the time left on stderr while it measures, cleared
 * before the table, whether it starts without oclif or through it; none under --json or when
 * stderr is not a terminal. The terminal is util-linux's `script` (a pseudo-terminal for both
 * streams; Debian's bsdutils, always installed).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { assertFreshBuild, ROOT } from '../helpers.js'
import { userEnv } from './plain-path.js'

const FILE = 'test/fixtures/db-medium/000009.sst'
const MATRIX = ['--levels', '1,3,9,12', '--dict', 'none,raw', '--checksum', 'off']
const CLEAR = '\r\x1b[K'

/** What a terminal shows of `sstkit recompress ARGS`: stdout and stderr as one stream of bytes. */
function onTerminal(args: string[], env: Record<string, string> = {}): { status: number | null; output: string } {
  assertFreshBuild()
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`
  const command = [process.execPath, join(ROOT, 'bin/run.cjs'), 'recompress', ...args].map(quote).join(' ')
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...userEnv, FORCE_COLOR: '0', ...env },
    timeout: 120_000,
  })
  return { status: r.status, output: r.stdout }
}

describe('recompress on a terminal', () => {
  const paths: [string, Record<string, string>][] = [
    ['without oclif', {}],
    ['through oclif', { DEBUG: 'sstkit-no-such-namespace' }],
  ]
  for (const [name, env] of paths) {
    it(`shows a progress bar with the time left, cleared before the table (${name})`, () => {
      const { status, output } = onTerminal([FILE, ...MATRIX], env)
      expect(status).toBe(0)
      const bars = output.split(CLEAR).filter((frame) => frame.startsWith(`${FILE} [`))
      expect(bars.length).toBeGreaterThan(0)
      for (const bar of bars) expect(bar).toMatch(/^\S+ \[[#.]{30}\] \d+% ETA (…|\d+s|\d+m \d\ds)$/)
      // The last frame is cleared, then the table is drawn on a clean line.
      const table = output.indexOf('┌')
      expect(table).toBeGreaterThan(0)
      expect(output.lastIndexOf(CLEAR, table)).toBeGreaterThan(output.lastIndexOf(`${FILE} [`, table))
      expect(output.slice(table)).not.toContain(' ETA ')
    })
  }

  it('shows none under --json', () => {
    const { status, output } = onTerminal([FILE, ...MATRIX, '--json'])
    expect(status).toBe(0)
    expect(output).not.toContain(' ETA ')
    expect(output).toContain('"results"')
  })

  it('shows none when stderr is not a terminal', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.cjs'), 'recompress', FILE, ...MATRIX], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...userEnv, FORCE_COLOR: '0' },
      timeout: 120_000,
    })
    expect(r.status).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('zstd 12 dict=raw')
  })
})

/**
 * The real binary in a real terminal: `sstkit browse` under tmux (a private
 * tmux server per run, so nothing else on the machine is touched), keys sent
 * with send-keys, the screen read with capture-pane, asserting what a person
 * sees. Every tmux call and every wait has a timeout, and the server is killed
 * afterwards whatever happens.
 *
 * Needs `npm run build` first (as the CLI tests do) and tmux (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.js'

// A private tmux server on a socket in a temporary directory, removed afterwards.
const DIR = mkdtempSync(join(tmpdir(), 'sstkit-e2e-'))
const SOCKET = join(DIR, 'tmux.sock')
const RUN_JS = join(ROOT, 'bin/run.js')

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-S', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 })
  if (r.error) throw new Error(`tmux ${args[0]}: ${r.error.message}`)
  if (r.status !== 0) throw new Error(`tmux ${args[0]} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}

const screen = () => tmux('capture-pane', '-p', '-t', 'browse')

async function waitFor(what: string, pred: (s: string) => boolean, ms = 20_000): Promise<string> {
  const end = Date.now() + ms
  let s = ''
  for (;;) {
    s = screen()
    if (pred(s)) return s
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}; the terminal shows:\n${s}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const selected = (s: string) => s.split('\n').find((l) => l.startsWith('›')) ?? ''

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/commands/browse.js')) || !existsSync(join(ROOT, 'dist/tui/app.js'))) {
    throw new Error('dist/ has no browse command: run `npm run build` first')
  }
  const v = spawnSync('tmux', ['-V'], { encoding: 'utf8', timeout: 5000 })
  if (v.error || v.status !== 0) throw new Error('tmux is not installed (`.ci/run` installs it; apt-get install tmux)')
})

afterAll(() => {
  spawnSync('tmux', ['-S', SOCKET, 'kill-server'], { timeout: 5000 })
  rmSync(DIR, { recursive: true, force: true })
})

describe('sstkit browse in a terminal (tmux)', () => {
  it('shows the overview, Tab to blocks, Enter on a data block, / seek, q quits with 0', async () => {
    // ink draws only a final frame when it thinks it runs in CI; a person's terminal has no CI variable.
    const cmd = `cd ${JSON.stringify(ROOT)} && env -u CI -u CONTINUOUS_INTEGRATION ${JSON.stringify(process.execPath)} ${JSON.stringify(RUN_JS)} browse examples/sample.sst; echo SSTKIT_EXIT=$?; sleep 120`
    tmux('new-session', '-d', '-s', 'browse', '-x', '120', '-y', '40', cmd)

    // 1. Overview: footer facts, grouped properties, the byte split
    let s = await waitFor('the overview', (x) => x.includes('rocksdb.num.entries'))
    expect(s).toMatch(/1 Overview\s+2 Blocks\s+3 Entries/)
    expect(s).toMatch(/File\s+examples\/sample\.sst\s+56\.4 KiB/)
    expect(s).toMatch(/table\s+BlockBasedTable, format_version 5, checksum kCRC32c/)
    expect(s).toMatch(/█ data 95\.3%/)
    // ink is live once the background loading shows in the status line
    s = await waitFor('the live status line', (x) => x.includes('43 data blocks'))
    expect(s).toContain('measured from the blocks')

    // 2. Tab: the blocks in file order
    tmux('send-keys', '-t', 'browse', 'Tab')
    s = await waitFor('the blocks list', (x) => /#\s+kind\s+offset\s+on disk\s+compression/.test(x))
    expect(selected(s)).toMatch(/^›\s+0 data\s+0\s+1327 ZSTD/)

    // 3. Enter on data block #1: its entries, and the selected entry's value
    tmux('send-keys', '-t', 'browse', 'j')
    await waitFor('block 1 selected', (x) => /^›\s+1 data\s+1327/m.test(x))
    tmux('send-keys', '-t', 'browse', 'Enter')
    s = await waitFor('the entries of block 1', (x) => x.includes('data block #1 of 43'))
    expect(s).toMatch(/block key\s+seq\s+type/)
    expect(selected(s)).toMatch(/^›\s+#1 user:\d{6}\s+\d+\s+kTypeValue/)
    expect(s).toMatch(/value \d+ bytes, shown as text/)

    // 4. Seek
    tmux('send-keys', '-t', 'browse', '/')
    await waitFor('the seek prompt', (x) => x.includes('Seek to key'))
    tmux('send-keys', '-t', 'browse', '-l', 'user:0005')
    tmux('send-keys', '-t', 'browse', 'Enter')
    s = await waitFor('the seek result', (x) => x.includes('seek user:0005'))
    expect(selected(s)).toMatch(/^›\s+#2 user:000508\s+57\s+kTypeValue/)
    expect(s).toContain('key   user:000508')

    // 5. q: back to the shell, exit code 0, the terminal restored
    tmux('send-keys', '-t', 'browse', 'q')
    s = await waitFor('the exit', (x) => x.includes('SSTKIT_EXIT='))
    expect(s).toContain('SSTKIT_EXIT=0')
    expect(s).not.toContain('sstkit browse')
  })
})

describe('sstkit browse without a terminal', () => {
  it('exits 2 with one line pointing to scan and layout', () => {
    const r = spawnSync(process.execPath, [RUN_JS, 'browse', 'examples/sample.sst'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^sstkit: browse needs an interactive terminal \(stdout is not one\)/)
    expect(lines[0]).toContain('`sstkit scan examples/sample.sst` (entries)')
    expect(lines[0]).toContain('`sstkit layout examples/sample.sst` (blocks)')
  })

  it('--json prints the overview (props JSON and the byte split) and exits 0, terminal or not', () => {
    const r = spawnSync(process.execPath, [RUN_JS, 'browse', 'examples/sample.sst', '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })
    expect(r.status, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j.format).toMatchObject({ tableKind: 'BlockBasedTable', formatVersion: 5 })
    expect(j.properties['rocksdb.num.entries']).toBe(900)
    expect(j.bytes).toEqual({ source: 'properties', fileSize: 57785, data: 55060, index: 906, filter: 1157, meta: 662 })
  })

  it('a file that is not an SST exits 2 with the reason', () => {
    const r = spawnSync(process.execPath, [RUN_JS, 'browse', join(ROOT, 'test/fixtures/bad/bad-magic.sst'), '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/bad magic number/)
  })
})

describe('ink stays out of the other commands', () => {
  it('only the browse command loads the ink app, and only through a dynamic import (in tui/terminal.ts)', () => {
    const src = join(ROOT, 'src')
    const importsInk = (f: string) => /from ['"](ink|react)['"]|import\(['"](ink|react)['"]\)/.test(readFileSync(f, 'utf8'))
    for (const f of ['index.ts', 'cli/sst-command.ts', 'tui/model.ts', 'tui/screens.ts', 'tui/format.ts', 'tui/terminal.ts'])
      expect(importsInk(join(src, f)), f).toBe(false)
    for (const dir of ['commands', 'report']) {
      for (const f of readdirSync(join(src, dir))) {
        const text = readFileSync(join(src, dir, f), 'utf8')
        expect(importsInk(join(src, dir, f)), f).toBe(false)
        expect(/from ['"]\.\.\/tui\/app\.js['"]/.test(text), `${f} imports the ink app statically`).toBe(false)
      }
    }
    const terminal = readFileSync(join(src, 'tui/terminal.ts'), 'utf8')
    expect(terminal).toMatch(/await import\('\.\/app\.js'\)/)
    expect(terminal).not.toMatch(/from ['"]\.\/app\.js['"]/)
    expect(readFileSync(join(src, 'commands/browse.ts'), 'utf8')).toMatch(/from '\.\.\/tui\/terminal\.js'/)
  })
})

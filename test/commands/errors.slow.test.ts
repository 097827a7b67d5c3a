/**
 * Usage and system errors through the built CLI, for every command that takes files: one line on
 * stderr in words (no errno codes, no stack, no oclif "›" blocks), exit 2, and never a hang.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { assertFreshBuild, ROOT, sstkit } from '../helpers.js'
import { writeSyntheticTable } from '../synthetic.js'

let dir: string
const SAMPLE = join(ROOT, 'examples/sample.sst')

/** Each command that takes SST files, with the arguments around the file. */
const COMMANDS: Record<string, (file: string) => string[]> = {
  props: (f) => ['props', f],
  layout: (f) => ['layout', f],
  verify: (f) => ['verify', f],
  scan: (f) => ['scan', f],
  browse: (f) => ['browse', f, '--json'],
  recompress: (f) => ['recompress', f, '--levels', '1'],
  rewrite: (f) => ['rewrite', f, '-o', join(dir, 'out.sst')],
  advise: (f) => ['advise', f],
  baseline: (f) => ['baseline', f, '--force', '-o', join(dir, 'baseline.json')],
  'check-size': (f) => ['check-size', f, '-b', join(dir, 'check-baseline.json')],
}

/** One line, sstkit's, nothing of oclif's or node's own formats. */
function expectOneLine(stderr: string, pattern: RegExp): void {
  // baseline adds why it wrote nothing, a line of its own
  const lines = stderr
    .trimEnd()
    .split('\n')
    .filter((l) => !/^sstkit: baseline not written: /.test(l))
  expect(lines, stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^sstkit: /)
  expect(lines[0]).toMatch(pattern)
  expect(lines[0]).not.toMatch(/E[A-Z]{3,}:|›|\bat .*\.js:\d+/)
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sstkit-errors-'))
  mkdirSync(join(dir, 'empty'))
  expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0)
  copyFileSync(SAMPLE, join(dir, 'unreadable.sst'))
  chmodSync(join(dir, 'unreadable.sst'), 0)
  // check-size needs a baseline to compare with.
  const b = sstkit(['baseline', SAMPLE, '--levels', '1', '--no-timings', '-o', join(dir, 'check-baseline.json')])
  expect(b.status, b.stderr).toBe(0)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('system errors, every command that takes files', () => {
  for (const [name, args] of Object.entries(COMMANDS)) {
    if (name === 'check-size') continue // its report lists files it cannot measure: tested below
    it(`${name}: a missing file, a FIFO (no hang), a directory without SSTs`, () => {
      const missing = sstkit(args(join(dir, 'nope.sst')))
      expect(missing.status).toBe(2)
      expectOneLine(missing.stderr, /nope\.sst: no such file or directory/)

      const fifo = sstkit(args(join(dir, 'fifo')))
      expect(fifo.status).toBe(2)
      expectOneLine(fifo.stderr, /fifo: not a regular file but a FIFO \(named pipe\)/)

      const empty = sstkit(args(join(dir, 'empty')))
      expect(empty.status).toBe(2)
      expectOneLine(
        empty.stderr,
        name === 'browse'
          ? /browse takes one file; .*empty is a directory/
          : name === 'advise'
            ? /^sstkit: .*empty: directory holds no \.sst files and no CURRENT file \(not a RocksDB database\)$/
            : /empty: (the )?directory holds no \.sst (or \.blob )?files/,
      )
    })
  }

  it('check-size: a file it cannot measure is an ERROR row saying why in words, exit 2; a directory without SSTs a warning', () => {
    for (const [f, why] of [
      ['nope.sst', /no such file or directory/],
      ['fifo', /not a regular file but a FIFO \(named pipe\)/],
    ] as const) {
      const r = sstkit(COMMANDS['check-size'](join(dir, f)))
      expect(r.status).toBe(2)
      expect(r.stdout + r.stderr).toMatch(why)
      expect(r.stdout + r.stderr).not.toMatch(/E[A-Z]{3,}:|›/)
    }
    const empty = sstkit(COMMANDS['check-size'](join(dir, 'empty')))
    expect(empty.stderr).toMatch(/^sstkit: warning: .*empty: directory holds no \.sst files$/m)
  })

  // Root reads any file whatever its mode: run as root without the capabilities that let it
  // (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), still the owner of the checkout, so
  // the tests run from any path, a private `mktemp -d` clone too; and first check that the file
  // really is unreadable there, so the test cannot pass without the error happening.
  const withoutOverride = ['setpriv', '--bounding-set=-dac_override,-dac_read_search']
  const unprivileged = (argv: string[]) => {
    const prefix = process.getuid?.() === 0 ? withoutOverride : []
    const [cmd, ...rest] = [...prefix, ...argv]
    return spawnSync(cmd, rest, { encoding: 'utf8', env: { ...process.env, HOME: dir, FORCE_COLOR: '0' }, timeout: 120_000 })
  }

  it('the unreadable file is unreadable to the user the tests below run as', () => {
    assertFreshBuild()
    const probe = unprivileged([process.execPath, '-e', `require('fs').openSync(${JSON.stringify(join(dir, 'unreadable.sst'))}, 'r')`])
    expect(probe.status).not.toBe(0)
    expect(probe.stderr).toMatch(/EACCES/)
  })

  for (const [name, args] of Object.entries(COMMANDS)) {
    it(`${name}: an unreadable file is "cannot read FILE: permission denied"`, () => {
      const r = unprivileged([process.execPath, join(ROOT, 'bin/run.js'), ...args(join(dir, 'unreadable.sst'))])
      expect(r.status, r.stderr).toBe(2)
      expectOneLine(r.stderr, /cannot read .*unreadable\.sst: permission denied/)
    })
  }

  it('a file that shrinks while it is read: one line saying so, exit 2', async () => {
    assertFreshBuild()
    // A synthetic (sstkit-written) table far larger than what the scan buffers before its output blocks.
    const path = join(dir, 'synthetic-shrinking.sst')
    const value = new TextEncoder().encode('v'.repeat(1000))
    const entries = function* () {
      for (let i = 0; i < 20_000; i++)
        yield [encodeInternalKey(new TextEncoder().encode(`key${String(i).padStart(8, '0')}`), 1, ValueType.Value), value] as const
    }
    writeSyntheticTable(path, entries() as Iterable<[Uint8Array, Uint8Array]>)
    const child = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'scan', path, '--jobs', '1'], { env: { ...process.env, FORCE_COLOR: '0' } })
    let stderr = ''
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    // The first output proves the scan is under way; not reading on stalls it on the full pipe.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
    child.stdout.pause()
    await new Promise((r) => setTimeout(r, 300))
    truncateSync(path, 0)
    child.stdout.resume()
    child.stdout.on('data', () => {})
    const code = await exited
    expect(code).toBe(2)
    expectOneLine(stderr, /synthetic-shrinking\.sst: the file shrank while being read: it ends before offset \d+, and had \d+ bytes when opened$/)
  }, 60_000)
})

describe('usage errors: one line naming the flag and what it accepts', () => {
  const cases: [string[], RegExp][] = [
    [['recompress', SAMPLE, '--jobs', '0'], /^sstkit: --jobs 0: expected an integer >= 1$/],
    [['recompress', SAMPLE, '--levels', '99'], /^sstkit: .*levels -131072\.\.22.*99$/],
    [['rewrite', SAMPLE], /^sstkit: missing required flag --output \(-o\) \(see `sstkit rewrite --help`\)$/],
    [['scan', SAMPLE, '--limit', 'x'], /^sstkit: --limit x: expected an integer$/],
    [['scan', SAMPLE, '--limit', '-1'], /^sstkit: --limit -1: expected an integer >= 0$/],
    [['layout', SAMPLE, '--format', 'xml'], /^sstkit: --format xml: expected one of table, csv, markdown$/],
    [['scan', SAMPLE, '--bogus'], /^sstkit: unknown flag --bogus \(see `sstkit scan --help`\)$/],
    [['scan', SAMPLE, '--prefix', 'a', '--from', 'b'], /^sstkit: --from cannot be used together with --prefix \(see `sstkit scan --help`\)$/],
    [['props'], /^sstkit: missing FILES \(SST files or directories of \.sst files\) \(see `sstkit props --help`\)$/],
    // A description long enough for oclif to wrap it over lines is still one, whole.
    [
      ['advise'],
      /^sstkit: missing PATHS \(A RocksDB database directory, or SST files and directories of them \(with --merge: the JSON parts\)\) \(see `sstkit advise --help`\)$/,
    ],
    [['browse', SAMPLE, SAMPLE], /^sstkit: unexpected argument .*sample\.sst \(see `sstkit browse --help`\)$/],
    [['recompress', SAMPLE, '--sample', '200'], /^sstkit: --sample: expected a whole percentage from 1 to 100, such as 10 or 10% \(got "200"\)$/],
    [['baseline', SAMPLE, '--sample', '1.5'], /^sstkit: --sample: expected a whole percentage from 1 to 100, such as 10 or 10% \(got "1\.5"\)$/],
    [['advise', SAMPLE, '--sample', '150'], /^sstkit: --sample must be above 0% and at most 100% \(got "150"\)$/],
    // every size flag takes units (8KiB), and says so when it gets something else
    [
      ['rewrite', SAMPLE, '-o', '/nonexistent/x.sst', '--block-size', '8x'],
      /^sstkit: --block-size: expected a size in bytes >= 64, such as 8KiB or 8192 \(got "8x"\)$/,
    ],
    [
      ['rewrite', SAMPLE, '-o', '/nonexistent/x.sst', '--block-size', '10'],
      /^sstkit: --block-size: expected a size in bytes >= 64, such as 8KiB or 8192 \(got "10", 10 bytes\)$/,
    ],
    [['recompress', SAMPLE, '--max-dict-bytes', '16 KB?'], /^sstkit: --max-dict-bytes: expected a size in bytes >= 1, such as 8KiB or 8192 \(got "16 KB\?"\)$/],
  ]
  for (const [args, pattern] of cases) {
    it(args.join(' ').replace(ROOT, '.'), () => {
      const r = sstkit(args)
      expect(r.status).toBe(2)
      expect(r.stdout).toBe('')
      expectOneLine(r.stderr, pattern)
    })
  }
})

/**
 * `scan [--hex] PATH...` runs without oclif (bin/run.cjs, src/entry/scan-main.ts): which command
 * lines take that path, and that what it prints, on stdout and stderr, and its exit code are
 * oclif's for the same command line (oclif forced by DEBUG, which the plain path leaves to oclif).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { plainScanArgs } from '../../src/entry/scan-main.js'
import { BAD, fixturePath, REAL, ROOT } from '../helpers.js'
import { plainPathRunner, scratchWithHome, userEnv } from './plain-path.js'

const { dir, home } = scratchWithHome('scan')

describe('plainScanArgs: the command lines scan runs without oclif', () => {
  const env = { HOME: home }

  it('takes paths and one --hex anywhere among them', () => {
    expect(plainScanArgs(['a.sst'], env, 'linux')).toEqual({ paths: ['a.sst'], hex: false })
    expect(plainScanArgs(['--hex', 'a.sst', 'db/'], env, 'linux')).toEqual({ paths: ['a.sst', 'db/'], hex: true })
    expect(plainScanArgs(['a.sst', '--hex'], env, 'linux')).toEqual({ paths: ['a.sst'], hex: true })
  })

  it('leaves to oclif --json, any other option, a second --hex, no path, and what oclif reads from the environment', () => {
    for (const argv of [
      [],
      ['--hex'],
      ['--json', 'a.sst'],
      ['a.sst', '--limit', '5'],
      ['--from=a', 'a.sst'],
      ['--hex', '--hex', 'a.sst'],
      ['--', 'a.sst'],
      [''],
    ]) {
      expect(plainScanArgs(argv, env, 'linux'), JSON.stringify(argv)).toBeNull()
    }
    expect(plainScanArgs(['a.sst'], { ...env, SSTKIT_CONTENT_TYPE: 'json' }, 'linux')).toBeNull()
    expect(plainScanArgs(['a.sst'], env, 'win32')).toBeNull()
  })
})

const { run, throughOclif } = plainPathRunner('scan', home, 60_000)

describe('scan without oclif prints what oclif prints', () => {
  const empty = join(dir, 'empty-dir')
  mkdirSync(empty)
  const cases: [string, string[], Record<string, string>?][] = [
    ['one file', ['examples/sample.sst']],
    ['--hex', ['--hex', fixturePath('fv5-zstd')]],
    ['a directory and a file (headers)', [REAL, 'examples/sample.sst']],
    ['a missing path (exit 2)', ['no/such.sst', 'examples/sample.sst']],
    ['a directory without .sst files', [empty]],
    ['damaged files', [join(BAD, 'bad-magic.sst'), join(BAD, 'data-flip-zstd.sst'), join(BAD, 'index-flip.sst'), join(BAD, 'truncated-1.sst')]],
    ['a read that fails (SSTKIT_TEST_FAIL_READ)', ['examples/sample.sst', fixturePath('fv5-zstd')], { SSTKIT_TEST_FAIL_READ: '3' }],
  ]
  for (const [name, args, env] of cases) {
    it(name, () => {
      const plain = run(args, env)
      expect(plain).toEqual(throughOclif(args, env))
      expect(plain.stdout.length + plain.stderr.length).toBeGreaterThan(0)
    })
  }

  it('exit codes: 0 read whole, 2 a file that cannot be opened or read', () => {
    expect(run(['examples/sample.sst']).status).toBe(0)
    expect(run([join(BAD, 'bad-magic.sst'), 'examples/sample.sst']).status).toBe(2)
  })

  it('a reader that goes away (EPIPE): exits quietly, as oclif does', () => {
    const piped = (env: Record<string, string>) =>
      spawnSync('bash', ['-c', `set -o pipefail; "$0" bin/run.cjs scan "$1" | head -c 1 >/dev/null`, process.execPath, REAL], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...userEnv, HOME: home, FORCE_COLOR: '0', ...env },
        timeout: 60_000,
      })
    const plain = piped({})
    const oclif = piped({ DEBUG: 'sstkit-no-such-namespace' })
    expect({ status: plain.status, stderr: plain.stderr }).toEqual({ status: oclif.status, stderr: oclif.stderr })
  })

  it('loads no oclif on the plain path, and oclif otherwise', () => {
    const loaded = (args: string[], env: Record<string, string>) => run(args, { ...env, NODE_DEBUG: 'esm' }).stderr
    const plain = loaded(['examples/sample.sst'], {})
    // The plain bundle (_scan.cjs) is compiled by bin/run.cjs from its code cache: the ESM loader loads nothing.
    expect(plain).not.toContain('ESM')
    expect(loaded(['--limit', '1', 'examples/sample.sst'], {})).toContain('dist/bundle/_oclif.js')
  })
})

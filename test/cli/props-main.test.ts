/**
 * `props [--json] PATH...` runs without oclif (bin/run.cjs, src/entry/props-main.ts): which command
 * lines take that path, and that what it prints, on stdout and stderr, and its exit code are
 * oclif's for the same command line (oclif forced by DEBUG, which the plain path leaves to oclif).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { plainPropsArgs } from '../../src/entry/props-main.js'
import { BAD, fixturePath, REAL, ROOT } from '../helpers.js'
import { plainPathRunner, scratchWithHome, userEnv } from './plain-path.js'

const { dir, home } = scratchWithHome('props')

describe('plainPropsArgs: the command lines props runs without oclif', () => {
  const env = { HOME: home }

  it('takes paths and one --json anywhere among them', () => {
    expect(plainPropsArgs(['a.sst'], env, 'linux')).toEqual({ paths: ['a.sst'], json: false })
    expect(plainPropsArgs(['a.sst', 'db/'], env, 'linux')).toEqual({ paths: ['a.sst', 'db/'], json: false })
    expect(plainPropsArgs(['--json', 'a.sst'], env, 'linux')).toEqual({ paths: ['a.sst'], json: true })
    expect(plainPropsArgs(['a.sst', '--json', 'b.sst'], env, 'linux')).toEqual({ paths: ['a.sst', 'b.sst'], json: true })
  })

  it('leaves to oclif no path, any other option, --, a second --json, an empty word', () => {
    for (const argv of [[], ['--json'], ['--help'], ['-h'], ['a.sst', '--debug'], ['--', 'a.sst'], ['-x.sst'], ['--json', '--json', 'a.sst'], ['']]) {
      expect(plainPropsArgs(argv, env, 'linux'), JSON.stringify(argv)).toBeNull()
    }
  })

  it('leaves to oclif what oclif reads from the environment, and Windows', () => {
    for (const k of ['DEBUG', 'CLI_FLAGS_DEBUG', 'SSTKIT_CONTENT_TYPE', 'SSTKIT_DEBUG', 'SSTKIT_CONFIG_DIR', 'SSTKIT_DISABLE_THEME']) {
      expect(plainPropsArgs(['a.sst'], { ...env, [k]: '1' }, 'linux'), k).toBeNull()
    }
    expect(plainPropsArgs(['a.sst'], { ...env, DEBUG: '' }, 'linux')).not.toBeNull()
    expect(plainPropsArgs(['a.sst'], env, 'win32')).toBeNull()
  })

  it('leaves --json to oclif where a theme would colour it (its config dir holds theme.json)', () => {
    const xdg = join(dir, 'xdg')
    mkdirSync(join(xdg, 'sstkit'), { recursive: true })
    writeFileSync(join(xdg, 'sstkit', 'theme.json'), '{"json":{"key":"red"}}')
    mkdirSync(join(home, '.config', 'sstkit'), { recursive: true })
    expect(plainPropsArgs(['--json', 'a.sst'], { ...env, XDG_CONFIG_HOME: xdg }, 'linux')).toBeNull()
    expect(plainPropsArgs(['a.sst'], { ...env, XDG_CONFIG_HOME: xdg }, 'linux')).not.toBeNull()
    expect(plainPropsArgs(['--json', 'a.sst'], env, 'linux')).not.toBeNull()
    writeFileSync(join(home, '.config', 'sstkit', 'theme.json'), '{}')
    expect(plainPropsArgs(['--json', 'a.sst'], env, 'linux')).toBeNull()
    rmSync(join(home, '.config', 'sstkit', 'theme.json'))
  })

  it('package.json names no oclif theme (the plain path would not read one)', () => {
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pjson.oclif.theme).toBeUndefined()
  })
})

const { run, itPrintsAsOclif } = plainPathRunner('props', home, 60_000)

describe('props without oclif prints what oclif prints', () => {
  const empty = join(dir, 'empty-dir')
  mkdirSync(empty)
  const cases: [string, string[], Record<string, string>?][] = [
    ['one file', ['examples/sample.sst']],
    ['--json', ['--json', 'examples/sample.sst']],
    ['--json after the path', [fixturePath('fv5-zstd'), '--json']],
    ['a directory and a file', [REAL, 'examples/sample.sst']],
    ['a directory, --json', ['--json', REAL]],
    ['a missing path (exit 2)', ['no/such.sst', 'examples/sample.sst']],
    ['a missing path, --json', ['no/such.sst', '--json']],
    ['a directory without .sst files', [empty]],
    [
      'files that are not SSTs or are damaged',
      [join(BAD, 'bad-magic.sst'), join(BAD, 'filter-flip.sst'), join(BAD, 'properties-flip.sst'), join(BAD, 'truncated-1.sst')],
    ],
    ['damaged files, --json', ['--json', join(BAD, 'filter-flip.sst'), join(BAD, 'fv99.sst'), join(BAD, 'empty.sst')]],
    ['a read that fails (SSTKIT_TEST_FAIL_READ)', ['examples/sample.sst', fixturePath('fv5-zstd')], { SSTKIT_TEST_FAIL_READ: '3' }],
    ['a read that fails, --json', ['--json', 'examples/sample.sst'], { SSTKIT_TEST_FAIL_READ: '2' }],
  ]
  itPrintsAsOclif(cases)

  it('a reader that goes away (EPIPE): the rest of stdout dropped, the errors after it still said', () => {
    // ~190 KB per copy of the directory: more than a pipe holds, so writes fail once head has gone.
    const piped = (env: Record<string, string>) =>
      spawnSync('bash', ['-c', `set -o pipefail; "$0" bin/run.cjs props "$1" "$1" "$1" no/such.sst | head -c 1 >/dev/null`, process.execPath, REAL], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...userEnv, HOME: home, FORCE_COLOR: '0', ...env },
        timeout: 60_000,
      })
    const plain = piped({})
    expect(plain.stderr).toBe('sstkit: cannot read no/such.sst: no such file or directory\n')
    expect(plain.status).toBe(2)
    const oclif = piped({ DEBUG: 'sstkit-no-such-namespace' })
    expect({ status: plain.status, stderr: plain.stderr }).toEqual({ status: oclif.status, stderr: oclif.stderr })
  })

  it('loads no oclif on the plain path, and oclif otherwise', () => {
    const loaded = (env: Record<string, string>) => run(['examples/sample.sst'], { ...env, NODE_DEBUG: 'esm' }).stderr
    const plain = loaded({})
    // The plain bundle (_props.cjs) is compiled by bin/run.cjs from its code cache: the ESM loader loads nothing.
    expect(plain).not.toContain('ESM')
    expect(loaded({ DEBUG: 'sstkit-no-such-namespace' })).toContain('dist/bundle/_oclif.js')
  })
})

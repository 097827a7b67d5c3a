import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { plainVerifyArgs } from '../../src/entry/verify-main.js'
import { BAD, fixturePath, REAL } from '../helpers.js'
import { plainPathRunner, scratchWithHome } from './plain-path.js'

const { dir, home } = scratchWithHome('verify')

describe('plainVerifyArgs: the command lines verify runs without oclif', () => {
  const env = { HOME: home }

  it("takes props' command lines, and one --jobs N or --jobs=N anywhere", () => {
    expect(plainVerifyArgs(['a.sst'], env, 'linux')).toEqual({ paths: ['a.sst'], json: false })
    expect(plainVerifyArgs(['a.sst', '--json', 'db/'], env, 'linux')).toEqual({ paths: ['a.sst', 'db/'], json: true })
    expect(plainVerifyArgs(['--jobs', '2', 'a.sst'], env, 'linux')).toEqual({ paths: ['a.sst'], json: false, jobs: 2 })
    expect(plainVerifyArgs(['a.sst', '--jobs=1', '--json'], env, 'linux')).toEqual({ paths: ['a.sst'], json: true, jobs: 1 })
    expect(plainVerifyArgs(['a.sst', '--jobs', '16'], env, 'linux')).toEqual({ paths: ['a.sst'], json: false, jobs: 16 })
  })

  it('leaves to oclif a --jobs that is not a plain positive integer, a second --jobs, and any other option', () => {
    const lines = [
      ['--jobs', 'a.sst'],
      ['a.sst', '--jobs'],
      ['--jobs', '0', 'a.sst'],
      ['--jobs=0', 'a.sst'],
      ['--jobs', '-1', 'a.sst'],
      ['--jobs', '01', 'a.sst'],
      ['--jobs', '2x', 'a.sst'],
      ['--jobs=', 'a.sst'],
      ['--jobs', '1', '--jobs', '2', 'a.sst'],
      ['--jobs', '2'],
      ['--comparator', 'leveldb.BytewiseComparator', 'a.sst'],
      ['--key-format', 'raw', 'a.sst'],
      ['--chunk-bytes', '1000', 'a.sst'],
      ['a.sst', '--help'],
      ['--', 'a.sst'],
      ['--json', '--json', 'a.sst'],
      [],
    ]
    for (const argv of lines) expect(plainVerifyArgs(argv, env, 'linux'), JSON.stringify(argv)).toBeNull()
  })

  it('leaves to oclif what oclif reads from the environment, and Windows', () => {
    expect(plainVerifyArgs(['a.sst'], { ...env, DEBUG: '1' }, 'linux')).toBeNull()
    expect(plainVerifyArgs(['--jobs', '2', 'a.sst'], { ...env, SSTKIT_CONTENT_TYPE: 'json' }, 'linux')).toBeNull()
    expect(plainVerifyArgs(['a.sst'], env, 'win32')).toBeNull()
  })
})

const { run, itPrintsAsOclif } = plainPathRunner('verify', home, 120_000)

describe('verify without oclif prints what oclif prints', () => {
  const empty = join(dir, 'empty-dir')
  mkdirSync(empty)
  const damaged = ['data-flip-zstd.sst', 'filter-flip.sst', 'index-flip.sst', 'trailer-checksum-flip.sst', 'truncated-half.sst'].map((f) => join(BAD, f))
  const cases: [string, string[], Record<string, string>?][] = [
    ['one file', ['examples/sample.sst']],
    ['--json', ['--json', 'examples/sample.sst']],
    ['--jobs 1, --json after the path', ['--jobs', '1', fixturePath('fv5-zstd'), '--json']],
    ['--jobs=2 on a directory and a file', ['--jobs=2', REAL, 'examples/sample.sst']],
    ['a directory, --json', ['--json', REAL]],
    ['a larger file (two SSTs of a database)', ['--jobs', '2', 'test/fixtures/db-medium']],
    ['a path given twice (oclif orders paths by first appearance)', ['examples/sample.sst', fixturePath('fv5-zstd'), 'examples/sample.sst']],
    ['a path equal to the value of --jobs, --json', ['--jobs', '1', 'examples/sample.sst', '1', '--json']],
    ['a missing path (exit 2)', ['no/such.sst', 'examples/sample.sst']],
    ['a missing path, --json', ['no/such.sst', '--json']],
    ['a directory without .sst files', [empty]],
    ['damaged files (exit 1)', damaged],
    ['damaged files and ones that are no SSTs, --json', ['--json', ...damaged, join(BAD, 'bad-magic.sst'), join(BAD, 'fv99.sst'), join(BAD, 'empty.sst')]],
    ['a read that fails (SSTKIT_TEST_FAIL_READ)', ['examples/sample.sst', fixturePath('fv5-zstd')], { SSTKIT_TEST_FAIL_READ: '4' }],
    ['a read that fails, --json', ['--json', 'examples/sample.sst'], { SSTKIT_TEST_FAIL_READ: '2' }],
  ]
  itPrintsAsOclif(cases)

  it('loads no oclif on the plain path, and oclif otherwise', () => {
    const loaded = (args: string[], env: Record<string, string>) => run(args, { ...env, NODE_DEBUG: 'esm' }).stderr
    const plain = loaded(['--jobs', '1', 'examples/sample.sst'], {})
    // The plain bundle (_verify.cjs) is compiled by bin/run.cjs from its code cache: the ESM loader loads nothing.
    expect(plain).not.toContain('ESM')
    expect(loaded(['examples/sample.sst'], { DEBUG: 'sstkit-no-such-namespace' })).toContain('dist/bundle/_oclif.js')
    expect(loaded(['--comparator', 'leveldb.BytewiseComparator', 'examples/sample.sst'], {})).toContain('dist/bundle/_oclif.js')
  })
})

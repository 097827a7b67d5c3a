import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RECOMPRESS_FLAG_DEFAULTS } from '../../src/cli/recompress-options.js'
import { plainRecompressArgs, plainRecompressFlags } from '../../src/entry/recompress-main.js'
import { BAD, fixturePath } from '../helpers.js'
import { type PlainRun, plainPathRunner, scratchWithHome } from './plain-path.js'

const { dir, home } = scratchWithHome('recompress')

describe('plainRecompressArgs: the command lines recompress runs without oclif', () => {
  const env = { HOME: home }

  it('takes paths, --json, and each common flag once as --name VALUE or --name=VALUE, anywhere', () => {
    expect(plainRecompressArgs(['a.sst'], env, 'linux')).toEqual({ paths: ['a.sst'], json: false, flags: {} })
    expect(plainRecompressArgs(['a.sst', '--types', 'zstd,lz4', '--levels=1..3', 'db/', '--dict', 'none', '--checksum=off', '--json'], env, 'linux')).toEqual({
      paths: ['a.sst', 'db/'],
      json: true,
      flags: { types: 'zstd,lz4', levels: '1..3', dict: 'none', checksum: 'off' },
    })
    expect(
      plainRecompressArgs(
        ['--block-size', '4KiB,16KiB', '--jobs', '2', '--format', 'csv', '--sort=size', '--wide', '--bytes', '--verify-compression', 'a.sst'],
        env,
        'linux',
      ),
    ).toEqual({
      paths: ['a.sst'],
      json: false,
      flags: { 'block-size': '4KiB,16KiB', jobs: '2', format: 'csv', sort: 'size', wide: true, bytes: true, 'verify-compression': true },
    })
  })

  it("orders the paths as oclif's parser does: by where each first appears in the command line", () => {
    expect(plainRecompressArgs(['b.sst', 'a.sst', 'b.sst'], env, 'linux')?.paths).toEqual(['b.sst', 'b.sst', 'a.sst'])
    expect(plainRecompressArgs(['--levels', '3', 'x.sst', '3'], env, 'linux')?.paths).toEqual(['3', 'x.sst'])
  })

  it("leaves to oclif a value oclif's parser checks, a flag given twice, --json with --format, and any other option", () => {
    const lines = [
      ['a.sst', '--checksum', 'maybe'],
      ['a.sst', '--format', 'json'],
      ['a.sst', '--sort', 'name'],
      ['a.sst', '--jobs', '0'],
      ['a.sst', '--jobs=01'],
      ['a.sst', '--jobs', '2x'],
      ['a.sst', '--levels'],
      ['a.sst', '--levels='],
      ['a.sst', '--levels', '-5..3'],
      ['a.sst', '--levels', '--json'],
      ['a.sst', '--levels', '1', '--levels', '3'],
      ['a.sst', '--wide', '--wide'],
      ['a.sst', '--wide=true'],
      ['a.sst', '--json', '--format', 'table'],
      ['a.sst', '--json', '--json'],
      ['a.sst', '--repeat', '3'],
      ['a.sst', '--auto-skip', 'rate'],
      ['a.sst', '--dict-file', 'x.dict'],
      ['a.sst', '--debug'],
      ['a.sst', '--help'],
      ['a.sst', '-h'],
      ['--', 'a.sst'],
      ['--levels', '3'],
      [],
    ]
    for (const argv of lines) expect(plainRecompressArgs(argv, env, 'linux'), JSON.stringify(argv)).toBeNull()
  })

  it('leaves to oclif what oclif reads from the environment, and Windows', () => {
    expect(plainRecompressArgs(['a.sst'], { ...env, DEBUG: '1' }, 'linux')).toBeNull()
    expect(plainRecompressArgs(['a.sst'], { ...env, SSTKIT_CONTENT_TYPE: 'json' }, 'linux')).toBeNull()
    expect(plainRecompressArgs(['a.sst'], env, 'win32')).toBeNull()
  })

  it("fills in the flags' defaults as oclif does", () => {
    const f = plainRecompressFlags({ levels: '3', jobs: '2', wide: true })
    expect(f).toMatchObject({ ...RECOMPRESS_FLAG_DEFAULTS, levels: '3', jobs: 2, wide: true, bytes: false, 'no-carry': false })
    expect(f.dict).toBeUndefined()
    expect(f['block-size']).toBeUndefined()
  })
})

const { run, throughOclif } = plainPathRunner('recompress', home, 120_000)

/** A run with its timings (which differ between any two runs) masked: speeds, milliseconds, CPU and wall times. */
function masked(r: PlainRun): PlainRun {
  const mask = (text: string) => {
    const lines = text.split('\n')
    // CSV (a table per file): the columns of speeds and times, by their header.
    let timed: boolean[] | null = null
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].startsWith('Type,Level,')) timed = lines[i].split(',').map((name) => /MB\/s|ms$/.test(name))
      else if (timed && lines[i].includes(','))
        lines[i] = lines[i]
          .split(',')
          .map((v, k) => (timed?.[k] && v !== '' ? 'T' : v))
          .join(',')
      else timed = null
    }
    return (
      lines
        .join('\n')
        .replace(/"(\w*(?:Ms|MBps))": -?[\d.e+-]+/g, '"$1": 0')
        .replace(/~\s*[\d.]+/g, '~N')
        .replace(/\d+\.\d+/g, 'N')
        // A table's columns are as wide as their widest speed.
        .replace(/[ ─]+/g, ' ')
    )
  }
  return { status: r.status, stdout: mask(r.stdout), stderr: mask(r.stderr) }
}

describe('recompress without oclif prints what oclif prints', () => {
  const sample = 'examples/sample.sst'
  const one = ['--levels', '3', '--dict', 'none,raw', '--checksum', 'off']
  const empty = join(dir, 'empty-dir')
  mkdirSync(empty)
  const blob = 'test/fixtures/blob/dbbench-lz4/000009.blob'
  const cases: [string, string[]][] = [
    ['one file', [sample, ...one]],
    ['--json', ['--json', sample, ...one]],
    ['CSV, two codecs, --flag=value forms', [sample, '--types=zstd,lz4', '--levels=default', '--dict=none', '--checksum=both', '--format=csv']],
    ['Markdown, two files, --wide --bytes', ['--format', 'markdown', sample, fixturePath('fv5-zstd'), '--levels', '1', '--dict', 'none', '--wide', '--bytes']],
    [
      're-cut blocks, one job, sorted by size, every block verified',
      [sample, '--block-size', '4KiB,16KiB', '--jobs', '1', '--sort', 'size', '--verify-compression', ...one],
    ],
    ['a blob file (its own matrix; --levels given)', [blob, '--types', 'lz4,zstd', '--levels', '1']],
    ['a blob file with --block-size (a usage error: the flags given count)', [blob, '--block-size', '4KiB']],
    ['a path given twice, CSV (oclif orders paths by first appearance)', [sample, fixturePath('fv5-zstd'), sample, '--format', 'csv', ...one]],
    ['a path equal to an earlier flag value, --json', ['--levels', '3', sample, '3', '--dict', 'none', '--checksum', 'off', '--json']],
    ['a missing path (exit 2)', ['no/such.sst', sample, ...one]],
    ['a missing path, --json', ['no/such.sst', '--json', ...one]],
    ['a directory without .sst files', [empty, ...one]],
    ['a file that is no SST (exit 2), --json', ['--json', join(BAD, 'bad-magic.sst'), sample, ...one]],
    ['a damaged data block (skipped, exit 1)', [join(BAD, 'data-flip-zstd.sst'), ...one]],
    ['a bad level range (a usage error)', [sample, '--levels', '9..1']],
    ['a block size below the minimum (a usage error)', [sample, '--block-size', '16', ...one]],
  ]
  for (const [name, args] of cases) {
    it(name, () => {
      const plain = masked(run(args))
      const oclif = masked(throughOclif(args))
      expect(plain).toEqual(oclif)
      expect(plain.stdout.length + plain.stderr.length).toBeGreaterThan(0)
    })
  }

  it('exit codes: 0 measured, 1 a skipped block, 2 a file that cannot be opened or a usage error', () => {
    expect(run([sample, ...one]).status).toBe(0)
    expect(run([join(BAD, 'data-flip-zstd.sst'), ...one]).status).toBe(1)
    expect(run([join(BAD, 'bad-magic.sst'), sample, ...one]).status).toBe(2)
    expect(run([sample, '--levels', '9..1']).status).toBe(2)
  })

  it('loads no oclif on the plain path, and oclif otherwise', () => {
    const loaded = (args: string[], env: Record<string, string> = {}) => run(args, { ...env, NODE_DEBUG: 'esm' }).stderr
    // The plain bundle (_recompress.cjs) is compiled by bin/run.cjs from its code cache; the ES module
    // loader loads only the lanes' worker (dist/bundle/_recompress-worker.js, a thread of its own).
    const plain = loaded([sample, ...one])
    expect(plain).toContain('_recompress-worker.js')
    expect(plain).not.toMatch(/_oclif\.js|bundle\/recompress\.js|_chunk-/)
    expect(loaded([sample, '--repeat', '1', ...one])).toContain('dist/bundle/_oclif.js')
    expect(loaded([sample, ...one], { DEBUG: 'sstkit-no-such-namespace' })).toContain('dist/bundle/_oclif.js')
  })
})

/**
 * sst-dump's whole-file scan and check through scan's parallel driver: the
 * output must not depend on the number of threads. Workers run the built
 * JavaScript, so the emulation is loaded from dist/ (npm test builds first).
 * Tiny chunks and `awaitWorkers` make even the small fixtures split into many
 * chunks taken by workers, so chunk boundaries fall everywhere, corrupt
 * blocks included.
 *  - every readable fixture's scan, scan --output_hex, check and verify
 *    --verify_checksum against the real sst_dump 7.8.3 goldens;
 *  - every whole-file scan, check or verify case of cases.json (corrupt files too)
 *    against the serial emulation (goldens.test.ts holds that one to 7.8.3);
 *  - keys ParseInternalKey rejects (stderr lines, the out-of-order chunk's
 *    serial restart), in a synthetic file, against the live sst_dump.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type * as SstDumpModule from '../../src/sstdump/index.js'
import type { SequentialOptions } from '../../src/sstdump/index.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { assertFreshBuild, fixtures, REAL, ROOT, SST_DUMP, toolPresent } from '../helpers.js'
import { writeSyntheticTable } from '../synthetic.js'
import { goldenCases, makeWorkDir, normalize, type RunResult, runIn } from './harness.js'

assertFreshBuild()
const dist = (await import(join(ROOT, 'dist', 'sstdump/index.js'))) as typeof SstDumpModule

interface ParallelRun extends RunResult {
  chunks: number
  byWorkers: number
}

async function runParallel(cwd: string, args: string[], options: SequentialOptions = {}): Promise<ParallelRun> {
  const out = new dist.CollectingWriter()
  const err = new dist.CollectingWriter()
  const stats = { chunks: 0, chunksByWorkers: 0 }
  const sequential = { jobs: 3, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true, stats, ...options }
  const code = await dist.runSstDump(args, { stdout: out.write, stderr: err.write, cwd, envPointer: '0x0', sequential })
  return { code, stdout: out.buffer, stderr: err.buffer, chunks: stats.chunks, byWorkers: stats.chunksByWorkers }
}

const readable = fixtures().filter((f) => f.sstDumpReadable)
const KINDS: Record<string, string[]> = {
  scan: ['--command=scan'],
  scanhex: ['--command=scan', '--output_hex'],
  check: [],
  verify: ['--command=verify', '--verify_checksum'],
}

describe.each(readable.map((f) => [f.name] as const))('%s in parallel: byte-identical to sst_dump 7.8.3', (name) => {
  it.each(Object.keys(KINDS))('%s', async (kind) => {
    const r = await runParallel(ROOT, [`--file=test/fixtures/real/${name}.sst`, ...KINDS[kind]])
    const expected = readFileSync(join(REAL, `${name}.${kind}.txt`))
    expect(r.code).toBe(0)
    expect(Buffer.concat([r.stderr, normalize(r.stdout)]).toString('latin1')).toBe(expected.toString('latin1'))
  })
})

it.each([['--command=scan'], ['--command=check'], ['--command=verify --verify_checksum']])(
  '%s: workers take chunks of a fixture of many blocks',
  async (flags) => {
    const r = await runParallel(ROOT, ['--file=test/fixtures/real/index-partitioned.sst', ...flags.split(' ')])
    expect(r.chunks).toBeGreaterThan(10)
    expect(r.byWorkers).toBeGreaterThan(0)
  },
)

/** Whole-file reads (no range, no --read_num) of scan, check or verify: what the parallel path takes. */
const WHOLE = goldenCases().filter((c) => {
  const command = c.args.find((a) => a.startsWith('--command='))
  const reads = command === undefined || ['--command=scan', '--command=check', '--command=verify'].includes(command)
  return reads && c.args.some((a) => a.startsWith('--file=')) && !c.args.some((a) => /^--(from|to|prefix|read_num)=/.test(a))
})

describe('cases.json whole-file reads: parallel equals serial', () => {
  let work: string
  beforeAll(() => {
    work = makeWorkDir()
  })
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it('covers corrupt files, verify too', () => {
    expect(WHOLE.filter((c) => c.name.startsWith('bad-')).length).toBeGreaterThan(20)
    expect(WHOLE.filter((c) => c.name.startsWith('bad-') && c.args.includes('--command=verify')).length).toBeGreaterThan(10)
  })

  it.each(WHOLE.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const cwd = c.cwd === 'repo' ? ROOT : work
    const serial = await runIn(cwd, c.args)
    const parallel = await runParallel(cwd, c.args)
    expect(parallel.stdout.toString('latin1')).toBe(serial.stdout.toString('latin1'))
    expect(parallel.stderr.toString('latin1')).toBe(serial.stderr.toString('latin1'))
    expect(parallel.code).toBe(serial.code)
  })
})

describe('keys ParseInternalKey rejects', () => {
  let tmp: string
  let file: string
  const enc = (s: string) => Buffer.from(s)
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'sstkit-sstdump-par-'))
    // Synthetic: value type 5 is no type RocksDB writes; every 97th key has it, in blocks all over the file.
    // Every 89th entry is a blob index (type 0x11) whose value does not decode (--decode_blob_index: a stderr line).
    const typeOf = (i: number) => (i % 97 === 50 ? 5 : i % 89 === 30 ? 0x11 : 1)
    const entries = Array.from(
      { length: 3000 },
      (_, i) => [encodeInternalKey(enc(`key${String(i).padStart(6, '0')}`), 5000 - i, typeOf(i)), enc(`value ${i}`)] as [Uint8Array, Uint8Array],
    )
    file = writeSyntheticTable(join(tmp, 'synthetic-bad-types.sst'), entries, { blockSize: 512 })
  })
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  it.each([['--command=scan'], ['--command=scan', '--output_hex'], ['--command=check'], ['--command=scan', '--decode_blob_index']])(
    '%s: parallel equals serial, bad keys on stderr',
    async (...args) => {
      const full = [`--file=${file}`, ...args]
      const serial = await runIn(tmp, full)
      const parallel = await runParallel(tmp, full)
      expect(parallel.byWorkers).toBeGreaterThan(0)
      expect(
        serial.stderr
          .toString('latin1')
          .split('\n')
          .filter((l) => l.startsWith('Corrupted Key: ')).length,
      ).toBe(31)
      const blobErrors = serial.stderr
        .toString('latin1')
        .split('\n')
        .filter((l) => l.endsWith(' => error decoding blob index')).length
      expect(blobErrors).toBe(args.includes('--decode_blob_index') ? 34 : 0)
      expect(parallel.stdout.toString('latin1')).toBe(serial.stdout.toString('latin1'))
      expect(parallel.stderr.toString('latin1')).toBe(serial.stderr.toString('latin1'))
      expect(parallel.code).toBe(serial.code)
    },
  )

  it.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools')).each([[''], ['--decode_blob_index']])(
    'scan %s equals the live sst_dump',
    async (flag) => {
      const args = [`--file=${file}`, '--command=scan', ...(flag ? [flag] : [])]
      const want = spawnSync(SST_DUMP!, args, { cwd: tmp, maxBuffer: 64 << 20 })
      const got = await runParallel(tmp, args)
      expect(normalize(got.stdout).toString('latin1')).toBe(normalize(want.stdout).toString('latin1'))
      expect(got.stderr.toString('latin1')).toBe(want.stderr.toString('latin1'))
    },
  )
})

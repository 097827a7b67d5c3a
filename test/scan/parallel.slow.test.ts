/**
 * Parallel scan (worker threads): the output must not depend on --jobs.
 * Workers run the built JavaScript, so these tests load dist/ (npm test
 * builds first). Tiny chunks make even the small fixtures split into many, so
 * chunk boundaries fall everywhere: between range tombstones, inside runs of
 * versions of one key, at corrupt blocks. `awaitWorkers` makes the workers take
 * chunks of these small files (otherwise the main thread finishes first), so
 * the out-of-order path and its tombstone stitching run on every fixture.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type * as ScanModule from '../../src/scan/scan.js'
import type * as ReaderModule from '../../src/table/reader.js'
import type * as WriterModule from '../../src/report/line-writer.js'
import type * as ErrorsModule from '../../src/errors.js'
import type * as BlockReaderModule from '../../src/table/block-reader.js'
import type { ScanSpec } from '../../src/scan/printer.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { assertFreshBuild, BAD, fixturePath, fixtures, ROOT, sstkit } from '../helpers.js'
import { writeSyntheticTable } from '../synthetic.js'

assertFreshBuild()
const dist = (p: string) => join(ROOT, 'dist', p)
const { scanTable } = (await import(dist('scan/scan.js'))) as typeof ScanModule
const { openTable } = (await import(dist('table/reader.js'))) as typeof ReaderModule
const { LineWriter } = (await import(dist('report/line-writer.js'))) as typeof WriterModule
const { CorruptionError } = (await import(dist('errors.js'))) as typeof ErrorsModule
const { ChecksumMismatchError } = (await import(dist('table/block-reader.js'))) as typeof BlockReaderModule

interface Run {
  n: number
  out: string
  error: string | null
  chunks: number
  byWorkers: number
}

function run(file: string, spec: ScanSpec, jobs: number, rangeDeletions = true): Run {
  const t = openTable(file)
  const parts: Buffer[] = []
  const w = new LineWriter((b) => parts.push(Buffer.from(b)))
  const stats = { chunks: 0, chunksByWorkers: 0 }
  let n = 0
  let error: string | null = null
  try {
    n = scanTable(t, spec, w, { jobs, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true, stats, rangeDeletions })
  } catch (e) {
    error = (e as Error).message
  }
  w.flush()
  t.close()
  return { n, out: Buffer.concat(parts).toString('latin1'), error, chunks: stats.chunks, byWorkers: stats.chunksByWorkers }
}

function expectSame(file: string, spec: ScanSpec, rangeDeletions = true): Run {
  const serial = run(file, spec, 1, rangeDeletions)
  const parallel = run(file, spec, 2, rangeDeletions)
  expect(serial.chunks).toBe(0)
  expect(parallel.error).toBe(serial.error)
  expect(parallel.n).toBe(serial.n)
  expect(parallel.out).toBe(serial.out)
  return parallel
}

describe('scanTable with worker threads = scanTable serial', () => {
  it.each(fixtures().map((f) => f.name))('%s', (name) => {
    const p = expectSame(fixturePath(name), { format: 'text', hex: false })
    expect(p.chunks).toBeGreaterThan(1)
    expect(p.byWorkers).toBeGreaterThan(0)
  })

  it('hex and jsonl', () => {
    for (const name of ['binary-keys', 'entry-types', 'v11-fv7-blob-index', 'wide-columns']) {
      if (!fixtures().some((f) => f.name === name)) continue
      expectSame(fixturePath(name), { format: 'text', hex: true })
      expectSame(fixturePath(name), { format: 'jsonl', hex: false })
      expectSame(fixturePath(name), { format: 'jsonl', hex: true, file: 'x.sst' })
    }
  })

  it('range tombstones stitched between chunks printed out of order', () => {
    for (const name of ['entry-types', 'ingested-global-seqno', 'sstfilewriter-mixed']) {
      const p = expectSame(fixturePath(name), { format: 'text', hex: false })
      expect(p.out).toContain('kTypeRangeDeletion')
      expect(p.byWorkers).toBeGreaterThan(0)
      expectSame(fixturePath(name), { format: 'text', hex: false }, false)
    }
  })

  it('--from, --to and --prefix', () => {
    const enc = (s: string) => new TextEncoder().encode(s)
    const f = fixturePath('fv5-snappy')
    const a = expectSame(f, { format: 'text', hex: false, from: enc('row000100'), to: enc('row000400') })
    expect(a.n).toBe(80)
    expectSame(f, { format: 'text', hex: false, prefix: enc('row0002') })
    expectSame(fixturePath('entry-types'), { format: 'text', hex: false, from: enc('key'), to: enc('m') })
  })

  it('corrupt files: the same lines, then the same error', () => {
    for (const name of ['data-flip-none', 'synthetic-shared-too-long', 'synthetic-restarts', 'trailer-type-flip']) {
      const p = expectSame(join(BAD, `${name}.sst`), { format: 'text', hex: false })
      expect(p.error).toMatch(/\(at offset \d+\)$/)
    }
  })

  it('an error a worker throws reaches the caller as its own class, with its offset (synthetic)', async () => {
    const { tableLayout } = (await import(dist('table/layout.js'))) as typeof import('../../src/table/layout.js')
    const fs = await import('node:fs')
    const tmp = fs.mkdtempSync(join(tmpdir(), 'sstkit-worker-error-'))
    try {
      const enc = (s: string) => new TextEncoder().encode(s)
      const entries = Array.from(
        { length: 200 },
        (_, i) => [encodeInternalKey(enc(`key${String(i).padStart(6, '0')}`), 500 - i, 1), enc(`value ${i}`)] as [Uint8Array, Uint8Array],
      )
      const good = writeSyntheticTable(join(tmp, 'synthetic-blocks.sst'), entries, { blockSize: 256 })
      const t = openTable(good)
      const data = tableLayout(t).blocks.filter((b) => b.kind === 'data')
      t.close()
      // One block per chunk (chunkBytes 150): the main thread prints chunk 0 and
      // hands chunk 1 to the worker first, so the damage in block 1 is the worker's.
      expect(data.length).toBeGreaterThan(4)
      expect(data[1].size).toBeGreaterThan(150)
      const bytes = fs.readFileSync(good)
      bytes[data[1].offset + 3] ^= 0x01
      const bad = join(tmp, 'synthetic-data-flip.sst')
      fs.writeFileSync(bad, bytes)
      const thrown = (jobs: number) => {
        const table = openTable(bad)
        const stats = { chunks: 0, chunksByWorkers: 0 }
        try {
          scanTable(table, { format: 'text', hex: false }, new LineWriter(() => {}), { jobs, chunkBytes: 150, parallelThreshold: 0, awaitWorkers: true, stats })
        } catch (e) {
          return { e: e as InstanceType<typeof ChecksumMismatchError>, stats }
        } finally {
          table.close()
        }
        throw new Error('the scan did not fail')
      }
      const serial = thrown(1)
      expect(serial.e).toBeInstanceOf(ChecksumMismatchError)
      expect(serial.e.offset).toBe(data[1].offset)
      const parallel = thrown(2)
      expect(parallel.stats.chunksByWorkers).toBeGreaterThan(0)
      expect(parallel.e).toBeInstanceOf(ChecksumMismatchError)
      expect(parallel.e).toBeInstanceOf(CorruptionError)
      expect([parallel.e.name, parallel.e.message, parallel.e.offset, parallel.e.code]).toEqual([serial.e.name, serial.e.message, data[1].offset, 'corruption'])
      expect(parallel.e.handle).toEqual(serial.e.handle)
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true })
    }
  })
})

describe('a worker that cannot open the file', () => {
  it('(removed after the main thread opened it): takes no chunks, and the main thread prints every chunk', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'sstkit-gone-'))
    try {
      const file = join(tmp, 'gone.sst')
      copyFileSync(fixturePath('fv5-snappy'), file)
      const serial = run(fixturePath('fv5-snappy'), { format: 'text', hex: false }, 1)
      const t = openTable(file)
      rmSync(file)
      const parts: Buffer[] = []
      const w = new LineWriter((b) => parts.push(Buffer.from(b)))
      const stats = { chunks: 0, chunksByWorkers: 0 }
      const n = scanTable(t, { format: 'text', hex: false }, w, { jobs: 2, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true, stats })
      w.flush()
      t.close()
      expect(stats.chunks).toBeGreaterThan(5)
      expect(stats.chunksByWorkers).toBe(0)
      expect(n).toBe(serial.n)
      expect(Buffer.concat(parts).toString('latin1')).toBe(serial.out)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})

describe('sstkit scan --jobs (CLI)', () => {
  it('prints the same for --jobs 1 and --jobs 3 over every fixture in one run', () => {
    const files = fixtures().map((f) => fixturePath(f.name))
    for (const extra of [[], ['--hex'], ['--format', 'jsonl']]) {
      const serial = sstkit(['scan', ...files, ...extra, '--jobs', '1'])
      const parallel = sstkit(['scan', ...files, ...extra, '--jobs', '3', '--chunk-bytes', '400'])
      expect(serial.status).toBe(0)
      expect(parallel.status).toBe(0)
      expect(parallel.stdout).toBe(serial.stdout)
      expect(parallel.stderr).toBe('')
    }
  })

  it('a corrupt file among good ones: same output, error line and exit code', () => {
    const args = ['scan', fixturePath('fv5-snappy'), join(BAD, 'data-flip-none.sst'), fixturePath('binary-keys')]
    const serial = sstkit([...args, '--jobs', '1'])
    const parallel = sstkit([...args, '--jobs', '2', '--chunk-bytes', '400'])
    expect(serial.status).toBe(1)
    expect(parallel).toEqual(serial)
  })
})

describe('a damaged index partition part way through (synthetic)', () => {
  it('parallel prints every entry before it, as serial does, then the same error', async () => {
    const { tableLayout } = (await import(dist('table/layout.js'))) as typeof import('../../src/table/layout.js')
    const fs = await import('node:fs')
    const tmp = fs.mkdtempSync(join(tmpdir(), 'sstkit-partition-'))
    try {
      const enc = (s: string) => new TextEncoder().encode(s)
      const entries = Array.from(
        { length: 3000 },
        (_, i) => [encodeInternalKey(enc(`key${String(i).padStart(6, '0')}`), 5000 - i, 1), enc(`value ${i}`)] as [Uint8Array, Uint8Array],
      )
      const good = writeSyntheticTable(join(tmp, 'synthetic-partitioned.sst'), entries, { blockSize: 512, index: 'partitioned', metadataBlockSize: 256 })
      const t = openTable(good)
      const partitions = tableLayout(t).blocks.filter((b) => b.kind === 'index partition')
      t.close()
      expect(partitions.length).toBeGreaterThan(5)
      const victim = partitions[Math.floor(partitions.length / 2)]
      const bytes = fs.readFileSync(good)
      bytes[victim.offset + 3] ^= 0x01
      const bad = join(tmp, 'synthetic-partition-flip.sst')
      fs.writeFileSync(bad, bytes)
      const p = expectSame(bad, { format: 'text', hex: false })
      expect(p.error).toMatch(/index partition checksum mismatch/)
      expect(p.out.split('\n').length - 1).toBeGreaterThan(100)
      expect(p.byWorkers).toBeGreaterThan(0)
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true })
    }
  })
})

/**
 * Parallel verify (worker threads): the findings must not depend on --jobs.
 * Workers run the built JavaScript, so these tests load dist/ (npm test
 * builds first). Tiny chunks split even the small fixtures into many, so chunk
 * boundaries fall between every pair of blocks: at keys out of order across
 * blocks, at damaged blocks, at index separators that do not fit.
 */
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type * as VerifyModule from '../../src/verify/verify.js'
import type * as ReaderModule from '../../src/table/reader.js'
import type * as LayoutModule from '../../src/table/layout.js'
import type * as ParallelModule from '../../src/verify/parallel.js'
import type * as NativeModule from '../../src/verify/native.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { writeFixed32 } from '../../src/format/coding.js'
import { computeStoredChecksum } from '../../src/table/block-reader.js'
import { assertFreshBuild, BAD, fixturePath, fixtures, ROOT, sstkit } from '../helpers.js'
import { type Entry, writeSyntheticTable } from '../synthetic.js'

assertFreshBuild()
const dist = (p: string) => join(ROOT, 'dist', p)
const { verifyFile, verifyTable } = (await import(dist('verify/verify.js'))) as typeof VerifyModule
const { openTable } = (await import(dist('table/reader.js'))) as typeof ReaderModule
const { tableLayout } = (await import(dist('table/layout.js'))) as typeof LayoutModule
const { BlockSummarizer, ParallelBlockChecks } = (await import(dist('verify/parallel.js'))) as typeof ParallelModule
const { nativeVerifyAbilities } = (await import(dist('verify/native.js'))) as typeof NativeModule

/** verifyFile with one job and with workers taking chunks of one block or so; both outcomes and the split. */
function both(file: string, chunkBytes = 300) {
  const serial = verifyFile(file, { jobs: 1 })
  const stats = { chunks: 0, chunksByWorkers: 0 }
  const parallel = verifyFile(file, { jobs: 2, chunkBytes, parallelThreshold: 0, awaitWorkers: true, stats })
  return { serial, parallel, stats }
}

function expectSameFindings(file: string, chunkBytes?: number) {
  const r = both(file, chunkBytes)
  if (r.serial.kind === 'unopenable') {
    expect(r.parallel.kind).toBe('unopenable')
    return r
  }
  expect(r.parallel).toEqual(r.serial)
  return r
}

const enc = (s: string) => new TextEncoder().encode(s)
const key = (i: number, seq = 1000 - i) => encodeInternalKey(enc(`key${String(i).padStart(6, '0')}`), seq, 1)

describe('verifyFile with worker threads = verifyFile serial', () => {
  it.each(fixtures().map((f) => f.name))('%s', (name) => {
    const r = expectSameFindings(fixturePath(name))
    expect(r.serial.kind).toBe('ok')
    // Workers check key order in WebAssembly, for the bytewise comparator: other tables are verified serially.
    const t = openTable(fixturePath(name))
    const bytewise = t.comparatorName === 'leveldb.BytewiseComparator'
    t.close()
    if (bytewise) expect(r.stats.chunks).toBeGreaterThan(1)
    else expect(r.stats.chunks).toBe(0)
  })

  it('workers take chunks of the real fixtures (not only the main thread)', () => {
    let byWorkers = 0
    for (const f of fixtures()) byWorkers += both(fixturePath(f.name)).stats.chunksByWorkers
    expect(byWorkers).toBeGreaterThan(0)
  })

  it.each(readdirSync(BAD).filter((n) => n.endsWith('.sst')))('damaged: %s', (name) => {
    expectSameFindings(join(BAD, name))
  })

  it('a large chunk size (whole file in a few chunks) too', () => {
    for (const name of ['fv5-snappy', 'entry-types']) expectSameFindings(fixturePath(name), 64 * 1024)
  })
})

describe('where the native kernel is not available (not built, or SSTKIT_NO_NATIVE_VERIFY)', () => {
  // One real fixture of each codec and format_version, and every damaged file.
  const seen = new Set<string>()
  const files = [
    ...fixtures()
      .filter((f) => !seen.has(`${f.compression}/${f.formatVersion}`) && seen.add(`${f.compression}/${f.formatVersion}`))
      .map((f) => fixturePath(f.name)),
    ...readdirSync(BAD)
      .filter((n) => n.endsWith('.sst'))
      .map((n) => join(BAD, n)),
  ]

  it('the portable checker does every block, on this thread and on workers: the findings of the kernel, and workers take chunks', () => {
    expect(nativeVerifyAbilities()).not.toBeNull()
    const withKernel = files.map((f) => verifyFile(f, { jobs: 1 }))
    process.env.SSTKIT_NO_NATIVE_VERIFY = '1'
    try {
      expect(nativeVerifyAbilities()).toBeNull()
      let byWorkers = 0
      files.forEach((file, i) => {
        expect(verifyFile(file, { jobs: 1 }), file).toEqual(withKernel[i])
        const stats = { chunks: 0, chunksByWorkers: 0 }
        expect(verifyFile(file, { jobs: 2, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true, stats }), file).toEqual(withKernel[i])
        byWorkers += stats.chunksByWorkers
      })
      expect(byWorkers).toBeGreaterThan(0)
    } finally {
      delete process.env.SSTKIT_NO_NATIVE_VERIFY
    }
  }, 120_000)
})

describe('findings across block boundaries (synthetic)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-verify-parallel-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const blocksOf = (file: string) => {
    const t = openTable(file)
    const data = tableLayout(t).blocks.filter((b) => b.kind === 'data')
    t.close()
    return data
  }

  it('keys out of order between blocks and inside a block: the same problems, entry numbers included', () => {
    // 400 keys in 256-byte blocks; key 150 written again after key 300 (out of order across
    // blocks wherever it lands), and keys 200..205 written in reverse (inside a block).
    const order: number[] = []
    for (let i = 0; i < 400; i++) {
      if (i === 200) order.push(205, 204, 203, 202, 201, 200)
      else if (i > 200 && i <= 205) continue
      else order.push(i)
      if (i === 300) order.push(150)
    }
    // Short values put several entries in a block; 300-byte values one per block (every disorder is between blocks).
    for (const pad of [0, 300]) {
      const entries: Entry[] = order.map((i, n) => [key(i, 5000 - n), enc(`value ${i}`.padEnd(pad, '.'))])
      const file = writeSyntheticTable(join(dir, `synthetic-out-of-order-${pad}.sst`), entries, { blockSize: 256 })
      // chunks of one block, and of many (the disorder inside a chunk the native kernel checks across, or at its edge)
      for (const chunkBytes of [300, 1500, 4096, 64 * 1024]) {
        const r = expectSameFindings(file, chunkBytes)
        if (r.serial.kind === 'unopenable') return expect.unreachable()
        expect(r.serial.problems.some((p) => /keys out of order: entry \d+/.test(p.message))).toBe(true)
        expect(r.serial.problems.length).toBeGreaterThan(1)
        if (chunkBytes === 300) expect(r.stats.chunksByWorkers).toBeGreaterThan(0)
      }
    }
  })

  it('index separators out of place (the index block damaged, its checksum fixed up): the same findings for any chunk size', () => {
    const entries: Entry[] = Array.from({ length: 600 }, (_, i) => [key(i * 3), enc(`value ${i}`)])
    const good = writeSyntheticTable(join(dir, 'synthetic-index.sst'), entries, { blockSize: 256 })
    const t = openTable(good)
    const index = t.indexHandle
    const ctx = t.checksum
    t.close()
    let findings = 0
    for (let seed = 1; seed <= 30; seed++) {
      const bytes = new Uint8Array(readFileSync(good))
      // a byte of a separator's key (past each entry's 3 varint bytes, usually), so that most still decode
      const at = index.offset + ((seed * 7919) % Math.max(1, index.size - 8))
      bytes[at] = (bytes[at] + 1 + (seed % 5)) & 0xff
      writeFixed32(bytes, index.offset + index.size + 1, computeStoredChecksum(ctx, bytes.subarray(index.offset, index.offset + index.size + 1), index.offset))
      const bad = join(dir, `synthetic-index-${seed}.sst`)
      writeFileSync(bad, bytes)
      for (const chunkBytes of [300, 4096]) {
        const r = expectSameFindings(bad, chunkBytes)
        if (chunkBytes === 300 && r.serial.kind === 'findings') findings++
      }
    }
    expect(findings).toBeGreaterThan(5)
  })

  it('a damaged block among good ones: the same problem at the same offset, and the blocks after it checked alike', () => {
    const entries: Entry[] = Array.from({ length: 300 }, (_, i) => [key(i), enc(`value ${i}`)])
    const good = writeSyntheticTable(join(dir, 'synthetic-blocks.sst'), entries, { blockSize: 256 })
    const data = blocksOf(good)
    expect(data.length).toBeGreaterThan(8)
    for (const b of [1, 4, data.length - 1]) {
      const bytes = readFileSync(good)
      bytes[data[b].offset + 5] ^= 0x10
      const bad = join(dir, `synthetic-data-flip-${b}.sst`)
      writeFileSync(bad, bytes)
      const r = expectSameFindings(bad)
      if (r.serial.kind === 'unopenable') return expect.unreachable()
      expect(r.serial.problems[0]).toMatchObject({ block: 'data block', offset: data[b].offset })
    }
  })

  it('a file whose blocks are clean but the index is damaged part way: the same problems', () => {
    const entries: Entry[] = Array.from({ length: 2000 }, (_, i) => [key(i), enc(`value ${i}`)])
    const good = writeSyntheticTable(join(dir, 'synthetic-partitioned.sst'), entries, { blockSize: 256, index: 'partitioned', metadataBlockSize: 256 })
    const t = openTable(good)
    const parts = tableLayout(t).blocks.filter((b) => b.kind === 'index partition')
    t.close()
    expect(parts.length).toBeGreaterThan(3)
    const bytes = readFileSync(good)
    bytes[parts[2].offset + 2] ^= 0x40
    const bad = join(dir, 'synthetic-partition-flip.sst')
    writeFileSync(bad, bytes)
    const r = expectSameFindings(bad)
    if (r.serial.kind === 'unopenable') return expect.unreachable()
    expect(r.serial.problems.length).toBeGreaterThan(0)
  })
})

describe('the window of chunks read ahead (ParallelBlockChecks.wrap)', () => {
  it('yields every block of the index with its handle, index key and partition, in order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sstkit-verify-wrap-'))
    try {
      const entries: Entry[] = Array.from({ length: 3000 }, (_, i) => [key(i), enc(`value ${i}`)])
      for (const index of ['binary', 'partitioned'] as const) {
        const file = writeSyntheticTable(join(dir, `wrap-${index}.sst`), entries, { blockSize: 256, index, metadataBlockSize: 256 })
        const t = openTable(file)
        const expected = [...t.dataBlocks()].map((r) => ({
          handle: { ...r.handle },
          indexKey: Buffer.from(r.indexKey).toString('hex'),
          partition: r.partition,
        }))
        expect(expected.length).toBeGreaterThan(100)
        expect(expected.some((r) => r.partition !== null)).toBe(index === 'partitioned')
        expect(BlockSummarizer.available).toBe(true)
        // Chunks of a few blocks: many chunks, so the window turns over many times.
        const p = new ParallelBlockChecks(t, () => BlockSummarizer.create(t) as NonNullable<ReturnType<typeof BlockSummarizer.create>>, file, 1, 1000)
        const got: typeof expected = []
        try {
          const it = p.wrap(t.dataBlocks())
          for (let r = it.next(); !r.done; r = it.next()) {
            got.push({ handle: { ...r.value.handle }, indexKey: Buffer.from(r.value.indexKey).toString('hex'), partition: r.value.partition })
            expect(p.summary()?.entries ?? 0).toBeGreaterThan(0)
          }
        } finally {
          p.close()
          t.close()
        }
        expect(got).toEqual(expected)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a worker that cannot open the file', () => {
  it('(removed after the main thread opened it): takes no chunks, and the main thread checks every chunk', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'sstkit-gone-'))
    try {
      const file = join(tmp, 'gone.sst')
      copyFileSync(fixturePath('fv5-snappy'), file)
      const serialTable = openTable(file)
      const serial = verifyTable(serialTable, { jobs: 1 })
      serialTable.close()
      const t = openTable(file)
      rmSync(file)
      const stats = { chunks: 0, chunksByWorkers: 0 }
      const parallel = verifyTable(t, { jobs: 2, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true, stats })
      t.close()
      expect(stats.chunks).toBeGreaterThan(5)
      expect(stats.chunksByWorkers).toBe(0)
      expect(parallel).toEqual(serial)
      expect(serial.problems).toEqual([])
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})

describe('sstkit verify --jobs (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-verify-cli-'))
  const big = join(dir, 'synthetic-80mb.sst')
  beforeAll(async () => {
    const { writeSynth } = (await import(dist('synth/synth.js'))) as typeof import('../../src/synth/synth.js')
    writeSynth(big, {
      sizeBytes: 80e6,
      valueSize: 200,
      compressibleFraction: 0.6,
      runLength: 1,
      compressibleRatio: 0.3,
      seed: 2,
      compressionType: 1,
      blockSize: 4096,
    })
  }, 180_000) // ~5 s on a quiet machine, minutes on a loaded one
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a large file: the report is the same with one job as with workers, and workers take chunks', () => {
    const serial = sstkit(['verify', big, '--jobs', '1'])
    const parallel = sstkit(['verify', big])
    expect(serial.status).toBe(0)
    expect(parallel).toEqual(serial)
    // The main thread can be through the file before a worker has started (the native kernel checks
    // ~600 MB/s, a loaded machine starts a thread late): this waits for it, so that it checks chunks.
    const stats = { chunks: 0, chunksByWorkers: 0 }
    expect(verifyFile(big, { jobs: 2, stats, awaitWorkers: true, parallelThreshold: 32 * 1024 * 1024 }).kind).toBe('ok')
    expect(stats.chunks).toBeGreaterThan(20)
    expect(stats.chunksByWorkers).toBeGreaterThan(0)
  })

  it('many files, damaged ones among them, text and --json: the same output, order and exit code', () => {
    // The large file damaged in one data block: a finding from the parallel path.
    const t = openTable(big)
    const block = tableLayout(t).blocks.filter((b) => b.kind === 'data')[5000]
    t.close()
    const damaged = join(dir, 'synthetic-80mb-flip.sst')
    copyFileSync(big, damaged)
    const bytes = readFileSync(damaged)
    bytes[block.offset + 7] ^= 0x01
    writeFileSync(damaged, bytes)
    const files = [fixturePath('fv5-snappy'), big, join(BAD, 'data-flip-zstd.sst'), damaged, join(BAD, 'bad-magic.sst'), fixturePath('entry-types')]
    for (const extra of [[], ['--json']]) {
      const serial = sstkit(['verify', ...files, ...extra, '--jobs', '1'])
      const parallel = sstkit(['verify', ...files, ...extra, '--jobs', '2'])
      expect(serial.status).toBe(2)
      expect(serial.stdout).toMatch(new RegExp(`offset"?:? ${block.offset}\\b`))
      expect(parallel).toEqual(serial)
    }
  }, 180_000) // four runs over a 43 MB file: minutes on a loaded machine
})

/**
 * sstkit's compression CPU against what real RocksDB 7.8.3 spends on the same data (docs/cpu.md):
 * a database db_bench writes (filluniquerandom, seed 42, about 8 MB of key-values, 4 KiB blocks),
 * copies compacted by db_bench's `compact` under each setting, best of 3 interleaved rounds
 * (test/fixtures/compaction-cpu.mjs); sstkit's recompress timings of the same settings on the
 * compacted data, best of 3 (test/fixtures/sstkit-cpu.mjs).
 *
 * RocksDB's compression CPU of a setting: its own timer around each block's compression
 * (rocksdb.compression.times.nanos, median × blocks: wall time, robust to a preempted block), and
 * for a finalized or trained dictionary, plus what its compaction's CPU (compaction_time_cpu_micros)
 * adds over the raw dictionary's of the same level (ZDICT's work). Not held to (docs/cpu.md, printed
 * by bench/cpu-vs-rocksdb.mjs): the plain marginal method (less kNoCompression's compaction), which
 * also counts the writing a smaller output saves, as large as Snappy's and LZ4's compression on
 * 4 KiB blocks; and what RocksDB's dictionary settings add beyond their compression and ZDICT
 * (buffering the file's blocks and replaying them), which recompress's timings do not include; the
 * reference model advise decides on (decide/nominal.ts) charges it, and is held to RocksDB's whole
 * cost of each setting here too.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  codecOf,
  compactedTable,
  haveDbBench,
  rocksDbCompressionCpu,
  rocksDbReference,
  SETTINGS,
  TRAIN_BYTES,
  writeDatabase,
} from '../fixtures/compaction-cpu.mjs'
import { codecKernelLoaded } from '../../src/codec/kernel.js'
import { sstkitCompressionCpu } from '../fixtures/sstkit-cpu.mjs'
import { nominalDictionaryMs, nominalTimings } from '../../src/decide/nominal.js'
import { spec } from '../../src/decide/settings.js'
import type { DictMode } from '../../src/types/advice.js'

/** The reference model's CPU for a setting on `inputBytes` of uncompressed blocks in one file (what advise decides on). */
function referenceSeconds(s: (typeof SETTINGS)[number], inputBytes: number, trainBytes: number): number {
  const setting = spec(codecOf(s), s.level, s.dict as DictMode, false)
  const samples = Math.min(inputBytes, s.dict === 'raw' ? 0 : trainBytes)
  return (nominalTimings(setting).compress.value! * inputBytes) / 1e9 + nominalDictionaryMs(setting, samples) / 1000
}

/** The tolerance: sstkit's CPU for a setting within this factor of RocksDB's, either way. */
const TOLERANCE = 2
/** zlib's measured decompression (timed from JavaScript) against RocksDB's. */
const ZLIB_TOLERANCE = 3

/** RocksDB's decompression speed of a setting's output, sstkit's measured one and the reference model's, MB/s. */
interface ReadRow {
  name: string
  rocksdb: number
  sstkit: number
  model: number
}

interface Row {
  name: string
  rocksdb: number
  sstkit: number
}

/** The order RocksDB's costs and sstkit's charges are held to: each pair's first setting cheaper than its second. */
const CHEAPER_THAN: readonly (readonly [string, string])[] = [
  ['snappy', 'zstd 1'],
  ['lz4', 'zstd 1'],
  ['zstd 1', 'zstd 3'],
  ['zstd 3', 'zstd 6'],
  ['lz4', 'lz4hc'],
  ['zstd 1', 'zlib'],
  ['zlib', 'bzip2'],
  ['zstd 3', 'zstd 3 dict=raw'],
  ['zstd 3 dict=finalize', 'zstd 3 dict=train'],
]

/**
 * RocksDB's costs within this share of each other are a tie: its per-block timer is a wall clock, and
 * zstd 3 with a raw dictionary (attached to the context, little work on 4 KiB blocks) measures within
 * 0.5% of zstd 3 without (40.4 and 40.2 ms; once 40.43 under 40.48 ms).
 */
const ROCKSDB_TIE = 0.01

/** The pairs of CHEAPER_THAN that `who`'s costs in `rows` do not keep, as "a < b" (RocksDB's ties kept). */
function misordered(rows: readonly Row[], who: 'rocksdb' | 'sstkit'): string[] {
  const cost = (name: string) => rows.find((r) => r.name === name)![who]
  const tie = who === 'rocksdb' ? ROCKSDB_TIE : 0
  return CHEAPER_THAN.filter(([a, b]) => !(cost(a) < cost(b) * (1 + tie))).map(([a, b]) => `${a} < ${b}`)
}

describe.runIf(process.env.SSTKIT_SLOW_TESTS && haveDbBench())('compression CPU against RocksDB 7.8.3', () => {
  let dir: string
  let rows: Row[]
  let model: Row[]
  let lz4: { rocksdb: number; sstkit: number }
  let reads: ReadRow[]

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-cpu-'))
    const db = join(dir, 'db')
    writeDatabase(db, 40000)
    const file = compactedTable(db, join(dir, 'lz4'))
    let rocks = rocksDbCompressionCpu(db, join(dir, 'work'), SETTINGS, 3)
    const ours = await sstkitCompressionCpu(file, SETTINGS, 3)
    const compare = () => {
      rows = rocksDbReference(rocks).map(({ name, reference, setting }) => {
        const o = ours.get(name)!
        return { name, rocksdb: reference, sstkit: (o.compressSecPerGB * setting.compressedInputBytes) / 1e9 + o.dictSeconds }
      })
      // The reference model against RocksDB's whole cost of the setting: a dictionary's buffering included, as the model charges it.
      model = rocksDbReference(rocks).map(({ name, reference, withBuffering, setting }) => {
        const s = SETTINGS.find((x) => x.name === name)!
        return { name, rocksdb: s.dict === 'none' ? reference : withBuffering, sstkit: referenceSeconds(s, setting.compressedInputBytes, TRAIN_BYTES) }
      })
      // Reading: RocksDB's decompression speed of the same setting's output against sstkit's and the model's.
      lz4 = { rocksdb: rocks.lz4DecompressMBps, sstkit: ours.get('lz4')!.decompressMBps }
      reads = rocks.settings
        .filter((s) => !s.name.includes(' dict='))
        .map((s) => {
          const setting = SETTINGS.find((x) => x.name === s.name)!
          const model = nominalTimings(spec(codecOf(setting), setting.level, 'none', false)).decompress.value!
          return { name: s.name, rocksdb: s.decompressMBps, sstkit: ours.get(s.name)!.decompressMBps, model }
        })
    }
    compare()
    // RocksDB's per-block timer is a wall clock: with the other slow tests running beside it, all three
    // rounds of LZ4 once read 12.8 ms where it reads ~8 alone (and, beside them, its LZ4 reading once
    // came out at 1/2.05 of sstkit's speed, outside the tolerance, where alone it is within). Where a setting falls outside the
    // tolerance, RocksDB is measured again with twice the rounds (the least of them counts), once: an
    // error of the model or of sstkit's timing stays outside.
    const outside = (r: Row) => r.sstkit / r.rocksdb <= 1 / TOLERANCE || r.sstkit / r.rocksdb >= TOLERANCE
    // Reading too (sstkit's measured zlib aside, held to its own tolerance below): its timer is the same wall clock.
    const readOutside = (r: ReadRow) => outside({ ...r, sstkit: r.model }) || (r.name !== 'zlib' && outside(r))
    // And RocksDB's costs out of the order held below beyond a tie.
    if ([...rows, ...model].some(outside) || reads.some(readOutside) || outside({ name: 'lz4', ...lz4 }) || misordered(rows, 'rocksdb').length > 0) {
      rocks = rocksDbCompressionCpu(db, join(dir, 'again'), SETTINGS, 6)
      compare()
    }
    console.log(model.map((r) => `${r.name}: RocksDB ${(r.rocksdb * 1e3).toFixed(1)} ms, reference model ${(r.sstkit * 1e3).toFixed(1)} ms`).join('\n'))
    console.log(
      reads
        .map((r) => `${r.name} decompression MB/s: RocksDB ${r.rocksdb.toFixed(0)}, sstkit ${r.sstkit.toFixed(0)}, reference model ${r.model.toFixed(0)}`)
        .join('\n'),
    )
    console.log(rows.map((r) => `${r.name}: RocksDB ${(r.rocksdb * 1e3).toFixed(1)} ms, sstkit ${(r.sstkit * 1e3).toFixed(1)} ms`).join('\n'))
  }, 600_000)

  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('times through the codec kernel (without it, the JavaScript calls are timed, overhead and all)', () => {
    expect(codecKernelLoaded()).toBe(true)
  })

  it(`charges every setting within ${TOLERANCE}x of what RocksDB spends`, () => {
    for (const r of rows) {
      expect(r.rocksdb, r.name).toBeGreaterThan(0)
      expect(r.sstkit / r.rocksdb, r.name).toBeGreaterThan(1 / TOLERANCE)
      expect(r.sstkit / r.rocksdb, r.name).toBeLessThan(TOLERANCE)
    }
  })

  it(`the reference model every advise decision ranks on is within ${TOLERANCE}x of RocksDB's whole cost of each setting`, () => {
    for (const r of model) {
      expect(r.sstkit / r.rocksdb, r.name).toBeGreaterThan(1 / TOLERANCE)
      expect(r.sstkit / r.rocksdb, r.name).toBeLessThan(TOLERANCE)
    }
  })

  it('orders the codecs as RocksDB does: Snappy and LZ4 below zstd 1, zstd 1 < 3 < 6 < zlib < bzip2, a dictionary above none, training above finalizing (RocksDB within 1% a tie)', () => {
    for (const who of ['rocksdb', 'sstkit'] as const) expect(misordered(rows, who), who).toEqual([])
  })

  it(`decompresses every codec within ${TOLERANCE}x of RocksDB's speed reading the same setting's output, measured and in the reference model`, () => {
    expect(reads.map((r) => r.name).sort()).toEqual(['bzip2', 'lz4', 'lz4hc', 'snappy', 'zlib', 'zstd 1', 'zstd 3', 'zstd 6'])
    for (const r of reads) {
      expect(r.rocksdb, r.name).toBeGreaterThan(0)
      for (const who of ['sstkit', 'model'] as const) {
        // zlib is timed around each call from JavaScript (the kernel does not do it): 164-250 MB/s measured
        // against RocksDB's 327 (2026-12-06, load 3-12), so its measured figure is held to ZLIB_TOLERANCE.
        const tolerance = who === 'sstkit' && r.name === 'zlib' ? ZLIB_TOLERANCE : TOLERANCE
        expect(r[who] / r.rocksdb, `${r.name} ${who}`).toBeGreaterThan(1 / tolerance)
        expect(r[who] / r.rocksdb, `${r.name} ${who}`).toBeLessThan(tolerance)
      }
    }
  })

  it(`decompresses LZ4 within ${TOLERANCE}x of RocksDB's speed`, () => {
    expect(lz4.sstkit / lz4.rocksdb).toBeGreaterThan(1 / TOLERANCE)
    expect(lz4.sstkit / lz4.rocksdb).toBeLessThan(TOLERANCE)
  })
})

/**
 * Reference speeds: every advise decision, limit and price ranks CPU on these figures, never on a
 * run's own timings, so that the same database and seed give the same advice on an idle machine
 * and on a busy one (docs/cpu.md); a run's timings are shown beside them. Dictionary building is
 * modelled the same way, from the bytes ZDICT is given (nominalDictionaryMs).
 *
 * Compression, MB/s of input: measured by the method advise and recompress time with (docs/cpu.md:
 * the codec kernel's thread CPU per batch of blocks, as RocksDB's table builder pays it), best of
 * 5 rounds, on the 2,223 data blocks (4 KiB, 8.9 MB) of a db_bench 7.8.3 database
 * (filluniquerandom 40,000 keys, 200-byte values of ratio 0.5; the data
 * test/recompress/cpu-vs-rocksdb.slow.test.ts holds against RocksDB), at 5c5c9e9 on 2026-12-06;
 * LZ4HC on the same data by the same test's timings (47 ms, 2026-12-06); zlib and bzip2, which
 * the kernel does not do, timed around each call (their codecs dwarf the call). zstd levels 12
 * and 15 are interpolated log-linearly between the measured levels 9 and 19.
 *
 * Decompression, MB/s of output: RocksDB 7.8.3's own timer around each block's decompression
 * (rocksdb.decompression.times.nanos, median) reading the same data back under each setting with
 * a block cache smaller than the data (test/fixtures/compaction-cpu.mjs), 2026-12-06: what
 * RocksDB's read path spends per block, its buffer allocation included, which a codec alone does
 * not show (LZ4 in a batch through the kernel: 10,560 MB/s; RocksDB: 5,300).
 */
import { zstdLevel } from '../codec/setting.js'
import type { SettingSpec, Timing } from '../types/advice.js'

const ZSTD_COMPRESS: [level: number, mbps: number][] = [
  [1, 435],
  [3, 323],
  [6, 146],
  [9, 84],
  [19, 7],
]

const COMPRESS: Record<string, number> = { snappy: 1800, lz4: 1529, lz4hc: 189, zlib: 70, bzip2: 8 }
/** zstd's decompression barely depends on the level (RocksDB: 680-706 MB/s at 1, 3 and 6): level 3's. */
const DECOMPRESS: Record<string, number> = { snappy: 3650, lz4: 5300, lz4hc: 5300, zlib: 327, bzip2: 27, zstd: 695 }
/** zstd frame checksum at level 3, as the kernel times it: compression 323 -> 313 MB/s, decompression 938 -> 884 MB/s (the ratio applied). */
const CHECKSUM_COMPRESS = 313 / 323
const CHECKSUM_DECOMPRESS = 884 / 938

function zstdCompressMBps(level: number): number {
  const pts = ZSTD_COMPRESS
  if (level <= pts[0][0]) return pts[0][1]
  for (let i = 1; i < pts.length; i++) {
    const [l0, v0] = pts[i - 1]
    const [l1, v1] = pts[i]
    if (level <= l1) return v0 * (v1 / v0) ** ((level - l0) / (l1 - l0))
  }
  return pts[pts.length - 1][1] * 0.8 ** (level - pts[pts.length - 1][0])
}

function exact(value: number | null): Timing {
  return { value, low: value, high: value, noisy: false }
}

/**
 * What RocksDB's table builder spends on a dictionary beyond compressing with it and building it,
 * s per GB of input: it buffers the file's data blocks until the dictionary is built, then replays
 * them into the index and filter builders. bench/cpu-vs-rocksdb.mjs measured a dictionary
 * setting's compaction at 0.71 s of CPU over its per-block timer on 103 MB of db_bench input
 * (RocksDB 7.8.3, zstd 3 dict=raw; the same for finalize and train; 2026-12-06, bench/README.md).
 */
export const DICT_BUFFERING_SEC_PER_GB = 6.9

/**
 * The reference compression CPU (s/GB) and decompression speed (MB/s) of a setting; with a
 * dictionary, RocksDB's buffering of the file's blocks (DICT_BUFFERING_SEC_PER_GB) included, its
 * building not (nominalDictionaryMs: per file, from the samples).
 */
export function nominalTimings(s: SettingSpec): { compress: Timing; decompress: Timing } {
  if (s.type === 'none') return { compress: exact(null), decompress: exact(null) }
  let c = s.type === 'zstd' ? zstdCompressMBps(zstdLevel(s.level)) : (COMPRESS[s.type] ?? 100)
  let d = DECOMPRESS[s.type] ?? 500
  if (s.checksum) {
    c *= CHECKSUM_COMPRESS
    d *= CHECKSUM_DECOMPRESS
  }
  const buffering = s.dict === 'none' ? 0 : DICT_BUFFERING_SEC_PER_GB
  return { compress: exact(1e9 / (c * 1e6) + buffering), decompress: exact(d) }
}

/**
 * ZDICT's CPU over the samples a dictionary is built from, as sstkit's kernel method times it
 * (thread CPU, best of 4, the same db_bench data; at 53fe7be on 2026-12-06): training
 * (ZDICT_trainFromBuffer) grows sub-linearly with the samples, 52 ms for 0.2 MB to 310 ms for
 * 3.3 MB, fitted as TRAIN_MS_PER_MB × MB^TRAIN_EXPONENT within 10%; finalizing
 * (ZDICT_finalizeDictionary) compresses the samples at the setting's level plus
 * FINALIZE_MS_PER_MB of statistics (level 1: 9 ms, 3: 12 ms, 19: 262 ms for 1.6 MB). A raw
 * dictionary is its samples: nothing to build.
 */
const TRAIN_MS_PER_MB = 144
const TRAIN_EXPONENT = 0.645
const FINALIZE_MS_PER_MB = 4.5

/** The reference CPU (ms) of building a setting's dictionary from `sampleBytes` of samples. */
export function nominalDictionaryMs(s: SettingSpec, sampleBytes: number): number {
  if (s.type !== 'zstd' || sampleBytes <= 0) return 0
  const mb = sampleBytes / 1e6
  if (s.dict === 'train') return TRAIN_MS_PER_MB * mb ** TRAIN_EXPONENT
  if (s.dict === 'finalize') return mb * (1000 / zstdCompressMBps(zstdLevel(s.level)) + FINALIZE_MS_PER_MB)
  return 0
}

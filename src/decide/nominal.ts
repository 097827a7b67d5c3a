/**
 * Reference speeds, for ranking settings when this run's own timings are too
 * noisy to rank on (a loaded machine, a level too small to time). Measured by
 * the method advise and recompress time with (docs/cpu.md: the codec kernel's
 * thread CPU per batch of blocks, as RocksDB's table builder pays it), best of
 * 5 rounds, on the 2,223 data blocks (4 KiB, 8.9 MB) of a db_bench 7.8.3
 * database (filluniquerandom 40,000 keys, 200-byte values of ratio 0.5; the
 * data test/recompress/cpu-vs-rocksdb.slow.test.ts holds against RocksDB), at
 * 5c5c9e9 on 2026-12-06: MB/s of input. zlib and bzip2 are timed through
 * JavaScript (the kernel does not do them): their compression's overhead is
 * small beside the codec, their decompression's is not, so theirs keep the
 * earlier figures (16 KiB blocks of key-value text). zstd levels 12 and 15 are
 * interpolated log-linearly between the measured levels 9 and 19. Decisions use
 * only ratios between settings; the pricing (cost.ts) takes the figures as they
 * are where this run's own timing is noisy, and marks those costs as on
 * reference speeds.
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

const COMPRESS: Record<string, number> = { snappy: 1800, lz4: 1529, lz4hc: 277, zlib: 70, bzip2: 8 }
/** zstd's decompression barely depends on the level (969 MB/s at 1, 938 at 3, 882 at 9, 715 at 19): level 3's. */
const DECOMPRESS: Record<string, number> = { snappy: 6193, lz4: 10560, lz4hc: 8844, zlib: 478, bzip2: 48, zstd: 938 }
/** zstd frame checksum at level 3: compression 323 -> 313 MB/s, decompression 938 -> 884 MB/s. */
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

/** The reference compression CPU (s/GB) and decompression speed (MB/s) of a setting. */
export function nominalTimings(s: SettingSpec): { compress: Timing; decompress: Timing } {
  if (s.type === 'none') return { compress: exact(null), decompress: exact(null) }
  let c = s.type === 'zstd' ? zstdCompressMBps(zstdLevel(s.level)) : (COMPRESS[s.type] ?? 100)
  let d = DECOMPRESS[s.type] ?? 500
  if (s.checksum) {
    c *= CHECKSUM_COMPRESS
    d *= CHECKSUM_DECOMPRESS
  }
  return { compress: exact(1e9 / (c * 1e6)), decompress: exact(d) }
}

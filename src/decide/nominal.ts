/**
 * Reference speeds, for ranking settings when this run's own timings are too
 * noisy to rank on (a loaded machine, a level too small to time). Measured on
 * a machine of this project's kind (../shared/reference/dependencies.md: 16 KiB
 * blocks of key-value text, each compressed on its own; zstd-napi 1.5.7, the
 * system liblz4, snappy 7.4.3, Node's zlib, libbz2): MB/s of input. zstd levels
 * 6, 12 and 15 were not measured there and are interpolated log-linearly
 * between the measured levels 3, 9 and 19. Decisions use only ratios between
 * settings; the pricing (cost.ts) takes the figures as they are where this
 * run's own timing is noisy, and marks those costs as on reference speeds.
 */
import { zstdLevel } from '../codec/setting.js'
import type { SettingSpec, Timing } from '../types/advice.js'

const ZSTD_COMPRESS: [level: number, mbps: number][] = [
  [1, 245],
  [3, 205],
  [9, 29.1],
  [19, 3.2],
]

const COMPRESS: Record<string, number> = { snappy: 189, lz4: 546, lz4hc: 81, zlib: 56, bzip2: 7.3 }
const DECOMPRESS: Record<string, number> = { snappy: 900, lz4: 2855, lz4hc: 2855, zlib: 478, bzip2: 48, zstd: 720 }
/** zstd frame checksum: compression 193 -> 177 MB/s, decompression 703 -> 592 MB/s. */
const CHECKSUM_COMPRESS = 177 / 193
const CHECKSUM_DECOMPRESS = 592 / 703

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

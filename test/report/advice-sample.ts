/**
 * SYNTHETIC `Advice` for the renderer tests: made up here, not measured. The
 * numbers are shaped like real ones (zstd levels trade CPU for size, a
 * dictionary helps small blocks, lz4 decompresses fastest) so the tables and
 * charts look as they will, but no database stands behind them.
 *
 * Two column families (one with a long name), levels 0-3 plus a bottommost
 * level, 20 settings per level, one noisy timing (zstd 19 at L0 of `default`),
 * one level where auto-skip would pay.
 */
import type {
  Advice,
  ColumnFamilyAdvice,
  DictMode,
  Interval,
  LevelAdvice,
  SampleSums,
  SettingEstimate,
  SettingSpec,
  StopReason,
  Timing,
} from '../../src/types/advice.js'
import { prng } from '../../src/util/prng.js'

export const LONG_CF_NAME = 'user_events_by_tenant_and_timestamp_secondary_index'

interface Codec {
  type: string
  level: number | null
  dict: DictMode
  checksum?: boolean
  /** Compression ratio on 4 KiB blocks of this kind of data. */
  ratio: number
  /** Compression seconds per GB of input (null: nothing compressed). */
  cpu: number | null
  /** Decompression MB/s (null: nothing to decompress). */
  dec: number | null
}

/** The 20 settings of every level's matrix, in matrix order. */
const CODECS: Codec[] = [
  { type: 'none', level: null, dict: 'none', ratio: 1, cpu: null, dec: null },
  { type: 'snappy', level: null, dict: 'none', ratio: 2.02, cpu: 2.1, dec: 910 },
  { type: 'lz4', level: null, dict: 'none', ratio: 1.98, cpu: 1.7, dec: 2480 },
  { type: 'lz4', level: null, dict: 'raw', ratio: 2.31, cpu: 2.0, dec: 2210 },
  { type: 'lz4hc', level: 9, dict: 'none', ratio: 2.36, cpu: 13.8, dec: 2590 },
  { type: 'zlib', level: 6, dict: 'none', ratio: 3.12, cpu: 21.5, dec: 372 },
  { type: 'zstd', level: 1, dict: 'none', ratio: 3.05, cpu: 2.6, dec: 705 },
  { type: 'zstd', level: 3, dict: 'none', ratio: 3.18, cpu: 3.6, dec: 712 },
  { type: 'zstd', level: 3, dict: 'none', checksum: true, ratio: 3.17, cpu: 3.9, dec: 601 },
  { type: 'zstd', level: 6, dict: 'none', ratio: 3.31, cpu: 8.8, dec: 735 },
  { type: 'zstd', level: 9, dict: 'none', ratio: 3.36, cpu: 16.2, dec: 741 },
  { type: 'zstd', level: 12, dict: 'none', ratio: 3.4, cpu: 41.0, dec: 744 },
  { type: 'zstd', level: 19, dict: 'none', ratio: 3.49, cpu: 298, dec: 702 },
  { type: 'zstd', level: 1, dict: 'finalize', ratio: 3.41, cpu: 2.4, dec: 688 },
  { type: 'zstd', level: 3, dict: 'finalize', ratio: 3.58, cpu: 3.3, dec: 671 },
  { type: 'zstd', level: 6, dict: 'finalize', ratio: 3.72, cpu: 8.1, dec: 690 },
  { type: 'zstd', level: 9, dict: 'finalize', ratio: 3.77, cpu: 15.4, dec: 695 },
  { type: 'zstd', level: 3, dict: 'train', ratio: 3.6, cpu: 3.4, dec: 668 },
  { type: 'zstd', level: 6, dict: 'train', ratio: 3.74, cpu: 8.3, dec: 684 },
  { type: 'zstd', level: 3, dict: 'raw', ratio: 3.44, cpu: 3.5, dec: 676 },
]

function labelOf(c: { type: string; level: number | null; dict: DictMode; checksum?: boolean }): string {
  const parts = [c.type]
  if (c.level !== null) parts.push(String(c.level))
  if (c.dict !== 'none') parts.push(`dict=${c.dict}`)
  if (c.checksum) parts.push('+checksum')
  return parts.join(' ')
}

function specOf(c: Codec): SettingSpec {
  return { type: c.type, level: c.level, dict: c.dict, checksum: c.checksum ?? false, label: labelOf(c) }
}

function interval(estimate: number, relHalf: number): Interval {
  return { estimate, low: estimate * (1 - relHalf), high: estimate * (1 + relHalf) }
}

function timing(value: number | null, relHalf: number, noisy = false): Timing {
  if (value === null) return { value: null, low: null, high: null, noisy: false }
  return { value, low: value * (1 - relHalf), high: value * (1 + relHalf), noisy }
}

interface LevelShape {
  level: number
  bottommost: boolean
  files: number
  /** Uncompressed data bytes of the level. */
  uncompressed: number
  entries: number
  todayCompression: string
  /** The matrix index of today's setting. */
  todayIndex: number
  stopped: StopReason
  share: number
  /** How much better or worse than the table the data compresses here. */
  skew: number
  recommended: number
  recommendedReason: string
  runnerUp: number | null
  runnerUpReason: string
  incompressible?: number
}

function estimateOf(c: Codec, shape: LevelShape, todayBytes: number, rnd: () => number, noisyCpu: boolean): SettingEstimate {
  const jitter = 1 + (rnd() - 0.5) * 0.02
  const ratio = c.ratio === 1 ? 1 : c.ratio * shape.skew * jitter
  const dictBytes = c.dict === 'none' ? 0 : 16384 * shape.files
  const bytes = Math.round(shape.uncompressed / ratio) + dictBytes
  const rel = 0.002 + 0.01 * (1 - shape.share) * rnd()
  const b = interval(bytes, rel)
  const change = { estimate: b.estimate / todayBytes - 1, low: b.low / todayBytes - 1, high: b.high / todayBytes - 1 }
  const n = Math.max(1, Math.round((shape.uncompressed * shape.share) / 4096))
  const sumS = Math.round(todayBytes * shape.share)
  const sumC = Math.round(bytes * shape.share)
  const cpu = c.cpu === null ? null : c.cpu * (0.95 + rnd() * 0.1)
  const dec = c.dec === null ? null : c.dec * (0.95 + rnd() * 0.1)
  const compressMs = cpu === null ? 0 : ((cpu * shape.uncompressed * shape.share) / 1e9) * 1000
  const decompressMs = dec === null ? 0 : ((shape.uncompressed * shape.share) / 1e6 / dec) * 1000
  const rejected = c.ratio === 1 ? 0 : Math.round(n * (shape.incompressible ?? 0.01))
  const sums: SampleSums = {
    certainN: 0,
    certainC: 0,
    certainS: 0,
    n,
    sumC,
    sumS,
    sumCC: Math.round((sumC * sumC) / n),
    sumCS: Math.round((sumC * sumS) / n),
    sumSS: Math.round((sumS * sumS) / n),
    sumU: Math.round(shape.uncompressed * shape.share),
    rejected,
    compressMs,
    decompressMs,
    timedBytes: Math.round(shape.uncompressed * shape.share),
    decompressedBytes: dec === null ? 0 : Math.round(shape.uncompressed * shape.share) - rejected * 4096,
    compressRates: cpu === null ? [] : [cpu * 0.98, cpu, cpu * 1.02],
    decompressRates: dec === null ? [] : [dec * 0.99, dec, dec * 1.01],
    rejectedMs: (compressMs * rejected) / n,
  }
  return {
    setting: specOf(c),
    bytes: b,
    change,
    ratio,
    dictSecPerGB: 0,
    compressSecPerGB: timing(cpu, noisyCpu ? 0.6 : 0.03, noisyCpu),
    decompressMBps: timing(dec, 0.02),
    rejectedShare: rejected / n,
    dictBytes,
    dictMsPerFile: c.dict === 'train' ? 118 : c.dict === 'finalize' ? 13 : 0,
    dictReferenceMsPerFile: c.dict === 'train' ? 200 : c.dict === 'finalize' ? 12 : 0,
    pareto: false,
    dictFilesBuilt: 0,
    dictBytesBuilt: 0,
    sums,
  }
}

/** On the size-against-CPU front: no other setting is at most as large and at most as slow, and better in one. */
function markPareto(matrix: SettingEstimate[]): void {
  const cpu = (e: SettingEstimate) => e.compressSecPerGB.value ?? 0
  for (const e of matrix) {
    e.pareto = !matrix.some(
      (o) => o !== e && o.bytes.estimate <= e.bytes.estimate && cpu(o) <= cpu(e) && (o.bytes.estimate < e.bytes.estimate || cpu(o) < cpu(e)),
    )
  }
}

function levelOf(cf: string, shape: LevelShape, rnd: () => number): LevelAdvice {
  const today = CODECS[shape.todayIndex]
  const todayRatio = today.ratio * shape.skew
  const dataBytes = Math.round(shape.uncompressed / todayRatio)
  const noisyLevel = cf === 'default' && shape.level === 0
  const matrix = CODECS.map((c) => estimateOf(c, shape, dataBytes, rnd, noisyLevel && c.type === 'zstd' && c.level === 19))
  markPareto(matrix)
  const dataBlocks = Math.round(shape.uncompressed / 4096)
  return {
    columnFamily: cf,
    level: shape.level,
    bottommost: shape.bottommost,
    files: shape.files,
    todayDictBytes: 0,
    fileBytes: Math.round(dataBytes * 1.031),
    dataBytes,
    dataBlocks,
    entries: shape.entries,
    todayCompression: shape.todayCompression,
    todayOptions: specOf(today),
    todayRatio,
    today: matrix[shape.todayIndex],
    cpuBasis: 'measured',
    sample: {
      blocks: Math.round(dataBlocks * shape.share),
      uncompressedBytes: Math.round(shape.uncompressed * shape.share),
      share: shape.share,
      stopped: shape.stopped,
      filesRead: shape.files,
    },
    recommended: { estimate: matrix[shape.recommended], reason: shape.recommendedReason },
    runnerUp: shape.runnerUp === null ? null : { estimate: matrix[shape.runnerUp], reason: shape.runnerUpReason },
    matrix,
    autoSkip:
      shape.incompressible === undefined
        ? null
        : {
            incompressibleShare: shape.incompressible,
            cpuSavedShare: shape.incompressible * 0.9,
            note: `${(shape.incompressible * 100).toFixed(0)}% of the blocks do not compress; ratio-aware auto-skip would save about ${(shape.incompressible * 90).toFixed(0)}% of the compression CPU`,
          },
  }
}

const MIB = 1024 * 1024
const GIB = 1024 * MIB

const DEFAULT_SHAPES: LevelShape[] = [
  {
    level: 0,
    bottommost: false,
    files: 4,
    uncompressed: 412 * MIB,
    entries: 3_811_204,
    todayCompression: 'LZ4',
    todayIndex: 2,
    stopped: 'all-blocks',
    share: 1,
    skew: 0.97,
    recommended: 2,
    recommendedReason: 'fastest to write; L0 is rewritten within minutes',
    runnerUp: 13,
    runnerUpReason: '42% smaller, 1.4x the CPU',
  },
  {
    level: 1,
    bottommost: false,
    files: 9,
    uncompressed: 1.1 * GIB,
    entries: 10_402_117,
    todayCompression: 'LZ4',
    todayIndex: 2,
    stopped: 'precision',
    share: 0.21,
    skew: 1,
    recommended: 14,
    recommendedReason: "smallest within 2x today's compression CPU",
    runnerUp: 13,
    runnerUpReason: '5% larger, 27% less CPU',
  },
  {
    level: 2,
    bottommost: false,
    files: 71,
    uncompressed: 9.4 * GIB,
    entries: 88_930_551,
    todayCompression: 'LZ4+Snappy',
    todayIndex: 2,
    stopped: 'precision',
    share: 0.034,
    skew: 1.02,
    recommended: 14,
    recommendedReason: "smallest within 2x today's compression CPU",
    runnerUp: 17,
    runnerUpReason: 'same size within the interval, slower dictionary building',
  },
  {
    level: 3,
    bottommost: false,
    files: 590,
    uncompressed: 81.7 * GIB,
    entries: 771_203_918,
    todayCompression: 'ZSTD',
    todayIndex: 7,
    stopped: 'time-budget',
    share: 0.0041,
    skew: 1.03,
    recommended: 14,
    recommendedReason: "one compression_opts for L1-L3: the smallest within 2x today's CPU at every one of them",
    runnerUp: 15,
    runnerUpReason: '4% smaller, 2.5x the CPU',
  },
  {
    level: 4,
    bottommost: true,
    files: 4120,
    uncompressed: 690 * GIB,
    entries: 6_512_004_377,
    todayCompression: 'ZSTD',
    todayIndex: 7,
    stopped: 'time-budget',
    share: 0.00052,
    skew: 1.05,
    recommended: 16,
    recommendedReason: "bottommost: written once, read often; smallest within 5x today's CPU",
    runnerUp: 15,
    runnerUpReason: '1.3% larger, half the CPU',
  },
]

const INDEX_SHAPES: LevelShape[] = [
  {
    level: 0,
    bottommost: false,
    files: 2,
    uncompressed: 96 * MIB,
    entries: 2_204_511,
    todayCompression: 'NoCompression',
    todayIndex: 0,
    stopped: 'all-blocks',
    share: 1,
    skew: 0.8,
    recommended: 2,
    recommendedReason: 'fastest to write that still halves the size',
    runnerUp: 1,
    runnerUpReason: '1% larger, slower to read',
  },
  {
    level: 1,
    bottommost: false,
    files: 5,
    uncompressed: 384 * MIB,
    entries: 8_830_102,
    todayCompression: 'Snappy',
    todayIndex: 1,
    stopped: 'precision',
    share: 0.37,
    skew: 0.82,
    recommended: 2,
    recommendedReason: 'as small as today, 2.7x faster to decompress',
    runnerUp: null,
    runnerUpReason: '',
  },
  {
    level: 2,
    bottommost: false,
    files: 40,
    uncompressed: 3.7 * GIB,
    entries: 90_112_777,
    todayCompression: 'Snappy',
    todayIndex: 1,
    stopped: 'precision',
    share: 0.052,
    skew: 0.85,
    recommended: 14,
    recommendedReason: "smallest within 2x today's compression CPU",
    runnerUp: 7,
    runnerUpReason: '11% larger, no dictionary',
  },
  {
    level: 3,
    bottommost: false,
    files: 311,
    uncompressed: 29.5 * GIB,
    entries: 718_340_118,
    todayCompression: 'Snappy',
    todayIndex: 1,
    stopped: 'precision',
    share: 0.0077,
    skew: 0.87,
    recommended: 14,
    recommendedReason: "smallest within 2x today's compression CPU",
    runnerUp: 7,
    runnerUpReason: '11% larger, no dictionary',
  },
  {
    level: 6,
    bottommost: true,
    files: 1987,
    uncompressed: 201 * GIB,
    entries: 4_901_330_009,
    todayCompression: 'ZSTD',
    todayIndex: 9,
    stopped: 'fixed-sample',
    share: 0.0011,
    skew: 0.88,
    recommended: 15,
    recommendedReason: "bottommost: smallest within 5x today's CPU",
    runnerUp: 16,
    runnerUpReason: '0.9% smaller, 1.9x the CPU',
    incompressible: 0.34,
  },
]

const DEFAULT_OPTIONS_TEXT = [
  '[CFOptions "default"]',
  '  compression_per_level=kLZ4Compression:kZSTD:kZSTD:kZSTD:kZSTD',
  '  compression_opts={level=3;max_dict_bytes=16384;zstd_max_train_bytes=0;use_zstd_dict_trainer=false;}',
  '  bottommost_compression=kZSTD',
  '  bottommost_compression_opts={level=9;max_dict_bytes=16384;use_zstd_dict_trainer=false;enabled=true;}',
].join('\n')

const INDEX_OPTIONS_TEXT = [
  `[CFOptions "${LONG_CF_NAME}"]`,
  '  compression_per_level=kLZ4Compression:kLZ4Compression:kZSTD:kZSTD:kZSTD:kZSTD:kZSTD',
  '  compression_opts={level=3;max_dict_bytes=16384;use_zstd_dict_trainer=false;}',
  '  bottommost_compression=kZSTD',
  '  bottommost_compression_opts={level=6;max_dict_bytes=16384;use_zstd_dict_trainer=false;enabled=true;}',
].join('\n')

function optionsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n').slice(1)) {
    const eq = line.indexOf('=')
    out[line.slice(0, eq).trim()] = line.slice(eq + 1)
  }
  return out
}

function columnFamily(name: string, shapes: LevelShape[], optionsText: string, seed: number): ColumnFamilyAdvice {
  const rnd = prng(seed)
  return { name, dynamicLevels: false, baseLevel: null, levels: shapes.map((s) => levelOf(name, s, rnd)), options: optionsOf(optionsText), optionsText }
}

function totalOf(cfs: ColumnFamilyAdvice[]): Advice['total'] {
  const levels = cfs.flatMap((c) => c.levels)
  const todayBytes = levels.reduce((a, l) => a + l.dataBytes, 0)
  const sum = (k: 'estimate' | 'low' | 'high') => levels.reduce((a, l) => a + l.recommended.estimate.bytes[k], 0)
  const projected = { estimate: sum('estimate'), low: sum('low'), high: sum('high') }
  return {
    todayBytes,
    projected,
    maxBytes: null,
    change: {
      estimate: projected.estimate / todayBytes - 1,
      low: projected.low / todayBytes - 1,
      high: projected.high / todayBytes - 1,
    },
  }
}

/** A realistic advice for a two-column-family database. */
export function sampleAdvice(): Advice {
  const columnFamilies = [columnFamily('default', DEFAULT_SHAPES, DEFAULT_OPTIONS_TEXT, 7), columnFamily(LONG_CF_NAME, INDEX_SHAPES, INDEX_OPTIONS_TEXT, 11)]
  return {
    version: 1,
    source: {
      kind: 'database',
      paths: ['/var/lib/orders-service/rocksdb'],
      manifest: 'MANIFEST-004211',
      optionsFile: 'OPTIONS-004213',
      unlistedFiles: ['009914.sst', '009915.sst'],
    },
    objective: {
      name: 'balanced',
      description: "smallest size whose compression CPU stays within a per-level multiple of today's",
      limits: { cpuFactor: 2 },
    },
    seed: 1,
    problems: [],
    evaluation: { maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 67108864, maxCompressedBytesPerKb: 896, sampleRate: null },
    precision: 0.005,
    timeBudgetSec: 60,
    elapsedSec: 58.4,
    shard: null,
    columnFamilies,
    total: totalOf(columnFamilies),
    notes: [
      {
        code: 'files-sampled',
        read: 12,
        files: 40,
        levels: [
          { columnFamily: 'default', level: 5, read: 6, files: 20 },
          { columnFamily: 'default', level: 6, read: 6, files: 20 },
        ],
      },
      { code: 'time-budget-ended', timeBudgetMs: 60_000, precision: 0.005 },
    ],
  }
}

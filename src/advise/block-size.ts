/**
 * Block size per column family: `block_size` is a table option, shared by every level of a column
 * family, so it is advised once per column family. Each candidate (4, 8, 16, 32, 64 KiB and
 * today's) is projected by re-cutting the entries of the column family's table files into blocks
 * of that size, as RocksDB's builder cuts them (recompress's layouts: the same writer, the same
 * restart interval and format_version as the OPTIONS file), each file compressed under the
 * compression its level has today (codec, level, dictionary), so only the block size moves.
 *
 * What is projected (`bytes`): the data blocks with their trailers plus the dictionary blocks, as
 * advise projects a level. A level whose files were all evaluated is exact; otherwise its files
 * are a sample (drawn at random, without replacement) and the level's bytes a ratio estimate over
 * them against the files' data and dictionary blocks of today (known for every file from its
 * properties and metaindex), with its 95% interval; the column family's interval adds the levels'
 * variances. Today's stored bytes, not the raw key and value bytes: RocksDB cuts a level's files at
 * a target size of compressed output, so their raw bytes vary with how well each compresses while a
 * new block size moves every file's stored bytes by much the same share (docs/advise-reference.md).
 *
 * The read side, on the bottommost level (which serves most reads): a point lookup that misses
 * the block cache reads one data block (bytesReadPerLookup, compressed, with its trailer) and
 * decompresses it (bytesDecompressedPerLookup), and the block cache holds that uncompressed block
 * (the cache's footprint per block); the index grows with the number of blocks. Where the info
 * LOG's statistics dumps measured data block misses, the decompression is priced in cores at that
 * rate (the same misses, each decompressing a block of the candidate's size: RocksDB's counters
 * do not say how the hit rate would move).
 */
import { statSync } from 'node:fs'
import { CompressionType, compressionShortName, compressionTypeFromOptionName, compressionTypeFromShortName } from '../format/compression-type.js'
import { Property } from '../format/properties.js'
import { COMPRESSION_DICT_BLOCK } from '../format/metaindex.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { type ColumnFamilyView, levelContext } from '../db/database.js'
import { type ColumnFamilyOptions, compressionForLevel, type DbOptions, targetFileSize } from '../db/options.js'
import { bufferLimited } from '../decide/settings.js'
import { DEFAULT_COMPRESSION_LEVEL, levelRange, supportedDictModes, type DictMode } from '../codec/setting.js'
import { recompressLayouts } from '../recompress/layouts.js'
import { collectHeapGarbage } from '../util/garbage.js'
import { trimMallocArenas } from '../util/malloc.js'
import { blockSizeLabel, type TableLayout } from '../recompress/config.js'
import type { RecompressResult } from '../recompress/engine.js'
import { openTable } from '../table/reader.js'
import { prng } from '../util/prng.js'
import { t95 } from '../util/quantiles.js'
import type { AdviceNote, BlockSizeAdvice, BlockSizeCandidate, BlockSizeNote, BytesInterval, SettingSpec } from '../types/advice.js'

/** Buffer growth after which a file's re-cut collects its garbage in full (engine.ts collectAfterBytes). */
const COLLECT_AFTER_BYTES = 16 << 20

/** The block sizes advise evaluates besides today's. */
export const BLOCK_SIZE_CANDIDATES: readonly number[] = [4096, 8192, 16384, 32768, 65536]

/** balanced: the smallest block size whose bytes are within this share of the smallest candidate's (larger blocks cost every read more). */
export const BALANCED_WITHIN = 0.02

export type { BlockSizeAdvice, BlockSizeCandidate, BlockSizeReadCost, BytesInterval } from '../types/advice.js'

export type BlockSizeObjective = 'size' | 'balanced' | 'speed' | 'cost'

export interface BlockSizeOptions {
  objective: BlockSizeObjective
  /** rocksdb.block.cache.data.miss per second from the LOG's statistics dumps; null when not measured. */
  dataBlockMissesPerSec: number | null
  /** $ per core-hour and per GB-month (storage against read CPU under cost and balanced). */
  prices: { cpuPerCoreHour: number; storagePerGBMonth: number }
  seed: number
  /** The block sizes evaluated besides today's (default BLOCK_SIZE_CANDIDATES). */
  candidates?: readonly number[]
  /**
   * Wall time the column family's evaluation may take, ms: files are evaluated until it is spent. Each level needs
   * two (or all) for its interval: when the time ends before, the column family is not advised (a reason says so).
   */
  budgetMs: number
  /** A small database: its two files a level are re-cut whatever the clock (a few megabytes bound their cost). */
  floorAnyTime?: boolean
  /** A fixed share of each level's files (advise --sample) instead of the time: at least two, whatever the clock. */
  fileShare?: number | null
  jobs?: number
}

/**
 * A level's files re-cut, as the estimate needs them: per file its stored bytes today (todayBytes)
 * and, per candidate k, numbers of its result, one array each (a file's RecompressResult objects
 * were ~3.5 KB of heap a file, 10-20 MB where thousands of files are re-cut).
 */
export class LevelRuns {
  readonly today: number[] = []
  /** [k][file]: data and dictionary bytes (storedOf). */
  readonly stored: number[][]
  readonly indexBytes: number[][]
  readonly blocks: number[][]
  /** [k][file]: the read side's (the bottommost level's). */
  readonly dataBytes: number[][]
  readonly uncompressedBytes: number[][]
  readonly decompressMs: number[][]
  /** [k]: a block of some file compressed. */
  readonly compressed: boolean[]

  constructor(candidates: number) {
    const columns = () => Array.from({ length: candidates }, (): number[] => [])
    this.stored = columns()
    this.indexBytes = columns()
    this.blocks = columns()
    this.dataBytes = columns()
    this.uncompressedBytes = columns()
    this.decompressMs = columns()
    this.compressed = Array.from({ length: candidates }, () => false)
  }

  get length(): number {
    return this.today.length
  }

  add(today: number, results: readonly RecompressResult[]): void {
    this.today.push(today)
    for (const [k, r] of results.entries()) {
      this.stored[k].push(storedOf(r))
      this.indexBytes[k].push(r.indexBytes)
      this.blocks[k].push(r.blocks)
      this.dataBytes[k].push(r.dataBytes)
      this.uncompressedBytes[k].push(r.uncompressedBytes)
      this.decompressMs[k].push(r.decompressMs)
      this.compressed[k] ||= r.blocksCompressed > 0
    }
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)

/** The compression a level's files are re-cut under (codec, level, dictionary and its options, acceptance rule). */
export interface LevelCompression {
  type: number
  level: number | null
  dict: DictMode
  checksum: boolean
  maxDictBytes: number
  trainBytes: number
  maxDictBufferBytes: number
  perKb: number
}

interface LevelFiles {
  level: number
  bottommost: boolean
  setting: LevelCompression
  label: string
  /** The level's files and their stored bytes today, side by side (an object a file: ~1 MB on 20,000 files). */
  paths: readonly string[]
  today: number[]
  /** sum(today) */
  totalToday: number
}

/**
 * A file's data blocks (rocksdb.data.size, trailers included) and dictionary block with its trailer
 * today: what a projection counts, as the file stores it now (its size on disk without the property).
 */
function todayBytes(path: string): number {
  const t = openTable(path)
  try {
    const data = t.properties.known.get(Property.DataSize)
    if (data === undefined) return t.fileSize
    const dict = t.metaBlock(COMPRESSION_DICT_BLOCK)
    return Number(data) + (dict ? dict.size + BLOCK_TRAILER_BYTES : 0)
  } finally {
    t.close()
  }
}

/** The setting RocksDB gives `level`'s new files today, as recompress's matrix takes it. */
function levelSetting(
  options: ColumnFamilyOptions,
  cf: Parameters<typeof levelContext>[0],
  level: number,
): { setting: LevelFiles['setting']; label: string } | null {
  const { compression, opts } = compressionForLevel(options, level, levelContext(cf, level, options))
  let type = compressionTypeFromOptionName(compression)
  // The pre-1.0 zstd id writes the same frames.
  if (type === CompressionType.ZSTDNotFinal) type = CompressionType.ZSTD
  if (type === undefined || compressionTypeFromShortName(compressionShortName(type)) === undefined) return null
  // LZ4 reads only negative levels (its acceleration): a positive one means the default, as advise reads options.
  const explicit = opts.level !== DEFAULT_COMPRESSION_LEVEL && !(type === CompressionType.LZ4 && opts.level >= 0)
  const range = levelRange(type)
  const level_ = range !== null && explicit && opts.level >= range[0] && opts.level <= range[1] ? opts.level : null
  const wanted: DictMode =
    opts.maxDictBytes <= 0 ? 'none' : type !== CompressionType.ZSTD || opts.zstdMaxTrainBytes <= 0 ? 'raw' : opts.useZstdDictTrainer ? 'train' : 'finalize'
  const dict = supportedDictModes(type).includes(wanted) ? wanted : 'none'
  const name = compressionShortName(type)
  return {
    setting: {
      type,
      level: level_,
      dict,
      checksum: type === CompressionType.ZSTD && opts.checksum,
      maxDictBytes: opts.maxDictBytes,
      trainBytes: opts.zstdMaxTrainBytes,
      maxDictBufferBytes: opts.maxDictBufferBytes,
      perKb: opts.maxCompressedBytesPerKb,
    },
    label: `${name}${level_ === null ? '' : ` ${level_}`}${dict === 'none' ? '' : ` dict=${dict}`}`,
  }
}

/** Every candidate of one file, in one recompress run (one pass per candidate). */
async function evaluateFile(path: string, l: LevelFiles, layouts: TableLayout[], jobs: number): Promise<RecompressResult[]> {
  const s = l.setting
  const report = await recompressLayouts(
    path,
    {
      matrix: { types: [s.type], levels: [s.level], dicts: [s.dict], checksums: [s.checksum] },
      source: { blockSize: null, samplePercent: 100 },
      dict: { maxDictBytes: s.maxDictBytes, trainBytes: s.trainBytes, maxDictBufferBytes: s.maxDictBufferBytes },
      maxCompressedBytesPerKb: s.perKb,
      // Decompression is timed for the read side, which is the bottommost level's: elsewhere no block is decompressed.
      roundTrip: l.bottommost ? 'sample' : 'none',
      // One setting on this thread, after the levels' lanes: a full collection every 4 MiB of dead buffers (a
      // recompress lane's bound on its peak) took a quarter of this evaluation's CPU on test/fixtures/db-medium.
      collectAfterBytes: COLLECT_AFTER_BYTES,
      jobs,
      // The levels' lanes may still be busy: no helper thread beside them.
      splitCompression: false,
    },
    layouts,
  )
  return report.results
}

const storedOf = (r: RecompressResult) => r.dataBytes + r.dictBytes

/**
 * A level's projection of one candidate from its files evaluated (`c`: their bytes under it, `xs`:
 * today's): exact when every file was evaluated; else the ratio estimate over the sampled files
 * (bytes against today's stored bytes), with its 95% interval and the finite-population correction
 * (files drawn without replacement).
 */
export function levelProjection(
  c: readonly number[],
  xs: readonly number[],
  totalToday: number,
  totalFiles: number,
): { estimate: number; variance: number; df: number; scale: number } {
  if (c.length === totalFiles) return { estimate: sum(c), variance: 0, df: 0, scale: 1 }
  const sumX = sum(xs)
  const ratio = sum(c) / sumX
  const n = c.length
  const meanX = sumX / n
  const s2 = n > 1 ? c.reduce((a, ci, i) => a + (ci - ratio * xs[i]) ** 2, 0) / (n - 1) : 0
  const fpc = 1 - n / totalFiles
  const varRatio = n > 1 ? (fpc * s2) / (n * meanX * meanX) : 0
  return { estimate: ratio * totalToday, variance: varRatio * totalToday * totalToday, df: n - 1, scale: totalToday / sumX }
}

/**
 * The block size advice of one column family: every candidate projected over its levels, the
 * read side stated, and the recommendation under the objective.
 */
/** A column family whose block size could not be projected (within its time, or a file could not be read), and why. */
export interface BlockSizeNotAdvised {
  columnFamily: string
  notAdvised: AdviceNote & { code: 'block-size-out-of-time' | 'block-size-unreadable' }
  /** The file that could not be read (a problem of the run, as the levels' own). */
  problem?: { file: string; offset: number | null; message: string }
}

function unreadable(columnFamily: string, file: string, e: unknown): BlockSizeNotAdvised {
  const message = e instanceof Error ? e.message : String(e)
  return {
    columnFamily,
    notAdvised: { code: 'block-size-unreadable', columnFamily, file, message },
    problem: { file, offset: (e as { offset?: number }).offset ?? null, message: `${message}; block_size of its column family not advised` },
  }
}

/** A column family's live table files by level, as advise's inputs group them (held paths; missing files left out). */
export interface BlockSizeColumnFamily {
  name: string
  levels: { level: number; files: readonly { path: string; size: number }[] }[]
}

/** A column family of a database as adviseBlockSize takes it. */
export function blockSizeColumnFamily(cf: ColumnFamilyView): BlockSizeColumnFamily {
  return {
    name: cf.name,
    levels: cf.levels.map((files, level) => ({ level, files: files.filter((f) => f.exists).map((f) => ({ path: f.path, size: f.fileSize })) })),
  }
}

/**
 * `compressionOf`: the compression each level is re-cut under (advise: the one it recommends, which
 * --write-options writes with the block size); default, or where it gives null, today's as the
 * OPTIONS file gives it.
 */
export async function adviseBlockSize(
  cf: BlockSizeColumnFamily,
  options: ColumnFamilyOptions,
  o: BlockSizeOptions,
  compressionOf?: (level: number) => { setting: LevelCompression; label: string } | null,
): Promise<BlockSizeAdvice | BlockSizeNotAdvised | null> {
  const today = options.blockSize
  const sizes = [...new Set([...(o.candidates ?? BLOCK_SIZE_CANDIDATES), today])].sort((a, b) => a - b)
  const layouts: TableLayout[] = sizes.map((blockSize) => ({
    blockSize,
    restartInterval: options.blockRestartInterval,
    separateKeyValue: options.separateKeyValue,
    indexCompression: options.indexCompression,
    formatVersion: options.formatVersion,
  }))
  const notes: BlockSizeNote[] = []
  const levels: LevelFiles[] = []
  // RocksDB's level context (bottommost, base level) from the level sizes, indexed by level.
  const depth = Math.max(-1, ...cf.levels.filter((l) => l.files.length > 0).map((l) => l.level))
  // levelContext reads only each level's bytes: one entry a level holds them (not an object a file).
  const shape = {
    levels: Array.from({ length: depth + 1 }, (_, i) => {
      const files = cf.levels.find((l) => l.level === i)?.files ?? []
      return files.length > 0 ? [{ fileSize: files.reduce((s, f) => s + f.size, 0) }] : []
    }),
  }
  for (const { level, files } of cf.levels) {
    if (files.length === 0) continue
    const found = compressionOf?.(level) ?? levelSetting(options, shape, level)
    // RocksDB samples a file's dictionary from the blocks it buffers, up to the level's target file size too.
    const target = targetFileSize(options, level, levelContext(shape, level, options).baseLevel ?? 1)
    const s = found && { ...found, setting: { ...found.setting, maxDictBufferBytes: bufferLimited(found.setting, target).maxDictBufferBytes } }
    if (!s) {
      notes.push({
        code: 'block-size-level-left-out',
        level,
        compression: compressionForLevel(options, level, levelContext(shape, level, options)).compression,
      })
      continue
    }
    const today: number[] = []
    for (const f of files) {
      // Each file's table opened and left: on 20,000 files, ~100 MB of it between V8's own collections,
      // its small buffers in malloc's heap (given back once collected).
      if (collectHeapGarbage()) trimMallocArenas()
      try {
        today.push(todayBytes(f.path))
      } catch (e) {
        return unreadable(cf.name, f.path, e)
      }
    }
    levels.push({ level, bottommost: level === depth, ...s, paths: files.map((f) => f.path), today, totalToday: sum(today) })
  }
  const allFiles = levels.reduce((n, l) => n + l.paths.length, 0)
  if (allFiles === 0) return null

  // Every file when the budget allows; else two per level first (an interval needs two), then more in random order.
  const random = prng(o.seed ^ 0xb10c)
  const order = levels.map((l) => {
    const idx = l.paths.map((_, i) => i)
    for (let i = idx.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[idx[i], idx[j]] = [idx[j], idx[i]]
    }
    return idx
  })
  const runs = levels.map(() => new LevelRuns(sizes.length))
  const started = performance.now()
  const jobs = o.jobs ?? 1
  let short = false
  for (let round = 0; ; round++) {
    let any = false
    for (const [li, l] of levels.entries()) {
      if (round >= l.paths.length) continue
      if (o.fileShare != null) {
        if (round >= Math.max(2, Math.ceil(o.fileShare * l.paths.length))) continue
      } else if (performance.now() - started >= o.budgetMs && !(round < 2 && o.floorAnyTime)) {
        short ||= round < 2
        continue
      }
      const i = order[li][round]
      if (collectHeapGarbage()) trimMallocArenas()
      try {
        runs[li].add(l.today[i], await evaluateFile(l.paths[i], l, layouts, jobs))
      } catch (e) {
        return unreadable(cf.name, l.paths[i], e)
      }
      any = true
    }
    if (!any) break
  }
  const evaluated = runs.reduce((n, r) => n + r.length, 0)
  // A level with one file re-cut of several would have an interval of nothing: no projection rather than a false one.
  if (short)
    return {
      columnFamily: cf.name,
      notAdvised: { code: 'block-size-out-of-time', columnFamily: cf.name, budgetMs: o.budgetMs, recut: evaluated, files: allFiles },
    }
  if (evaluated < allFiles) notes.push({ code: 'block-size-files-sampled', recut: evaluated, files: allFiles, fileShare: o.fileShare ?? null })
  if (levels.some((l) => l.setting.dict !== 'none')) notes.push({ code: 'block-size-dictionaries' })

  const bottom = levels.findIndex((l) => l.bottommost)
  const interval = (p: { estimate: number; variance: number; df: number }): BytesInterval => {
    const h = p.variance > 0 ? t95(p.df) * Math.sqrt(p.variance) : 0
    return { estimate: Math.round(p.estimate), low: Math.max(0, Math.floor(p.estimate - h)), high: Math.ceil(p.estimate + h) }
  }
  const perLevel = levels.map((l, li) => ({
    level: l.level,
    setting: l.label,
    files: l.paths.length,
    evaluated: runs[li].length,
    bytes: sizes.map((_, k) => interval(levelProjection(runs[li].stored[k], runs[li].today, l.totalToday, l.paths.length))),
  }))
  const candidates: BlockSizeCandidate[] = sizes.map((blockSize, k) => {
    let estimate = 0
    let half = 0
    let index = 0
    let blocks = 0
    for (const [li, l] of levels.entries()) {
      const r = runs[li]
      const p = levelProjection(r.stored[k], r.today, l.totalToday, l.paths.length)
      estimate += p.estimate
      // Each level's own t quantile, summed in quadrature as the variances add.
      if (p.variance > 0) half += (t95(p.df) * Math.sqrt(p.variance)) ** 2
      index += sum(r.indexBytes[k]) * p.scale
      blocks += sum(r.blocks[k]) * p.scale
    }
    const h = Math.sqrt(half)
    const b = bottom >= 0 ? runs[bottom] : null
    const nBlocks = b ? sum(b.blocks[k]) : 0
    const uncompressed = b ? sum(b.uncompressedBytes[k]) : 0
    const decMs = b ? sum(b.decompressMs[k]) : 0
    const compressed = b ? b.compressed[k] : false
    const decompressMBps = compressed && decMs > 0 ? uncompressed / 1e6 / (decMs / 1000) : null
    const perBlock = nBlocks > 0 ? uncompressed / nBlocks : 0
    const readCores =
      o.dataBlockMissesPerSec === null ? null : !compressed ? 0 : decompressMBps ? (o.dataBlockMissesPerSec * perBlock) / (decompressMBps * 1e6) : null
    return {
      blockSize,
      bytes: { estimate: Math.round(estimate), low: Math.max(0, Math.floor(estimate - h)), high: Math.ceil(estimate + h) },
      change: 0,
      indexBytes: Math.round(index),
      dataBlocks: Math.round(blocks),
      read: {
        bytesReadPerLookup: b && nBlocks > 0 ? Math.round(sum(b.dataBytes[k]) / nBlocks) : 0,
        bytesDecompressedPerLookup: Math.round(perBlock),
        decompressMBps,
        readCores,
      },
    }
  })
  const todayCandidate = candidates.find((c) => c.blockSize === today)!
  for (const c of candidates) c.change = todayCandidate.bytes.estimate > 0 ? c.bytes.estimate / todayCandidate.bytes.estimate - 1 : 0
  const { recommended, reason } = decideBlockSize(candidates, today, o)
  return {
    columnFamily: cf.name,
    today,
    compression: compressionOf ? 'advised' : 'today',
    candidates,
    recommended,
    reason,
    files: { evaluated, of: allFiles },
    levels: perLevel,
    notes,
  }
}

const HOURS_PER_MONTH = 730

/** $ a month of a candidate: its bytes stored, and its read decompression where reads were measured. */
function monthlyDollars(c: BlockSizeCandidate, prices: BlockSizeOptions['prices']): number {
  return (c.bytes.estimate / 1e9) * prices.storagePerGBMonth + (c.read.readCores ?? 0) * HOURS_PER_MONTH * prices.cpuPerCoreHour
}

/**
 * The recommendation under the objective; only a candidate whose bytes' 95% interval lies wholly
 * below today's (a saving that is not noise) and that pays:
 * - size: the smallest bytes;
 * - balanced: the smallest block size within BALANCED_WITHIN of the smallest bytes (larger blocks
 *   cost every read more), and, where reads were measured, whose read CPU costs less than its
 *   storage saves at the prices;
 * - cost: the least storage plus measured read CPU, at the prices;
 * - speed: none larger than today (every point lookup would decompress more).
 */
export function decideBlockSize(
  candidates: BlockSizeCandidate[],
  today: number,
  o: Pick<BlockSizeOptions, 'objective' | 'prices' | 'dataBlockMissesPerSec'>,
): {
  recommended: number | null
  reason: string
} {
  const now = candidates.find((c) => c.blockSize === today)!
  const significant = (c: BlockSizeCandidate) => c.blockSize !== today && c.bytes.high < now.bytes.low
  const smallest = candidates.reduce((a, c) => (c.bytes.estimate < a.bytes.estimate ? c : a))
  const pct = (c: BlockSizeCandidate) => `${(c.change * 100).toFixed(1)}%`
  const keep = (why: string) => ({ recommended: null, reason: `keep ${blockSizeLabel(today)}: ${why}` })
  const pick = (c: BlockSizeCandidate, why: string) => ({
    recommended: c.blockSize,
    reason: `${blockSizeLabel(c.blockSize)}: ${pct(c)} bytes against ${blockSizeLabel(today)}, ${why}`,
  })
  switch (o.objective) {
    case 'speed':
      return keep('speed: a larger block makes every point lookup read and decompress more, a smaller one stores more')
    case 'size':
      return significant(smallest) ? pick(smallest, 'the smallest') : keep('no block size is significantly smaller')
    case 'cost': {
      const cheapest = candidates.reduce((a, c) => (monthlyDollars(c, o.prices) < monthlyDollars(a, o.prices) ? c : a))
      const reads = o.dataBlockMissesPerSec === null ? ' (reads not measured: storage only)' : ' with the measured reads’ decompression'
      return significant(cheapest) ? pick(cheapest, `the least storage${reads} at the prices`) : keep(`nothing costs significantly less${reads}`)
    }
    default: {
      const within = candidates.filter((c) => c.bytes.estimate <= smallest.bytes.estimate * (1 + BALANCED_WITHIN)).sort((a, b) => a.blockSize - b.blockSize)[0]
      if (!significant(within)) return keep(`no block size within ${BALANCED_WITHIN * 100}% of the smallest bytes saves significantly`)
      if (within.read.readCores !== null && now.read.readCores !== null) {
        const saved = ((now.bytes.estimate - within.bytes.estimate) / 1e9) * o.prices.storagePerGBMonth
        const readCost = (within.read.readCores - now.read.readCores) * HOURS_PER_MONTH * o.prices.cpuPerCoreHour
        if (readCost > saved)
          return keep(`${blockSizeLabel(within.blockSize)} would save ${pct(within)} bytes but its measured reads' decompression costs more than that storage`)
      }
      return pick(
        within,
        `the smallest block size within ${BALANCED_WITHIN * 100}% of the smallest bytes (${blockSizeLabel(smallest.blockSize)}: ${pct(smallest)})`,
      )
    }
  }
}

/** What attachBlockSizes needs of advise's run. */
export interface BlockSizeRun extends Omit<BlockSizeOptions, 'budgetMs'> {
  /** Wall time for every column family's block size together, ms (each column family: the time left over those left). */
  budgetMs: number
}

/**
 * advise's hook: the block size advice of every column family of a database with an OPTIONS
 * file, put on its column family's advice (`blockSize`). `groups` are advise's inputs (a column
 * family and level, its files; those left out already taken out). Returns a note per column family
 * not advised, and the files that could not be read.
 */
export async function attachBlockSizes(
  families: { name: string; blockSize?: BlockSizeAdvice }[],
  groups: readonly { columnFamily: string; level: number | null; files: readonly { path: string; size?: number }[] }[],
  options: DbOptions,
  run: BlockSizeRun,
  compressionOf?: (columnFamily: string, level: number) => { setting: LevelCompression; label: string } | null,
): Promise<{ notes: AdviceNote[]; problems: NonNullable<BlockSizeNotAdvised['problem']>[] }> {
  const names = families.map((f) => f.name).filter((n) => options.columnFamilies.some((c) => c.name === n && c.tableFactory !== null))
  const end = performance.now() + run.budgetMs
  const notes: AdviceNote[] = []
  const problems: NonNullable<BlockSizeNotAdvised['problem']>[] = []
  const levelsOf = (name: string) =>
    groups
      .filter((g) => g.columnFamily === name && g.level !== null)
      .map((g) => ({
        level: g.level!,
        // advise's own files, where they have their sizes (not a copy of each).
        files: g.files.every((f) => f.size !== undefined)
          ? (g.files as readonly { path: string; size: number }[])
          : g.files.map((f) => ({ path: f.path, size: f.size ?? sizeOnDisk(f.path) })),
      }))
  const bytes = (levels: ReturnType<typeof levelsOf>) => levels.reduce((n, l) => n + l.files.reduce((m, f) => m + f.size, 0), 0)
  // The largest column family first: where block size moves the most bytes, should the time not reach them all.
  const order = families
    .filter((f) => names.includes(f.name))
    .map((family) => ({ family, levels: levelsOf(family.name) }))
    .sort((a, b) => bytes(b.levels) - bytes(a.levels))
  const notAdvised = new Map<string, BlockSizeNotAdvised>()
  let left = order.length
  for (const { family, levels } of order) {
    const cfOptions = options.columnFamilies.find((c) => c.name === family.name)
    if (!cfOptions) continue
    const advice = await adviseBlockSize(
      { name: family.name, levels },
      cfOptions,
      { ...run, budgetMs: Math.max(0, end - performance.now()) / left-- },
      compressionOf && ((level) => compressionOf(family.name, level)),
    )
    if (advice && 'notAdvised' in advice) notAdvised.set(family.name, advice)
    else if (advice) family.blockSize = advice
  }
  // Notes and problems in the column families' order, whatever order they were evaluated in.
  for (const family of families) {
    const n = notAdvised.get(family.name)
    if (!n) continue
    notes.push(n.notAdvised)
    if (n.problem) problems.push(n.problem)
  }
  return { notes, problems }
}

/** A file's size, 0 when it cannot be read (its re-cut then says why). */
function sizeOnDisk(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export { applyBlockSizes } from '../db/apply-options.js'

/** An advised setting (types/advice.ts SettingSpec) as a level's compression; null for a codec sstkit does not write. */
export function levelCompressionOf(
  s: Pick<SettingSpec, 'type' | 'level' | 'dict' | 'checksum' | 'label' | 'dictOptions' | 'maxCompressedBytesPerKb'>,
  run: { maxDictBytes: number; trainBytes: number; maxDictBufferBytes: number },
  runPerKb: number,
): { setting: LevelCompression; label: string } | null {
  const type = compressionTypeFromShortName(s.type)
  if (type === undefined) return null
  const d = s.dictOptions ?? run
  return {
    setting: {
      type,
      level: s.level,
      dict: s.dict,
      checksum: s.checksum,
      maxDictBytes: d.maxDictBytes,
      trainBytes: d.trainBytes,
      maxDictBufferBytes: d.maxDictBufferBytes,
      perKb: s.maxCompressedBytesPerKb ?? runPerKb,
    },
    label: s.label,
  }
}

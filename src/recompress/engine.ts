/**
 * The recompression engine: for one SST, the stored baseline and every
 * configuration of the matrix, with dictionaries built as RocksDB builds them,
 * evaluated in parallel, then marked (smallest, fastest to decompress, Pareto
 * front of size against compression time).
 */
import { availableParallelism } from 'node:os'
import { loadDictionaryFile } from '../table/compression-dict.js'
import { dictionaryId } from '../codec/zdict.js'
import type { AcceptanceRule } from '../codec/block-compressor.js'
import { openTable, requireInternalKeys, type StoredTally, type Table } from '../table/reader.js'
import type { BlockCompressionCounts } from '../table/writer.js'
import { buildMatrix, matrixNoteText, type MatrixSpec, type RecompressConfig, type TableShape } from './config.js'
import { DEFAULT_RESTART_INTERVAL } from '../format/block.js'
import { defaultFormatVersion } from '../format/footer.js'
import { compressionShortName } from '../format/compression-type.js'
import type { BuiltDictionary, DictionaryOptions } from './dictionary.js'
import { laneUnits, partition, passes, readingCost, settingsPerPass } from './lanes.js'
import { lendCores, splitKernelCompression } from '../codec/kernel.js'
import { type ConfigMeasurement, DEFAULT_MAX_COMPRESSED_BYTES_PER_KB, type EntryTotals, type EvaluateTask, type TaskResult } from './evaluate.js'
import { closeWorkers, runTasks, startWorkers, workersAvailable } from './pool.js'
import { makeFeed } from './feed.js'
import { decodeStored, type StoredLayout, type StoredShape, storedLayout, storedShape, storedTally } from './stored.js'
import type { AutoSkipStrategy } from '../codec/auto-skip.js'
import type { ReadStats, SkippedBlock, SourceOptions } from './source.js'
import { transferable, UsageError } from '../errors.js'
import { Property } from '../format/properties.js'
import { decompressEstimate, type RoundTripMode, roundTripStride } from './round-trip.js'
import { readCpuEstimate, readWallEstimate } from './read-back.js'
import { storedTimingStride } from './stored-decompress.js'

/** A timing whose runs add up to less than this is noise (timer, JIT warm-up and scheduling dominate it): shown as such, never ranked on. */
export const MIN_TIMED_MS = 50
/** With repeats, a timing whose runs spread over more than this share of their median ((max - min) / median) is noise too. */
export const MAX_TIMING_SPREAD = 0.1

/** Whether a timing of `repeats` runs (median `ms`, spread `spread`) is too short or too spread to rank on. */
export function isNoisyTiming(ms: number, spread: number, repeats: number): boolean {
  return ms * repeats < MIN_TIMED_MS || spread > MAX_TIMING_SPREAD
}

export interface RecompressOptions {
  matrix: MatrixSpec
  source: SourceOptions
  /** format_version and enable_index_compression of the tables written (default: rewrite's). */
  table?: TableShape
  dict: DictionaryOptions
  dictFile?: string
  maxCompressedBytesPerKb?: number
  /** Which release's rule keeps a compressed block (default: RocksDB 8.3+'s max_compressed_bytes_per_kb). */
  acceptance?: AcceptanceRule
  repeat?: number
  /** Which compressed blocks are decompressed and compared (round-trip.ts): default 'sample'; 'every' is --verify-compression. */
  roundTrip?: RoundTripMode
  jobs?: number
  /**
   * Whether, with more than one job, a lane compresses its slow batches on two threads when a core
   * is idle (one setting's lane beside a free core, or the last lanes once others have nothing left:
   * codec/kernel.ts splitKernelCompression, lendCores): the same bytes and CPU, less wall time.
   * Default true.
   */
  splitCompression?: boolean
  /** Called with (done, total) block evaluations. */
  onProgress?: (done: number, total: number) => void
  /** Auto-skip strategies evaluated next to each compressing configuration. */
  autoSkip?: AutoSkipStrategy[]
  minSampleEvery?: number
  seed?: number
  /** Position of this file in the run, and ratio's q_hat per configuration carried between files (updated). */
  fileIndex?: number
  carry?: Map<string, number | null>
  /** Buffer growth after which a lane collects its garbage in full (evaluate.ts; default 4 MiB, LONE_LANE_COLLECT_BYTES for a lone task). */
  collectAfterBytes?: number
}

/**
 * A task that runs alone (one setting, or any matrix of one lane's worth) may leave this much of
 * dead buffers between its full collections, where lanes side by side leave 4-12 MiB each
 * (evaluate.ts): no other lane's garbage adds to the process's peak. One setting (zstd 3, 16 KiB
 * blocks) of the 64 MB db_bench files against 12 MiB (2026-12-06, 9 rounds interleaved against
 * 731d654): CPU -11% on the LZ4 file and -8% on the ZSTD one, full collections 7 against 14, peak
 * RSS 105 MB against 85 (105 MB on a 1 GB file too: the garbage is bounded, not the input).
 */
export const LONE_LANE_COLLECT_BYTES = 32 << 20

/** The file as stored: its shape (stored.ts), and its data blocks' decoded size and decompression speed. */
export interface StoredBaseline extends StoredShape {
  uncompressedBytes: number
  ratio: number
  /**
   * Thread CPU time of decompressing the stored compressed data blocks, ms, timed as a setting's round
   * trip on a sample of them (stored-decompress.ts storedTimingStride: every one on a file under 8 MiB of
   * data), estimated the same way where sampled (`decompressInterval`); 0 where none is compressed.
   */
  decompressMs: number
  /** uncompressedBytes over decompressMs; null where no block was timed (none compressed, or no round trip). */
  decompressMBps: number | null
  decompressInterval: { low: number; high: number | null } | null
  /** The decompression timing is too short, or its sample too uncertain, to rank on (isNoisyTiming). */
  decompressNoisy: boolean
  /** The stored compressed blocks timed. */
  roundTripBlocks: number
  /** Wall time of the pass's reading, checking and decoding of the stored data blocks, ms. */
  readWallMs: number
}

export interface RecompressResult extends BlockCompressionCounts {
  /** null: every block attempted; else the auto-skip strategy simulated. */
  autoSkip: AutoSkipStrategy | null
  type: string
  level: number | null
  dict: string
  checksum: boolean
  /** CompressionOptions::strategy of a zlib row from --compression-strategy; null: not given (zlib's default, 0; the other codecs take none). */
  strategy: number | null
  /** null: the file's own block boundaries. */
  blockSize: number | null
  /** block_restart_interval of re-cut blocks (null: the file's own blocks, as stored). */
  restartInterval: number | null
  /** separate_key_value_in_data_block of re-cut blocks (null: the file's own blocks, as stored). */
  separateKeyValue: boolean | null
  /** enable_index_compression. */
  indexCompression: boolean
  /** format_version of the table written. */
  formatVersion: number
  dataBytes: number
  dictBytes: number
  dictId: number
  indexBytes: number
  filterBytes: number
  /** Properties, metaindex, range deletions, other meta blocks and the footer. */
  metaBytes: number
  /** The whole file, exactly as `rewrite` writes it with the same settings. Null when sampling. */
  fileBytes: number | null
  uncompressedBytes: number
  /** Uncompressed data / (data + dictionary) bytes. */
  ratio: number
  /** Relative change of data + dictionary bytes against the stored file (-0.25 = 25% smaller). */
  vsStored: number
  blocks: number
  /** Blocks whose compression was attempted (compressed + rejected). */
  blocksAttempted: number
  /** Auto-skip rows: change against the same configuration without auto-skip. */
  vsNoSkip: { compressMs: number; dataBytes: number } | null
  /** Median over repeats; decompression estimated for every compressed block from those round-tripped (exact when all were). */
  compressMs: number
  decompressMs: number
  /**
   * Thread CPU of writing the whole table, ms, from the first pass (sst_dump's write test less its
   * reading of the input: the blocks are cut once for every row): data blocks compressed and placed,
   * index and meta blocks built; block checksums not computed (the table is counted, not written).
   */
  writeCpuMs: number
  /**
   * Thread CPU of reading the whole table's data blocks back as a reader does, ms: each block's
   * checksum, its decompression and a walk over every entry (sst_dump's read test less the file's
   * I/O and its index). Measured on the round trip's blocks (the compressed and the raw at its
   * positions; decompression the mean over repeats) and scaled by bytes to every block: exact when
   * every block was taken. Null without a round trip.
   */
  readCpuMs: number | null
  /**
   * Wall-clock time of the same work as writeCpuMs and readCpuMs, ms (performance.now read where
   * their thread CPU is; the read scaled as readCpuMs, null where it is): this row's share of its
   * lane's wall time, as a lane writes its rows side by side, a batch of blocks each in turn. Wall
   * minus CPU is time the thread waited (another thread ran, a page fault, ...).
   */
  writeWallMs: number
  readWallMs: number | null
  /** (max - min) / median over repeats; 0 with one repeat. */
  compressSpread: number
  decompressSpread: number
  compressMBps: number | null
  decompressMBps: number | null
  /** Compressed blocks decompressed and compared with their original (all of them under --verify-compression). */
  roundTripBlocks: number
  /** 95% interval of decompressMBps from the round trip's sample; null when every compressed block was timed (exact). high null: unbounded. */
  decompressInterval: { low: number; high: number | null } | null
  /** The timing is too short or too spread to rank on (isNoisyTiming): marks never rest on it. */
  compressNoisy: boolean
  decompressNoisy: boolean
  dictMs: number
  marks: string[]
}

export interface RecompressReport {
  file: string
  stored: StoredBaseline
  results: RecompressResult[]
  /** Matrix combinations left out, and sampling or skipped-block notes. */
  notes: string[]
  skipped: SkippedBlock[]
  samplePercent: number
  /** Which compressed blocks were decompressed and compared: every one, 1 in `roundTripStride` (round-trip.ts), or none (stride 0). */
  roundTrip: RoundTripMode
  roundTripStride: number
  /** The point entries the pass fed the settings (those of the sampled blocks with --sample; none when nothing was evaluated). */
  entries: EntryTotals
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

function spread(xs: number[]): number {
  if (xs.length < 2) return 0
  const med = median(xs)
  return med > 0 ? (Math.max(...xs) - Math.min(...xs)) / med : 0
}

const mbps = (bytes: number, ms: number) => (ms > 0 ? bytes / 1e6 / (ms / 1000) : null)

function storedBaseline(shape: StoredShape, decoded: ReadStats): StoredBaseline {
  const uncompressed = decoded.bytes
  // Timed as a setting's round trip (stored-decompress.ts), estimated the same way where sampled.
  const estimate = decoded.decompress ? decompressEstimate(decoded.decompress) : null
  const timedMs = decoded.decompress?.sumC ?? 0
  const decompressMs = estimate ? timedMs * estimate.scale : 0
  const decompressMBps = estimate ? mbps(uncompressed, decompressMs) : null
  const relHalf = estimate?.relHalf ?? 0
  // Keys in the order the JSON report has always had them.
  return {
    compression: shape.compression,
    blocks: shape.blocks,
    blocksCompressed: shape.blocksCompressed,
    uncompressedBytes: uncompressed,
    dataBytes: shape.dataBytes,
    dictBytes: shape.dictBytes,
    indexBytes: shape.indexBytes,
    indexPayloadBytes: shape.indexPayloadBytes,
    filterBytes: shape.filterBytes,
    metaBytes: shape.metaBytes,
    fileBytes: shape.fileBytes,
    ratio: shape.dataBytes + shape.dictBytes > 0 ? uncompressed / (shape.dataBytes + shape.dictBytes) : 0,
    decompressMs,
    decompressMBps,
    decompressInterval:
      decompressMBps === null || relHalf === 0 ? null : { low: decompressMBps / (1 + relHalf), high: relHalf < 1 ? decompressMBps / (1 - relHalf) : null },
    decompressNoisy: decompressMBps !== null && (isNoisyTiming(timedMs, 0, 1) || relHalf > MAX_TIMING_SPREAD / 2),
    roundTripBlocks: decoded.decompress?.timedBlocks ?? 0,
    readWallMs: decoded.ms,
  }
}

export class DictFileError extends UsageError {
  override name = 'DictFileError'
}
transferable(DictFileError)

function readDictFile(path: string): Uint8Array {
  const file = loadDictionaryFile(path)
  if (!file.ok) throw new DictFileError(file.problem)
  return file.bytes
}

/** The marks of a file's results (smallest, fastest-decompress, pareto), set in place. */
export function markResults(all: RecompressResult[]): void {
  // Marks compare settings; auto-skip rows are variants of a setting, not candidates, and a row that evaluated no
  // block (a re-cut stopped at an unreadable first block) is no candidate either, as for the verdict.
  const results = all.filter((r) => r.autoSkip === null && r.blocks > 0)
  const size = (r: RecompressResult) => r.dataBytes + r.dictBytes
  if (results.length === 0) return
  const smallest = Math.min(...results.map(size))
  for (const r of results) if (size(r) === smallest) r.marks.push('smallest')
  // The fastest, only when no timing it is compared with is noise (a noisy one might be faster), and, where a speed
  // is sampled, only when no other setting's interval reaches above the fastest's (an exact tie marks both).
  const withDec = results.filter((r) => r.decompressMBps !== null && r.blocksCompressed > 0)
  if (withDec.length && withDec.every((r) => !r.decompressNoisy)) {
    const low = (r: RecompressResult) => r.decompressInterval?.low ?? r.decompressMBps!
    const high = (r: RecompressResult) => (r.decompressInterval ? (r.decompressInterval.high ?? Number.POSITIVE_INFINITY) : r.decompressMBps!)
    const fastest = Math.max(...withDec.map((r) => r.decompressMBps!))
    for (const r of withDec) if (r.decompressMBps === fastest && withDec.every((o) => o === r || high(o) <= low(r))) r.marks.push('fastest-decompress')
  }
  // Pareto front: no other configuration is at least as small and at least as fast, and better in one.
  // Claimed only where it is known: the setting's own timing and those of every setting at least as small are not noise.
  for (const r of results) {
    if (r.compressNoisy) continue
    const unknown = results.some((o) => o !== r && o.compressNoisy && size(o) <= size(r))
    const dominated = results.some((o) => o !== r && size(o) <= size(r) && o.compressMs <= r.compressMs && (size(o) < size(r) || o.compressMs < r.compressMs))
    if (!unknown && !dominated) r.marks.push('pareto')
  }
}

function carryKey(c: RecompressConfig): string {
  return `${c.type}/${c.level}/${c.dict}/${c.checksum}/${c.strategy}`
}

function configKey(r: RecompressResult): string {
  return `${r.type}/${r.level}/${r.dict}/${r.checksum}/${r.strategy}`
}

function resultOf(
  c: RecompressConfig,
  m: ConfigMeasurement,
  strategy: AutoSkipStrategy | null,
  dict: BuiltDictionary | undefined,
  sampling: boolean,
  storedSize: number,
  layout: Pick<RecompressResult, 'blockSize' | 'restartInterval' | 'separateKeyValue' | 'indexCompression' | 'formatVersion'>,
): RecompressResult {
  const dictBytes = m.dictBytes
  const compressMs = median(m.compressMs)
  // The round-tripped blocks' time, scaled to every compressed block (exact when all were timed).
  const timedMs = median(m.decompressMs)
  const estimate = decompressEstimate(m.roundTrip)
  const decompressMs = estimate ? timedMs * estimate.scale : 0
  const compressMBps = m.blocksCompressed + m.blocksRejected > 0 ? mbps(m.uncompressedBytes, compressMs) : null
  const decompressMBps = m.blocksCompressed > 0 && estimate ? mbps(m.uncompressedBytes, decompressMs) : null
  const relHalf = estimate?.relHalf ?? 0
  const decompressInterval =
    decompressMBps === null || relHalf === 0 ? null : { low: decompressMBps / (1 + relHalf), high: relHalf < 1 ? decompressMBps / (1 - relHalf) : null }
  return {
    autoSkip: strategy,
    type: compressionShortName(c.type),
    level: c.level,
    dict: c.dict,
    checksum: c.checksum,
    strategy: c.strategy,
    ...layout,
    dataBytes: m.dataBytes,
    dictBytes,
    dictId: dict ? dictionaryId(dict.bytes) : 0,
    indexBytes: m.indexBytes,
    filterBytes: m.filterBytes,
    metaBytes: m.fileBytes - m.dataBytes - dictBytes - m.indexBytes - m.filterBytes,
    fileBytes: sampling ? null : m.fileBytes,
    uncompressedBytes: m.uncompressedBytes,
    ratio: m.dataBytes + dictBytes > 0 ? m.uncompressedBytes / (m.dataBytes + dictBytes) : 0,
    vsStored: storedSize > 0 ? (m.dataBytes + dictBytes - storedSize) / storedSize : 0,
    blocks: m.blocks,
    blocksCompressed: m.blocksCompressed,
    blocksRejected: m.blocksRejected,
    blocksBypassed: m.blocksBypassed,
    indexBlocksCompressed: m.indexBlocksCompressed,
    indexBlocksRejected: m.indexBlocksRejected,
    indexUncompressedBytes: m.indexUncompressedBytes,
    blocksAttempted: m.blocksCompressed + m.blocksRejected,
    vsNoSkip: null,
    compressMs,
    decompressMs,
    writeCpuMs: m.writeMs,
    readCpuMs: readCpuEstimate(m.read, m.uncompressedBytes),
    writeWallMs: m.writeWallMs,
    readWallMs: readWallEstimate(m.read, m.uncompressedBytes),
    compressSpread: spread(m.compressMs),
    decompressSpread: spread(m.decompressMs),
    compressMBps,
    decompressMBps,
    roundTripBlocks: m.roundTrip.timedBlocks,
    decompressInterval,
    compressNoisy: compressMBps !== null && isNoisyTiming(compressMs, spread(m.compressMs), m.compressMs.length),
    // What was timed must be long enough, and a sample's interval within the spread allowed to repeats (±half of it).
    decompressNoisy: decompressMBps !== null && (isNoisyTiming(timedMs, spread(m.decompressMs), m.decompressMs.length) || relHalf > MAX_TIMING_SPREAD / 2),
    dictMs: dict?.ms ?? 0,
    marks: [],
  }
}

/**
 * The stored data blocks as a task's pass read and tallied them; else (no task could time them) as
 * a pass of their own reads them, its skipped blocks into `skipped`. A pass that met an unreadable
 * block leaves the tally to a walk over every block's trailer (counted as sst_dump counts them,
 * unreadable ones too).
 */
function storedReads(
  file: string,
  outputs: TaskResult[],
  samplePercent: number,
  skipped: SkippedBlock[],
  stride: number,
): { decoded: ReadStats; tally: StoredTally } {
  const fromTask = outputs.find((o) => o.stored)?.stored
  if (fromTask) return { decoded: fromTask, tally: fromTask }
  const again = openTable(file)
  try {
    const decoded = decodeStored(again, samplePercent, skipped, stride)
    return { decoded, tally: skipped.length === 0 ? decoded : storedTally(again, samplePercent) }
  } finally {
    again.close()
  }
}

/** Uncompressed bytes a task's pass feeds, about: the entries' raw bytes (the data size without them), times the source's sample. */
function estimatedRawBytes(table: Table, source: SourceOptions): number {
  const known = table.properties.known
  const raw = Number(known.get(Property.RawKeySize) ?? 0) + Number(known.get(Property.RawValueSize) ?? 0)
  return ((raw > 0 ? raw : Number(known.get(Property.DataSize) ?? 0)) * source.samplePercent) / 100
}

/** Blocks a task's pass feeds, for the progress total: the file's count with its boundaries; re-cut, estimated from the entries' raw bytes. */
function estimatedBlocks(table: Table, source: SourceOptions): number {
  const known = table.properties.known
  if (source.blockSize === null) return Math.max(1, Math.floor((Number(known.get(Property.NumDataBlocks) ?? 1) * source.samplePercent) / 100))
  const raw = Number(known.get(Property.RawKeySize) ?? 0) + Number(known.get(Property.RawValueSize) ?? 0)
  return Math.max(1, Math.ceil((raw > 0 ? raw : Number(known.get(Property.DataSize) ?? 1)) / source.blockSize))
}

export async function recompressFile(file: string, opts: RecompressOptions): Promise<RecompressReport> {
  const matrix = buildMatrix({ ...opts.matrix, dictFile: opts.dictFile !== undefined })
  const { configs } = matrix
  const notes = matrix.notes.map(matrixNoteText)
  const jobs = Math.max(1, opts.jobs ?? availableParallelism())
  const table = openTable(file)
  requireInternalKeys(table, 'recompress')
  const storedFormatVersion = table.formatVersion
  // One pass per lane (sharing one reading of the file, feed.ts) when the lanes hold every setting's writer; else more passes.
  const perPass = settingsPerPass(estimatedBlocks(table, opts.source), 1 + (opts.autoSkip?.length ?? 0))
  const lanes = Math.min(jobs, laneUnits(configs))
  const groups = configs.length > lanes * perPass ? passes(configs, perPass) : partition(configs, lanes, workersAvailable() ? readingCost(opts.source) : 0)
  let fileDict: Uint8Array | undefined
  try {
    fileDict = configs.some((c) => c.dict === 'file') ? readDictFile(opts.dictFile!) : undefined
  } catch (e) {
    table.close()
    throw e
  }
  // The workers boot (a V8 isolate, sstkit's modules: ~0.3 s) while this thread reads the stored file's layout.
  const workers = startWorkers(jobs, groups.length)
  let storedMeta: StoredLayout
  let outputs: TaskResult[]
  const roundTrip = opts.roundTrip ?? 'sample'
  let stride: number
  let storedStride: number
  try {
    let total: number
    try {
      storedMeta = storedLayout(table)
      total = estimatedBlocks(table, opts.source) * groups.length
      stride = roundTripStride(roundTrip, estimatedRawBytes(table, opts.source))
      storedStride = storedTimingStride(roundTrip, estimatedRawBytes(table, opts.source))
    } finally {
      table.close()
    }
    const split = jobs > 1 && opts.splitCompression !== false
    // The stored blocks' decoding rides on one task's pass: the lightest group's, which runs on this thread.
    const tasks: EvaluateTask[] = groups.map((g, i) => ({
      file,
      configs: g,
      dictionaries: fileDict ? Object.fromEntries(g.filter((c) => c.dict === 'file').map((c) => [c.id, fileDict])) : {},
      measureStored: i === groups.length - 1,
      source: opts.source,
      table: opts.table,
      maxCompressedBytesPerKb: opts.maxCompressedBytesPerKb ?? DEFAULT_MAX_COMPRESSED_BYTES_PER_KB,
      acceptance: opts.acceptance,
      repeat: opts.repeat ?? 1,
      roundTripStride: stride,
      storedStride,
      autoSkip: opts.autoSkip,
      minSampleEvery: opts.minSampleEvery,
      seed: opts.seed,
      fileIndex: opts.fileIndex ?? 0,
      carry: Object.fromEntries(g.map((c) => [c.id, opts.carry?.get(carryKey(c)) ?? null])),
      maxDictBytes: opts.dict.maxDictBytes,
      trainBytes: opts.dict.trainBytes,
      maxDictBufferBytes: opts.dict.maxDictBufferBytes,
      collectAfterBytes: opts.collectAfterBytes ?? (groups.length === 1 ? LONE_LANE_COLLECT_BYTES : undefined),
      splitCompression: split,
    }))
    // One lane per task: this thread's (the last) reads the file for all of them.
    if (workers && tasks.length === workers.slots.length + 1) {
      const { out, ins } = makeFeed(workers.slots.length)
      for (const [i, feedIn] of ins.entries()) tasks[i].feedIn = feedIn
      tasks[tasks.length - 1].feedOut = out
      tasks[tasks.length - 1].allConfigs = configs
    }
    let done = 0
    const progress = (n: number) => {
      done += n
      opts.onProgress?.(Math.min(done, total), total)
    }
    // Lanes split their slow batches over the cores lent: on one lane, the others from the start; on
    // several, each lane's once it has nothing left (runTasks).
    splitKernelCompression(split)
    const lent = split && !workers ? jobs - 1 : 0
    lendCores(lent)
    try {
      outputs = await runTasks(tasks, jobs, progress, workers)
    } finally {
      lendCores(-lent)
      splitKernelCompression(false)
    }
  } finally {
    await closeWorkers(workers)
  }
  // The decoding's own pass, only when no task could time it (no configuration, sampling a re-cut, an ingested
  // file's re-cut with its seqno applied, an unreadable block): its skipped blocks come first, as they always have.
  const skipped: SkippedBlock[] = []
  const { decoded, tally } = storedReads(file, outputs, opts.source.samplePercent, skipped, storedStride)
  const stored = storedBaseline(storedShape(storedMeta, tally), decoded)
  const dictionaries = new Map<number, BuiltDictionary>()
  for (const o of outputs) for (const [id, d] of Object.entries(o.dictionaries)) dictionaries.set(Number(id), d)
  if (fileDict) for (const c of configs) if (c.dict === 'file') dictionaries.set(c.id, { bytes: fileDict, ms: 0, sampleBytes: 0 })
  const byId = new Map<string, ConfigMeasurement>()
  for (const o of outputs) for (const m of o.results) byId.set(`${m.id}/${m.strategy}`, m)
  // Every task reads the same blocks; report skipped ones once.
  const seen = new Set(skipped.map((s) => s.offset))
  for (const s of outputs.flatMap((o) => o.skipped)) {
    if (seen.has(s.offset)) continue
    seen.add(s.offset)
    skipped.push(s)
  }

  const sampling = opts.source.samplePercent < 100
  const storedSize = stored.dataBytes + stored.dictBytes
  const results: RecompressResult[] = []
  const layout = {
    blockSize: opts.source.blockSize,
    restartInterval: opts.source.blockSize === null ? null : (opts.source.restartInterval ?? DEFAULT_RESTART_INTERVAL),
    separateKeyValue: opts.source.blockSize === null ? null : (opts.source.separateKeyValue ?? false),
    indexCompression: opts.table?.indexCompression ?? true,
    formatVersion: opts.table?.formatVersion ?? defaultFormatVersion(storedFormatVersion),
  }
  for (const c of configs) {
    for (const strategy of [null, ...(c.type === 0 ? [] : (opts.autoSkip ?? []))] as (AutoSkipStrategy | null)[]) {
      const m = byId.get(`${c.id}/${strategy}`)!
      if (strategy === 'ratio') opts.carry?.set(carryKey(c), m.qHat)
      results.push(resultOf(c, m, strategy, dictionaries.get(c.id), sampling, storedSize, layout))
    }
  }
  // Auto-skip rows against their own configuration without auto-skip.
  const base = new Map(results.filter((r) => r.autoSkip === null).map((r) => [configKey(r), r]))
  for (const r of results) {
    if (r.autoSkip === null) continue
    const b = base.get(configKey(r))!
    r.vsNoSkip = {
      compressMs: b.compressMs > 0 ? (r.compressMs - b.compressMs) / b.compressMs : 0,
      dataBytes: b.dataBytes > 0 ? (r.dataBytes - b.dataBytes) / b.dataBytes : 0,
    }
  }
  markResults(results)
  if (sampling) notes.push(`sampled ${opts.source.samplePercent}% of the data blocks: byte counts cover those blocks only`)
  if (skipped.length) notes.push(`${skipped.length} data block(s) could not be read and were skipped`)
  if (stride > 1)
    notes.push(
      `1 in ${stride} data blocks of each setting decompressed and compared with the original: decompression speeds are estimates, ± their 95% interval (--verify-compression: every block)`,
    )
  if (stored.decompressInterval)
    notes.push(
      `the stored row's decompression timed on ${stored.roundTripBlocks} of its ${stored.blocksCompressed} compressed blocks (1 in ${storedStride}): an estimate, ± its 95% interval (--verify-compression: every block)`,
    )
  const entries = outputs[0]?.entries ?? { entries: 0, deletions: 0, merges: 0, rawKeyBytes: 0, rawValueBytes: 0 }
  return { file, stored, results, notes, skipped, samplePercent: opts.source.samplePercent, roundTrip, roundTripStride: stride, entries }
}

/**
 * Evaluating configurations over one pass of a file: every configuration
 * drives its own table writer (the one `rewrite` uses) into a byte counter,
 * so sizes are exactly those of the file `rewrite` would write. The writer's
 * data-block hook times each compression and decompresses the compressed
 * blocks the round trip takes (round-trip.ts: a sample, every one, or none),
 * comparing each with the original.
 *
 * Runs in a worker thread or inline; a pure function of its inputs except timings.
 */
import { type AcceptanceRule, BlockCompressor } from '../codec/block-compressor.js'
import { COMPRESSION_DEFAULTS } from '../codec/setting.js'
import { CompressionType } from '../format/compression-type.js'
import { openTable, type Table } from '../table/reader.js'
import { writerOptionsFor } from '../rewrite/writer-options.js'
import { type BlockCompressionCounts, type BlockEntryStats, CountingSink, noBlockCompression, indexBuilderOptions, TableWriter } from '../table/writer.js'
import type { AheadBatch } from '../table/writer-options.js'
import { SeparatorLog } from '../format/index-block.js'
import { DEFAULT_RESTART_INTERVAL } from '../format/block.js'
import { spareCores, threadCpuMs } from '../codec/kernel.js'
import type { RecompressConfig, TableShape } from './config.js'
import { prng } from '../util/prng.js'
import { collectGarbage, collectYoungGarbage, reapplyGrowthFactor } from '../util/garbage.js'
import { trimMallocArenas } from '../util/malloc.js'
import { type AutoSkipStrategy, deciderSeed, RateDecider, RatioDecider } from '../codec/auto-skip.js'
import { emptyReadStats, type Feed, feedBlocks, type ReadStats, type SkippedBlock, type SourceOptions } from './source.js'
import { type BuiltDictionary, buildDictionaries, buildsFromSamples } from './dictionary.js'
import { type FedBlock, type FeedIn, type FeedOut, FeedReader, FeedWriter } from './feed.js'
import { addCompressed, emptyRoundTrip, inRoundTrip } from './round-trip.js'
import { emptyReadSums } from './read-back.js'
import { nativeRecutApplies } from './recut-native.js'
import { type BatchRoundTrip, emptyPending, roundTripPending, type RoundTripMeasurement, type RoundTripState, type WalkTimes } from './pending-round-trip.js'
import { finishStoredTiming, timeStoredDecompression } from './stored-decompress.js'

/** RocksDB's default `max_compressed_bytes_per_kb` (7/8). */
export const DEFAULT_MAX_COMPRESSED_BYTES_PER_KB = COMPRESSION_DEFAULTS.maxCompressedBytesPerKb

export interface EvaluateTask {
  file: string
  configs: RecompressConfig[]
  /**
   * Dictionary per config id given by the engine (a --dict-file's). The task
   * builds the others (raw, train, finalize) itself, as RocksDB would: the
   * engine groups the configurations that need them, so that sampling is
   * done on as few lanes as balance allows.
   */
  dictionaries: Record<number, Uint8Array>
  /**
   * Measure the stored baseline in this task's pass over the stored blocks
   * (their uncompressed bytes and read + decode time), when that pass reads
   * exactly the blocks the baseline covers (see storedMeasurable).
   */
  measureStored?: boolean
  source: SourceOptions
  /** How the table is written beyond its data blocks (format_version, enable_index_compression); default: rewrite's. */
  table?: TableShape
  maxCompressedBytesPerKb: number
  /** Which release's rule keeps a compressed block (default: RocksDB 8.3+'s). */
  acceptance?: AcceptanceRule
  repeat: number
  /** Which compressed blocks are decompressed and compared (round-trip.ts roundTripStride; default 1: every one). */
  roundTripStride?: number
  /** Which stored compressed blocks the stored row's timing decodes again (stored-decompress.ts storedTimingStride; default roundTripStride). */
  storedStride?: number
  /** Keep each round-tripped block's index, size and time (tests: the sample against every block). */
  recordRoundTrips?: boolean
  /** Dictionary options, recorded in the written properties. */
  maxDictBytes: number
  trainBytes: number
  maxDictBufferBytes: number
  /** Auto-skip strategies to evaluate next to each compressing configuration. */
  autoSkip?: AutoSkipStrategy[]
  minSampleEvery?: number
  seed?: number
  /** Position of the file in the run (seeds decisions per file). */
  fileIndex?: number
  /** ratio's q_hat carried from the previous file, per configuration id. */
  carry?: Record<number, number | null>
  /** Take the data blocks from another lane's pass (feed.ts) instead of reading the file. */
  feedIn?: FeedIn
  /** Whether the task's codecs may split slow batches over a lent core (codec/kernel.ts splitKernelCompression; the lane sets it). */
  splitCompression?: boolean
  /** Hand this task's data blocks to the other lanes (this thread only: its ports are not sent). */
  feedOut?: FeedOut
  /** With feedOut: every lane's configurations, whose dictionaries this task builds and hands out. */
  allConfigs?: RecompressConfig[]
  /** Buffer growth after which the lane runs a full collection (default BATCH_COLLECT_GROWTH_BYTES). */
  collectAfterBytes?: number
}

export interface ConfigMeasurement extends BlockCompressionCounts, RoundTripMeasurement {
  id: number
  /** null: compression attempted on every block; else the auto-skip strategy applied. */
  strategy: AutoSkipStrategy | null
  /** ratio's q_hat at the end of the file (carried to the next file). */
  qHat: number | null
  blocks: number
  uncompressedBytes: number
  /** Data blocks as written: payloads + trailers. */
  dataBytes: number
  indexBytes: number
  filterBytes: number
  dictBytes: number
  /** The whole file the writer produced. */
  fileBytes: number
  /** Compression time per repeat, ms (decompression's: RoundTripMeasurement). */
  compressMs: number[]
  /**
   * Thread CPU of the whole table write, ms (first pass): the writer's every call (data blocks
   * compressed and placed, index built and compressed, meta blocks, footer); a zstd checksum twin,
   * which reuses its plain twin's frames, is charged that compression too.
   */
  writeMs: number
  /** Wall-clock time of the same calls, ms (performance.now at the places writeMs is read): the rest is time the thread waited. */
  writeWallMs: number
}

export { RoundTripError } from './pending-round-trip.js'

/** A compressor with the config's settings: its own contexts, so timing one config never reloads another's dictionary. */
function compressorFor(c: RecompressConfig, formatVersion: number, dictionary: Uint8Array | undefined): BlockCompressor {
  return new BlockCompressor(
    { compressionType: c.type, level: c.level, zstdChecksum: c.checksum, strategy: c.strategy ?? undefined },
    formatVersion,
    dictionary,
  )
}

interface ConfigState extends RoundTripState {
  m: ConfigMeasurement
  writer: TableWriter
  formatVersion: number
  decider?: RateDecider | RatioDecider
  /** With repeats: the batch's blocks whose compression was tried, compressed again for the extra repeats. */
  attempted: Uint8Array[]
}

/**
 * A lane collects its garbage once its buffers have grown by this much (util/garbage.ts): dead
 * buffers add up to the process's peak RSS, each lane's, and stay in malloc's arenas afterwards.
 */
const BATCH_COLLECT_GROWTH_BYTES = 4 << 20

/**
 * A lane scavenges once its buffers have grown by this much: a scavenge costs ~0.1 ms, and V8 counts
 * what one freed only at the next collection. Measured (64 MB LZ4 file re-cut natively, zstd 3,
 * NATIVE_CUT_FULL_COLLECT_BYTES 12 MiB): at 1 MiB, 6 full collections; at 4 MiB, 15.
 */
const YOUNG_COLLECT_GROWTH_BYTES = 1 << 20

/**
 * Between scavenges V8's count still holds buffers they freed, so where blocks are re-cut natively
 * a lane's full collection waits for this much growth (or the task's own, if larger: advise's
 * block-size step asks for 16 MiB): at 4 MiB, 14 full collections on that file; at 12 MiB, 6.
 */
const NATIVE_CUT_FULL_COLLECT_BYTES = 12 << 20

/** What one task measured. */
export interface TaskResult {
  results: ConfigMeasurement[]
  skipped: SkippedBlock[]
  /** The dictionaries it built, by config id. */
  dictionaries: Record<number, BuiltDictionary>
  /** The stored data blocks as its pass read them (measureStored, when measurable and nothing was skipped). */
  stored?: ReadStats
  /** The point entries its pass fed (every task feeds the same). */
  entries: EntryTotals
}

/** Point entries counted from the fed blocks' stats: what a table builder adds up for its properties. */
export interface EntryTotals {
  entries: number
  deletions: number
  merges: number
  rawKeyBytes: number
  rawValueBytes: number
}

/**
 * Whether a task's pass reads every stored block the baseline decodes, each
 * once through readDataBlock: own boundaries (the same sampled blocks), or a
 * re-cut of every block without the global-seqno iterator.
 */
export function storedMeasurable(source: SourceOptions, globalSeqno: number): boolean {
  if (source.blockSize === null) return true
  return source.samplePercent >= 100 && !(source.applyGlobalSeqno && globalSeqno >= 0)
}

export function evaluate(task: EvaluateTask, onBlock?: () => void): TaskResult {
  const table = openTable(task.file)
  try {
    return evaluateTable(table, task, onBlock)
  } finally {
    table.close()
  }
}

export function evaluateTable(table: Table, task: EvaluateTask, onBlock?: () => void): TaskResult {
  const reader = task.feedIn && new FeedReader(task.feedIn)
  const feedOut = task.feedOut && new FeedWriter(task.feedOut)
  try {
    // The reading lane samples once for every lane (while the others start), and hands the dictionaries out first.
    const built = reader
      ? reader.dictionaries()
      : buildDictionaries(table, (task.feedOut ? (task.allConfigs ?? task.configs) : task.configs).filter(buildsFromSamples), task.source, task)
    feedOut?.dictionaries(built)
    return evaluateWith(table, task, built, reader, feedOut, onBlock)
  } finally {
    reader?.leave()
    feedOut?.abort() // after end(), nothing left to tell
  }
}

function evaluateWith(
  table: Table,
  task: EvaluateTask,
  built: Map<number, BuiltDictionary>,
  reader: FeedReader | undefined,
  feedOut: FeedWriter | undefined,
  onBlock?: () => void,
): TaskResult {
  const repeat = Math.max(1, task.repeat)
  const dictionaries: Record<number, Uint8Array> = { ...task.dictionaries }
  for (const [id, d] of built) dictionaries[id] = d.bytes
  const plan: { config: RecompressConfig; strategy: AutoSkipStrategy | null }[] = []
  for (const config of task.configs) {
    plan.push({ config, strategy: null })
    if (config.type !== CompressionType.None) for (const strategy of task.autoSkip ?? []) plan.push({ config, strategy })
  }
  // Every writer is fed the same blocks: their index separators are recorded once (format/index-block.ts).
  const separatorLogs = new Map<string, SeparatorLog>()
  // ...and read back the same blocks: each is walked once for all (pending-round-trip.ts WalkTimes).
  const walks: WalkTimes = new WeakMap()
  const states: ConfigState[] = plan.map(({ config, strategy }) => {
    const random = prng(deciderSeed(task.seed ?? 0, config.id * 2 + (strategy === 'ratio' ? 1 : 0), task.fileIndex ?? 0))
    const decider =
      strategy === 'rate'
        ? new RateDecider(random)
        : strategy === 'ratio'
          ? new RatioDecider(random, task.maxCompressedBytesPerKb, task.minSampleEvery, task.carry?.[config.id] ?? null)
          : undefined
    const given = dictionaries[config.id]
    const dictionary = given && given.length > 0 ? given : undefined
    const options = writerOptionsFor(
      table,
      {
        compressionType: config.type,
        level: config.level,
        zstdChecksum: config.checksum,
        strategy: config.strategy ?? undefined,
        dict: config.dict === 'file' ? 'none' : config.dict,
        dictionary,
        maxDictBytes: task.maxDictBytes,
        trainBytes: task.trainBytes,
        maxDictBufferBytes: task.maxDictBufferBytes,
        blockSize: task.source.blockSize ?? 4096,
        restartInterval: task.source.restartInterval ?? DEFAULT_RESTART_INTERVAL,
        // Re-cut blocks are in the layout asked for; the file's own keep theirs (and its properties).
        separateKeyValue: task.source.blockSize === null ? undefined : (task.source.separateKeyValue ?? false),
        formatVersion: task.table?.formatVersion ?? undefined,
        indexCompression: task.table?.indexCompression,
        index: 'binary',
        metadataBlockSize: 4096,
        maxCompressedBytesPerKb: task.maxCompressedBytesPerKb,
        acceptance: task.acceptance,
        skip: decider,
      },
      [],
    )
    if (options.index === 'binary') {
      const indexOpts = indexBuilderOptions(options)
      const key = JSON.stringify(indexOpts)
      let log = separatorLogs.get(key)
      if (!log) separatorLogs.set(key, (log = new SeparatorLog(indexOpts)))
      options.separatorLog = log
    }
    const writer = new TableWriter(new CountingSink(), options)
    const m: ConfigMeasurement = {
      id: config.id,
      strategy,
      qHat: null,
      blocks: 0,
      ...noBlockCompression(),
      uncompressedBytes: 0,
      dataBytes: 0,
      indexBytes: 0,
      filterBytes: 0,
      dictBytes: 0,
      fileBytes: 0,
      compressMs: new Array(repeat).fill(0),
      decompressMs: new Array(repeat).fill(0),
      writeMs: 0,
      writeWallMs: 0,
      roundTrip: emptyRoundTrip(),
      read: emptyReadSums(),
      ...(task.recordRoundTrips ? { roundTripRecords: { index: [], bytes: [], ms: [] } } : {}),
    }
    const stride = task.roundTripStride ?? 1
    // The round trip only compares and discards: the compressor decompresses into one reused buffer.
    const roundTrip = config.type === CompressionType.None || stride === 0 ? null : compressorFor(config, options.formatVersion, dictionary)
    const st: ConfigState = {
      config,
      writer,
      formatVersion: options.formatVersion,
      m,
      decider,
      roundTrip,
      pending: emptyPending(),
      walks,
      attempted: [],
      checksumType: options.checksumType,
      // The file's own blocks keep their layout, and its restart interval with it.
      restartInterval: task.source.blockSize === null ? table.dataRestartInterval : options.restartInterval,
    }
    let index = -1
    writer.onDataBlock = (raw, compressed, ms, attempted) => {
      index++
      m.uncompressedBytes += raw.length
      m.compressMs[0] += ms
      if (attempted && repeat > 1) st.attempted.push(raw)
      const sampled = inRoundTrip(index, stride)
      if (!compressed || !roundTrip) {
        // Stored raw: read back (checksum, entries) at the round trip's positions too.
        if (sampled) st.pending.plain.push(raw)
        return
      }
      addCompressed(m.roundTrip, raw.length)
      if (!sampled) return
      // Kept until the batch's round trip: a zstd payload compressed one by one is a view of a reused buffer.
      st.pending.payloads.push(roundTrip.batched ? compressed : compressed.slice())
      st.pending.raws.push(raw)
      st.pending.index.push(index)
    }
    return st
  })
  const { twinOf, checksumTwin } = checksumTwins(states, dictionaries)
  // Extra repeats re-time compression alone, with codecs of the same settings.
  const repeaters = repeat > 1 ? repeatCompressors(states, dictionaries) : null

  const skipped: SkippedBlock[] = []
  const storedReads: ReadStats | undefined =
    task.measureStored && storedMeasurable(task.source, table.globalSeqno)
      ? timeStoredDecompression(emptyReadStats(), table, task.storedStride ?? task.roundTripStride ?? 1)
      : undefined
  let first = true
  let batchNo = 0
  // Blocks are handed out in batches, each configuration taking the whole batch in turn: its
  // compression context then stays in the CPU caches for several blocks instead of being evicted
  // by every other configuration's. 128 KiB, not more: a batch's blocks then mostly die in the
  // young generation (before their second scavenge) instead of being promoted and waiting for a
  // full collection. Measured (zstd 1..3, 16 KiB blocks, one lane): 1 MiB 6.55 s of CPU, 256 KiB
  // 5.7-6.1 s, 128 KiB 5.67-5.87 s, 32 KiB 5.75-6.13 s; zstd 9, 12, 19: within 1% of 1 MiB.
  const BATCH_BYTES = 128 << 10
  let batch: FedBlock[] = []
  let batchBytes = 0
  const nativeCut = !reader && task.source.blockSize !== null && nativeRecutApplies(table, task.source)
  const growth = task.collectAfterBytes ?? BATCH_COLLECT_GROWTH_BYTES
  // Add a batch's blocks to a setting's writer (compressed ahead into `ahead` where the kernel does
  // the setting), then to its checksum twin's. t0, w0: thread CPU and wall clock when the setting's
  // writer was first called for this batch. helperNs: compression CPU on the codec's helper thread,
  // part of writing the table though not this thread's. aheadWallMs: the wall time of compressing
  // the batch ahead, what the twin's frames take instead of their own compression.
  const write = (st: ConfigState, blocks: readonly FedBlock[], t0: number, w0: number, helperNs = 0, plainTwin?: BatchRoundTrip) => {
    for (const b of blocks) st.writer.addDataBlock(b.raw, b.firstKey, b.lastKey, b.stats)
    st.m.writeMs += threadCpuMs() - t0 + helperNs / 1e6
    st.m.writeWallMs += performance.now() - w0
    const done = roundTripPending(st, repeat, plainTwin)
    if (repeaters) repeatCompression(st, repeaters.get(st)!, repeat)
    return done
  }
  const writeBatch = (
    st: ConfigState,
    blocks: readonly FedBlock[],
    raws: readonly Uint8Array[],
    ahead: AheadBatch | null,
    t0: number,
    w0: number,
    aheadWallMs: number,
  ) => {
    const done = write(st, blocks, t0, w0, ahead?.helperNs)
    const twin = checksumTwin.get(st)
    if (!twin) return
    const w1 = performance.now()
    const t1 = threadCpuMs()
    if (ahead && twin.writer.checksumAheadFrom(ahead)) {
      twin.m.writeMs += ahead.ns / 1e6
      twin.m.writeWallMs += aheadWallMs
      write(twin, blocks, t1, w1, 0, done)
    } else {
      twin.writer.compressAhead(raws)
      write(twin, blocks, t1, w1)
    }
  }
  // A setting's batch out on a lent core (TableWriter.submitAhead), compressed there while this
  // thread writes the batch before it and re-cuts the next; collected at the next batch (or the
  // end). cpuMs, wallMs: what handing it over took here, charged to it when it is written.
  const out = new Map<ConfigState, { blocks: FedBlock[]; raws: Uint8Array[]; cpuMs: number; wallMs: number }>()
  // The batch out, its payloads taken back, then `next` handed over in its place (when given and a
  // lent core takes it) before the taken one is written: both threads busy. True when handed over.
  const cycle = (st: ConfigState, next?: { blocks: FedBlock[]; raws: Uint8Array[] }): boolean => {
    const o = out.get(st)
    // Nothing out and no core spare (lanes all busy): no clock read, nothing to try. With a batch
    // out, its helper may hold the core until it is collected: the hand-over is tried after that.
    if (!o && !(next && spareCores() > 0)) return false
    const w0 = performance.now()
    const t0 = threadCpuMs()
    const ahead = o ? st.writer.collectAhead() : null
    const collectWallMs = performance.now() - w0
    // The hand-over of `next` is its own cost, not the collected batch's.
    let handOverMs = 0
    let handOverWallMs = 0
    let handed = false
    if (next) {
      const w1 = performance.now()
      const t1 = threadCpuMs()
      handed = st.writer.submitAhead(next.raws)
      handOverMs = threadCpuMs() - t1
      handOverWallMs = performance.now() - w1
      if (handed) out.set(st, { ...next, cpuMs: handOverMs, wallMs: handOverWallMs })
    }
    if (!handed) out.delete(st)
    if (o && ahead) writeBatch(st, o.blocks, o.raws, ahead, t0 - o.cpuMs + handOverMs, w0 - o.wallMs + handOverWallMs, o.wallMs + collectWallMs)
    return handed
  }
  const drain = () => {
    if (batch.length === 0) return
    // The other lanes first: they compress it while this one does.
    feedOut?.post(batch)
    const n = states.length
    // Rotate which configuration goes first: the first to touch a batch pays its cache misses.
    const start = batchNo++ % n
    const raws = batch.map((b) => b.raw)
    for (let k = 0; k < n; k++) {
      const st = states[(start + k) % n]
      if (twinOf.has(st)) continue // written right after the setting it is made from
      if (cycle(st, { blocks: batch, raws })) continue
      const w0 = performance.now()
      const t0 = threadCpuMs()
      const ahead = st.writer.compressAhead(raws)
      writeBatch(st, batch, raws, ahead, t0, w0, performance.now() - w0)
    }
    for (let i = 0; i < batch.length; i++) onBlock?.()
    batch = []
    batchBytes = 0
    // A worker's start puts V8's semi-space growth back (util/garbage.ts): unset, this thread's had grown to 8 MiB.
    reapplyGrowthFactor()
    // Each batch leaves its blocks and read windows behind as dead buffers (util/garbage.ts), and JS
    // objects that a young collection promotes: looked at every batch (a look costs microseconds).
    // Blocks re-cut natively come with little JavaScript garbage, so no scavenge of V8's own frees
    // them, and a full collection every 4 MiB cost ~0.4 s of CPU on a 64 MB file: they die young,
    // so a scavenge does, and the full one is for what outlived the scavenges.
    if (nativeCut) {
      if (!collectYoungGarbage(YOUNG_COLLECT_GROWTH_BYTES) && collectGarbage(Math.max(growth, NATIVE_CUT_FULL_COLLECT_BYTES))) trimMallocArenas()
    } else if (collectGarbage(growth)) trimMallocArenas()
  }
  const entries: EntryTotals = { entries: 0, deletions: 0, merges: 0, rawKeyBytes: 0, rawValueBytes: 0 }
  const feed = (raw: Uint8Array, firstKey: Uint8Array, lastKey: Uint8Array, stats: BlockEntryStats) => {
    if (first) for (const st of states) st.writer.warmUp(raw)
    first = false
    entries.entries += stats.entries
    entries.deletions += stats.deletions
    entries.merges += stats.merges
    entries.rawKeyBytes += stats.rawKeyBytes
    entries.rawValueBytes += stats.rawValueBytes
    batch.push({ raw, firstKey, lastKey, stats })
    batchBytes += raw.length
    if (batchBytes >= BATCH_BYTES) drain()
  }
  readBlocks(table, task, reader, feed, skipped, storedReads, nativeCut)
  drain()
  for (const st of states) cycle(st)
  feedOut?.end()
  for (const t of table.rangeTombstones({ applyGlobalSeqno: false })) for (const s of states) s.writer.addRangeTombstone(t.internalKey, t.end)

  for (const s of states) {
    const w0 = performance.now()
    const t0 = threadCpuMs()
    const sum = s.writer.finish()
    s.m.writeMs += threadCpuMs() - t0
    s.m.writeWallMs += performance.now() - w0
    // Each writer's index is built at finish (~0.6 MB on a file of 32,000 blocks, and its builder's garbage).
    if (collectGarbage(task.collectAfterBytes ?? BATCH_COLLECT_GROWTH_BYTES)) trimMallocArenas()
    // The last block is written at finish: its round trip and repeats.
    roundTripPending(s, repeat)
    if (repeaters) repeatCompression(s, repeaters.get(s)!, repeat)
    s.roundTrip?.close()
    repeaters?.get(s)?.close()
    const m = s.m
    m.blocks = sum.dataBlocks
    m.blocksCompressed = sum.blocksCompressed
    m.blocksRejected = sum.blocksRejected
    m.blocksBypassed = sum.blocksBypassed
    m.indexBlocksCompressed = sum.indexBlocksCompressed
    m.indexBlocksRejected = sum.indexBlocksRejected
    m.indexUncompressedBytes = sum.indexUncompressedBytes
    if (s.decider instanceof RatioDecider) m.qHat = s.decider.qHat
    m.dataBytes = sum.dataBytes
    m.indexBytes = sum.indexBytes
    m.filterBytes = sum.filterBytes > 0 ? sum.filterBytes + 5 : 0
    m.dictBytes = sum.dictBytes
    m.fileBytes = sum.fileSize
  }
  finishStoredTiming(storedReads)
  return {
    results: states.map((s) => s.m),
    skipped,
    dictionaries: Object.fromEntries([...built].filter(([id]) => task.configs.some((c) => c.id === id))),
    stored: storedReads && skipped.length === 0 ? storedReads : undefined,
    entries,
  }
}

/** Every data block of the task's source, in order, to `feed`: from another lane's pass, re-cut, or as stored. */
function readBlocks(
  table: Table,
  task: EvaluateTask,
  reader: FeedReader | undefined,
  feed: Feed,
  skipped: SkippedBlock[],
  storedReads: ReadStats | undefined,
  /** The blocks are re-cut natively (nativeRecutApplies, asked once by the caller). */
  nativeCut: boolean,
): void {
  if (!reader) return feedBlocks(table, task.source, feed, skipped, storedReads, nativeCut)
  for (const batch of reader.batches()) for (const b of batch) feed(b.raw, b.firstKey, b.lastKey, b.stats)
}

/**
 * zstd settings with the content checksum made from the same setting without it (the same level,
 * dictionary and auto-skip strategy none): their frames are the plain ones flagged, with the
 * checksum appended (TableWriter.checksumAheadFrom), so each block is compressed once for both.
 */
function checksumTwins(
  states: ConfigState[],
  dictionaries: Record<number, Uint8Array>,
): { twinOf: Map<ConfigState, ConfigState>; checksumTwin: Map<ConfigState, ConfigState> } {
  const twinOf = new Map<ConfigState, ConfigState>()
  const checksumTwin = new Map<ConfigState, ConfigState>()
  const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
    (a?.length ?? 0) === (b?.length ?? 0) && (!a || !b || a === b || Buffer.compare(a, b) === 0)
  for (const st of states) {
    const c = st.config
    if (c.type !== CompressionType.ZSTD || !c.checksum || st.decider) continue
    const base = states.find(
      (o) =>
        !o.decider &&
        !o.config.checksum &&
        o.config.type === c.type &&
        o.config.level === c.level &&
        o.config.dict === c.dict &&
        !checksumTwin.has(o) &&
        sameBytes(dictionaries[o.config.id], dictionaries[c.id]),
    )
    if (!base) continue
    twinOf.set(st, base)
    checksumTwin.set(base, st)
  }
  return { twinOf, checksumTwin }
}

/** A compressor per configuration for the extra repeats (none for kNoCompression). */
function repeatCompressors(states: ConfigState[], dictionaries: Record<number, Uint8Array>): Map<ConfigState, BlockCompressor | null> {
  const out = new Map<ConfigState, BlockCompressor | null>()
  for (const s of states) {
    const dict = dictionaries[s.config.id]
    out.set(s, s.config.type === CompressionType.None ? null : compressorFor(s.config, s.formatVersion, dict?.length ? dict : undefined))
  }
  return out
}

/** Compress the blocks tried since the last call again, once per extra repeat, each repeat's CPU to its own sum. */
function repeatCompression(s: ConfigState, compressor: BlockCompressor | null, repeat: number): void {
  const raws = s.attempted
  s.attempted = []
  if (!compressor || raws.length === 0) return
  for (let r = 1; r < repeat; r++) {
    const before = compressor.compressNs
    compressor.compressMany(raws)
    s.m.compressMs[r] += (compressor.compressNs - before) / 1e6
  }
}

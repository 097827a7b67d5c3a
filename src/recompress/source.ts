/**
 * Where recompression gets its uncompressed data blocks: the file's own block
 * boundaries, or its entries re-cut into blocks of a given size the way
 * RocksDB's table builder cuts them. Blocks stream one at a time; a corrupt
 * block is recorded and skipped.
 */
import type { Table } from '../table/reader.js'
import type { BlockEntryStats } from '../table/writer.js'
import { ValueType } from '../format/value-type.js'
import { readFixed32 } from '../format/coding.js'
import { sequenceFrom } from '../format/internal-key.js'
import { wholeBlock } from '../rewrite/writer-options.js'
import { ReadWindow } from '../io/byte-source.js'
import { newScratch } from '../codec/output.js'
import { BlockBuilder, BlockIter, DEFAULT_RESTART_INTERVAL } from '../format/block.js'
import type { BlockHandle } from '../format/block-handle.js'
import { FlushBySizePolicy } from '../table/block-builder.js'
import { messageOf } from '../table/layout.js'
import { collectGarbage } from '../util/garbage.js'
import { nativeRecutApplies, recutNative } from './recut-native.js'
import type { EntryPosition, ReadStats, SkippedBlock, SourceOptions } from './source-types.js'
import { storedObserver } from './stored-decompress.js'

export type { EntryPosition, ReadStats, SkippedBlock, SourceOptions } from './source-types.js'

/** A pass over the blocks collects dead buffers (its reads' and decoders') after about this many bytes. */
const COLLECT_EVERY_BYTES = 4 << 20

export interface SourceBlock {
  /** Uncompressed block contents (valid until the next block is produced). */
  readonly data: Uint8Array
  /** Ordinal among all blocks (before sampling). */
  readonly index: number
  /** First and last internal key (re-cut mode only; for the index estimate). */
  readonly firstKey?: Uint8Array
  readonly lastKey?: Uint8Array
  /** Index separator stored for this block (own-boundaries mode). */
  readonly indexKey?: Uint8Array
}

/** Deterministic, evenly spread: block i is kept when the running share crosses an integer. */
export function sampled(i: number, percent: number): boolean {
  if (percent >= 100) return true
  return Math.floor(((i + 1) * percent) / 100) > Math.floor((i * percent) / 100)
}

/** What readDataBlock reuses between calls (its read window and decode buffer). */
type BlockReuse = NonNullable<Parameters<Table['readDataBlock']>[1]>

/** A fresh ReadStats. */
export function emptyReadStats(): ReadStats {
  return { bytes: 0, ms: 0, blocks: 0, storedBytes: 0, compressed: 0, types: [] }
}

/** One stored data block, uncompressed, its read and decode counted in `stats` (and tallied there: `reuse.tally`). */
function readBlock(table: Table, handle: BlockHandle, reuse: BlockReuse, stats: ReadStats | undefined): Uint8Array {
  if (!stats) return table.readDataBlock(handle, reuse)
  const t0 = performance.now()
  const data = table.readDataBlock(handle, reuse)
  stats.ms += performance.now() - t0
  stats.bytes += data.length
  return data
}

export function* sourceBlocks(table: Table, opts: SourceOptions, skipped: SkippedBlock[], stats?: ReadStats): Generator<SourceBlock> {
  if (opts.blockSize === null) {
    let i = 0
    // One reused read window and decode buffer: a pass over the file allocates nothing per block,
    // so memory stays flat (the yielded data is valid until the next block, as documented).
    const reuse = { window: new ReadWindow(table.source), scratch: newScratch(), tally: stats, observe: storedObserver(stats) }
    let sinceCollect = 0
    for (const ref of table.dataBlocks()) {
      const index = i++
      if (!sampled(index, opts.samplePercent)) continue
      let data: Uint8Array
      try {
        data = readBlock(table, ref.handle, reuse, stats)
      } catch (e) {
        skipped.push({ offset: ref.handle.offset, message: messageOf(e) })
        continue
      }
      yield { data, index, indexKey: ref.indexKey }
      sinceCollect += data.length
      if (sinceCollect >= COLLECT_EVERY_BYTES) {
        sinceCollect = 0
        collectGarbage()
      }
    }
    return
  }
  yield* recut(table, opts, skipped)
}

/**
 * The re-cut blocks (re-cut mode, without the global-seqno iterator), each
 * block's first entry recorded in `starts` (by block index: stored block, entry
 * in it), so that recutAt can cut chosen blocks again without the blocks before them.
 */
export function* recutRecording(table: Table, opts: SourceOptions, skipped: SkippedBlock[], starts: EntryPosition[]): Generator<SourceBlock> {
  yield* recut(table, opts, skipped, starts)
}

/** Whether recutRecording can record where each block starts (the stored entries are read as stored). */
export function recutsAsStored(table: Table, opts: SourceOptions): boolean {
  return opts.blockSize !== null && !(opts.applyGlobalSeqno && table.globalSeqno >= 0)
}

/**
 * The re-cut blocks of size `blockSize` that start at `starts` (ascending,
 * from recutRecording), cut again from their first entry exactly as the
 * whole re-cut cuts them (the builder starts empty at every block): only the
 * stored blocks they span are read, the others are passed in the index.
 */
export function* recutAt(
  table: Table,
  blockSize: number,
  starts: readonly EntryPosition[],
  skipped: SkippedBlock[],
  restartInterval = DEFAULT_RESTART_INTERVAL,
  separateKeyValue = false,
): Generator<Uint8Array> {
  const builder = new BlockBuilder(restartInterval, true, false, separateKeyValue)
  const policy = new FlushBySizePolicy(blockSize)
  const reuse = { window: new ReadWindow(table.source), scratch: newScratch() }
  let k = 0
  let active = false
  let block = -1
  let offset = table.indexHandle.offset
  try {
    for (const ref of table.dataBlocks()) {
      block++
      if (!active && (k >= starts.length || starts[k].block !== block)) {
        if (k >= starts.length) break
        continue
      }
      offset = ref.handle.offset
      const it = new BlockIter(table.readDataBlock(ref.handle, reuse), offset, 'data block', table.dataRestartInterval)
      let entry = 0
      for (it.seekToFirst(); it.valid; it.next(), entry++) {
        if (active && policy.shouldFlush(builder, it.key.length, it.value.length)) {
          yield builder.finish()
          active = false
          k++
        }
        if (!active) {
          if (k >= starts.length || starts[k].block !== block || starts[k].entry !== entry) continue
          active = true
        }
        builder.add(it.key, it.value)
      }
    }
  } catch (e) {
    skipped.push({ offset, message: `${messageOf(e)}; entries after this point were not evaluated` })
    return
  }
  if (active && !builder.empty) yield builder.finish()
}

/**
 * The file's entries in order, block after block, read through one reused
 * window and decode buffer: unlike the table's iterator, a pass allocates
 * nothing per block or MiB read, so it leaves no garbage behind (see
 * util/garbage.ts). With `applyGlobalSeqno` an ingested file's keys are
 * patched as RocksDB's table reader patches them (through the iterator).
 * Stops at the first unreadable block or entry, recording it. Each yielded
 * entry is valid until the next.
 */
export function* storedEntries(
  table: Table,
  skipped: SkippedBlock[],
  applyGlobalSeqno: boolean,
  stats?: ReadStats,
  at?: EntryPosition,
): Generator<{ key: Uint8Array; value: Uint8Array }> {
  if (applyGlobalSeqno && table.globalSeqno >= 0) {
    const it = table.iterator({ applyGlobalSeqno: true })
    try {
      for (it.seekToFirst(); it.valid; it.next()) yield it
    } catch (e) {
      skipped.push({ offset: it.blockHandle?.offset ?? -1, message: `${messageOf(e)}; entries after this point were not evaluated` })
    }
    return
  }
  const reuse = { window: new ReadWindow(table.source), scratch: newScratch(), tally: stats, observe: storedObserver(stats) }
  let offset = table.indexHandle.offset
  try {
    for (const ref of table.dataBlocks()) {
      offset = ref.handle.offset
      const it = new BlockIter(readBlock(table, ref.handle, reuse, stats), offset, 'data block', table.dataRestartInterval)
      if (at) at.entry = 0
      for (it.seekToFirst(); it.valid; it.next()) {
        yield it
        if (at) at.entry++
      }
      if (at) at.block++
    }
  } catch (e) {
    skipped.push({ offset, message: `${messageOf(e)}; entries after this point were not evaluated` })
  }
}

/** The block builder of re-cut blocks under these options. */
export function recutBuilder(opts: Pick<SourceOptions, 'restartInterval' | 'separateKeyValue'>): BlockBuilder {
  return new BlockBuilder(opts.restartInterval ?? DEFAULT_RESTART_INTERVAL, true, false, opts.separateKeyValue ?? false)
}

function* recut(table: Table, opts: SourceOptions, skipped: SkippedBlock[], starts?: EntryPosition[]): Generator<SourceBlock> {
  if (nativeRecutApplies(table, opts)) {
    let index = 0
    let sinceCollect = 0
    for (const b of recutNative(table, opts, skipped)) {
      starts?.push(b.start)
      if (sampled(index, opts.samplePercent)) yield { data: b.data, index, firstKey: b.firstKey, lastKey: b.lastKey }
      index++
      sinceCollect += b.data.length
      if (sinceCollect >= COLLECT_EVERY_BYTES) {
        sinceCollect = 0
        collectGarbage()
      }
    }
    return
  }
  const builder = recutBuilder(opts)
  const policy = new FlushBySizePolicy(opts.blockSize!)
  let index = 0
  let firstKey: Uint8Array | undefined
  // The last key is copied into one reused buffer per entry, and sliced once per block.
  let lastKey = new Uint8Array(64)
  let lastLength = 0
  let sinceCollect = 0
  const finish = (): SourceBlock | null => {
    const data = builder.finish()
    const block = sampled(index, opts.samplePercent) ? { data, index, firstKey, lastKey: lastKey.slice(0, lastLength) } : null
    index++
    firstKey = undefined
    sinceCollect += data.length
    if (sinceCollect >= COLLECT_EVERY_BYTES) {
      sinceCollect = 0
      collectGarbage()
    }
    return block
  }
  const at: EntryPosition | undefined = starts ? { block: 0, entry: 0 } : undefined
  for (const it of storedEntries(table, skipped, opts.applyGlobalSeqno ?? false, undefined, at)) {
    const key = it.key
    if (policy.shouldFlush(builder, key.length, it.value.length)) {
      const block = finish()
      if (block) yield block
    }
    if (at && builder.empty) starts!.push({ block: at.block, entry: at.entry })
    builder.add(key, it.value)
    firstKey ??= key.slice()
    if (lastKey.length < key.length) lastKey = new Uint8Array(key.length * 2)
    lastKey.set(key)
    lastLength = key.length
  }
  if (!builder.empty) {
    const block = finish()
    if (block) yield block
  }
}

/** What a pass hands each data block to: its contents, first and last key, and its entries counted. */
export type Feed = (raw: Uint8Array, firstKey: Uint8Array, lastKey: Uint8Array, stats: BlockEntryStats) => void

/** Every data block of `table` under `opts`, in order, to `feed`: re-cut (natively where `nativeCut`: nativeRecutApplies) or as stored. */
export function feedBlocks(
  table: Table,
  opts: SourceOptions,
  feed: Feed,
  skipped: SkippedBlock[],
  storedReads: ReadStats | undefined,
  nativeCut: boolean,
): void {
  if (nativeCut) {
    for (const b of recutNative(table, opts, skipped, storedReads, true)) feed(b.data, b.firstKey, b.lastKey, b.stats)
  } else if (opts.blockSize !== null) {
    // Cut the blocks once, as RocksDB's builder cuts them, and hand every writer the same blocks.
    const builder = recutBuilder(opts)
    const policy = new FlushBySizePolicy(opts.blockSize)
    let firstKey: Uint8Array | null = null
    let lastKey = new Uint8Array(64)
    let lastLength = 0
    let stats = emptyStats()
    const flush = () => {
      feed(builder.finish(), firstKey!, lastKey.slice(0, lastLength), stats)
      firstKey = null
      stats = emptyStats()
    }
    for (const it of storedEntries(table, skipped, opts.applyGlobalSeqno ?? false, storedReads)) {
      const key = it.key
      const value = it.value
      if (policy.shouldFlush(builder, key.length, value.length)) flush()
      builder.add(key, value)
      firstKey ??= key.slice()
      if (lastKey.length < key.length) lastKey = new Uint8Array(key.length * 2)
      lastKey.set(key)
      lastLength = key.length
      countEntry(stats, key, value.length)
    }
    if (!builder.empty) flush()
  } else {
    for (const block of sourceBlocks(table, opts, skipped, storedReads)) {
      const whole = wholeBlock(block.data, 0, table.dataRestartInterval)
      if (whole) feed(block.data.slice(), whole.first, whole.last, whole.stats)
    }
  }
}

function emptyStats(): BlockEntryStats {
  return { entries: 0, deletions: 0, merges: 0, rawKeyBytes: 0, rawValueBytes: 0, smallestSeq: null, largestSeq: null }
}

/** Count one entry from its internal key's trailer, without building objects. */
function countEntry(s: BlockEntryStats, key: Uint8Array, valueLength: number): void {
  const n = key.length
  const type = key[n - 8]
  s.entries++
  s.rawKeyBytes += n
  s.rawValueBytes += valueLength
  if (type === ValueType.Deletion || type === ValueType.SingleDeletion || type === ValueType.DeletionWithTimestamp) s.deletions++
  else if (type === ValueType.Merge) s.merges++
  const seq = sequenceFrom(readFixed32(key, n - 8), readFixed32(key, n - 4))
  if (s.smallestSeq === null || seq < s.smallestSeq) s.smallestSeq = seq
  if (s.largestSeq === null || seq > s.largestSeq) s.largestSeq = seq
}

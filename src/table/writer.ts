/**
 * Writing a block-based table the way RocksDB's BlockBasedTableBuilder does
 * (`table/block_based/block_based_table_builder.cc`), in its order:
 *
 *   data blocks | filter | index (partitions, then top level) | compression dictionary
 *   | range deletions | properties | metaindex | footer
 *
 * Data blocks are cut by size, compressed under the acceptance rule (a block
 * that does not shrink enough is stored raw), and checksummed with the
 * format_version >= 6 context modifier where it applies. With a dictionary,
 * blocks are buffered (up to max_dict_buffer_bytes) until the dictionary is
 * built from samples chosen as RocksDB chooses them, then written in order.
 *
 * Output goes to a sink (a file descriptor, or a byte counter for size
 * estimates); nothing is held beyond the dictionary buffer (spilled to a
 * temporary file past 4 MiB when `spill` says where) and one block.
 */
import { requireBytes } from '../format/coding.js'
import { blockChecksum, contextModifier } from '../codec/checksum.js'
import { attemptsCompression, BlockCompressor, keepsCompressed } from '../codec/block-compressor.js'
import { compressBlock } from '../codec/compression.js'
import { withPeakLock } from '../codec/peak-lock.js'
import { collectGarbage } from '../util/garbage.js'
import { trimMallocArenas } from '../util/malloc.js'
import { effectiveLevel } from '../codec/setting.js'
import { CompressionType } from '../format/compression-type.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import type { BlockHandle } from '../format/block-handle.js'
import { encodeFooter, FOOTER_BYTES, LATEST_FORMAT_VERSION } from '../format/footer.js'
import { INTERNAL_KEY_TRAILER_BYTES, parseInternalKey } from '../format/internal-key.js'
import { COMPRESSION_DICT_BLOCK, encodeMetaindex, INDEX_BLOCK, type MetaindexEntry, PROPERTIES_BLOCK, RANGE_DEL_BLOCK } from '../format/metaindex.js'
import { ValueType } from '../format/value-type.js'
import { BlockBuilder } from '../format/block.js'
import { AheadBlocks } from './ahead.js'
import { BlockSpill, type HeldBlock } from './block-spill.js'
import { FlushBySizePolicy } from './block-builder.js'
import { ShortenedIndexBuilder } from '../format/index-block.js'
import { dictionaryFromSamples, planSamples, sampleBudget, zstdDictionaryId } from './compression-dict.js'
import { encodeProperties, encodePropertyNumber, encodePropertyString, Property } from '../format/properties.js'
import { compressionProperty, noBlockCompression, type TableSink, type WriteSummary } from './writer-output.js'
export {
  compressionProperty,
  CountingSink,
  FileSink,
  noBlockCompression,
  type BlockCompressionCounts,
  type TableSink,
  type WriteSummary,
} from './writer-output.js'
import {
  type BlockEntryStats,
  type TableWriterOptions,
  type AheadBatch,
  indexBuilderOptions,
  compressionOptionsProperty,
  layoutProperties,
  AHEAD_BLOCKS,
} from './writer-options.js'
export {
  type WriterDictMode,
  type BlockEntryStats,
  type TableWriterOptions,
  type AheadBatch,
  AHEAD_BLOCKS,
  plainWriterOptions,
  indexBuilderOptions,
  compressionOptionsProperty,
} from './writer-options.js'

export class TableWriter {
  private offset = 0
  private readonly base: number
  private readonly dataBuilder: BlockBuilder
  private readonly flush: FlushBySizePolicy
  private readonly index: ShortenedIndexBuilder | null
  /** With a separator log: each indexed data block's size (offsets follow: blocks are contiguous from `firstBlockOffset`). */
  private blockSizes: Uint32Array | null = null
  private indexed = 0
  private firstBlockOffset = 0
  private partitioned: {
    partitions: { lastKey: Uint8Array; handle: BlockHandle | null; block: Uint8Array | null }[]
    current: ShortenedIndexBuilder
    policy: FlushBySizePolicy
    estimate: number
  } | null = null
  private readonly rangeDel = new BlockBuilder(1)
  /** Entries were added one by one (add()): the data blocks are this writer's, in its layout. */
  private builtBlocks = false
  private rangeDeletions = 0
  private lastKey: Uint8Array | null = null
  private buffered: BlockSpill | null = null
  private bufferedBytes = 0
  private blockFirstKey: Uint8Array | null = null
  private dictionary: Uint8Array = new Uint8Array(0)
  /** Data blocks (with the dictionary, once built). */
  private dataCompressor: BlockCompressor | null = null
  private readonly usedTypes = new Set<number>()
  private readonly stats = {
    entries: 0,
    deletions: 0,
    merges: 0,
    rawKeyBytes: 0,
    rawValueBytes: 0,
    dataBlocks: 0,
    ...noBlockCompression(),
    dataBytes: 0,
    smallestSeq: null as number | bigint | null,
    largestSeq: null as number | bigint | null,
  }

  constructor(
    private readonly sink: TableSink,
    private readonly o: TableWriterOptions,
  ) {
    if (o.formatVersion < 2 || o.formatVersion > LATEST_FORMAT_VERSION)
      throw new RangeError(`format_version ${o.formatVersion} cannot be written (2..${LATEST_FORMAT_VERSION})`)
    // Any value but 0 (RocksDB's own generator; not secret): without node:crypto's load (newSessionId).
    this.base = o.formatVersion >= 6 ? 1 + Math.floor(Math.random() * 0xfffffffe) : 0
    this.ahead = new AheadBlocks(o)
    this.dataBuilder = new BlockBuilder(o.restartInterval, true, false, o.separateKeyValue === true)
    this.flush = new FlushBySizePolicy(o.blockSize)
    const indexOpts = indexBuilderOptions(o)
    const logged = o.separatorLog !== undefined && o.index === 'binary'
    this.index = logged ? null : new ShortenedIndexBuilder(indexOpts)
    if (logged) this.blockSizes = new Uint32Array(1024)
    if (o.index === 'partitioned') {
      this.partitioned = { partitions: [], current: new ShortenedIndexBuilder(indexOpts), policy: new FlushBySizePolicy(o.metadataBlockSize), estimate: 0 }
    }
    if (o.dictionary && o.dictionary.length > 0) this.dictionary = o.dictionary
    else if (o.dict !== 'none' && o.compressionType !== CompressionType.None && o.maxDictBytes > 0)
      this.buffered = new BlockSpill(o.spill?.dir ?? null, o.spill?.memoryBytes)
    if (!this.buffered) this.dataCompressor = new BlockCompressor(o, o.formatVersion, this.dictionary)
  }

  /** Add a point entry; internal keys must come in order. */
  add(key: Uint8Array, value: Uint8Array): void {
    requireBytes(key, 'TableWriter.add: the internal key')
    requireBytes(value, 'TableWriter.add: the value')
    if (this.flush.shouldFlush(this.dataBuilder, key.length, value.length)) this.finishDataBlock(key)
    this.dataBuilder.add(key, value)
    this.builtBlocks = true
    this.blockFirstKey ??= key.slice()
    this.lastKey = key.slice()
    const p = parseInternalKey(key)
    const s = this.stats
    s.entries++
    s.rawKeyBytes += key.length
    s.rawValueBytes += value.length
    if (p.type === ValueType.Deletion || p.type === ValueType.SingleDeletion || p.type === ValueType.DeletionWithTimestamp) s.deletions++
    if (p.type === ValueType.Merge) s.merges++
    this.noteSeq(p.seq)
  }

  /** Add a range tombstone as stored (internal start key, end user key). */
  addRangeTombstone(internalStartKey: Uint8Array, endUserKey: Uint8Array): void {
    this.rangeDel.add(internalStartKey, endUserKey)
    this.rangeDeletions++
    this.stats.entries++
    this.stats.deletions++
    this.stats.rawKeyBytes += internalStartKey.length
    this.stats.rawValueBytes += endUserKey.length
    this.noteSeq(parseInternalKey(internalStartKey).seq)
  }

  private noteSeq(seq: number | bigint): void {
    const s = this.stats
    if (s.smallestSeq === null || seq < s.smallestSeq) s.smallestSeq = seq
    if (s.largestSeq === null || seq > s.largestSeq) s.largestSeq = seq
  }

  private finishDataBlock(nextKey: Uint8Array | null): void {
    if (this.dataBuilder.empty) return
    const block = this.dataBuilder.finish()
    const first = this.blockFirstKey!
    const last = this.lastKey!
    this.blockFirstKey = null
    if (this.buffered) {
      this.buffered.push({ block, first, last })
      this.bufferedBytes += block.length
      if (this.o.maxDictBufferBytes !== 0 && this.bufferedBytes > this.o.maxDictBufferBytes) this.enterUnbuffered(nextKey)
      return
    }
    this.emitDataBlock(block, last, nextKey)
  }

  /**
   * Add a whole, already-built data block (keeping a file's own block
   * boundaries). Its first and last internal keys place it in the index;
   * `stats` are its entries' counts for the properties block.
   */
  addDataBlock(raw: Uint8Array, firstKey: Uint8Array, lastKey: Uint8Array, stats: BlockEntryStats): void {
    if (!this.dataBuilder.empty) throw new Error('addDataBlock cannot follow add() in the same table')
    this.releaseHeld(firstKey)
    this.held = { raw, first: firstKey, last: lastKey }
    const s = this.stats
    s.entries += stats.entries
    s.deletions += stats.deletions
    s.merges += stats.merges
    s.rawKeyBytes += stats.rawKeyBytes
    s.rawValueBytes += stats.rawValueBytes
    if (stats.smallestSeq !== null) this.noteSeq(stats.smallestSeq)
    if (stats.largestSeq !== null) this.noteSeq(stats.largestSeq)
  }

  /** A whole block waits for the next one's first key (its index separator needs it). */
  private held: { raw: Uint8Array; first: Uint8Array; last: Uint8Array } | null = null

  private releaseHeld(nextKey: Uint8Array | null): void {
    const h = this.held
    if (!h) return
    this.held = null
    if (this.buffered) {
      this.buffered.push({ block: h.raw, first: h.first, last: h.last })
      this.bufferedBytes += h.raw.length
      if (this.o.maxDictBufferBytes !== 0 && this.bufferedBytes > this.o.maxDictBufferBytes) this.enterUnbuffered(nextKey)
      return
    }
    this.emitDataBlock(h.raw, h.last, nextKey)
  }

  /** Write a finished data block and add its index entry (deferred until the next block's first key is known). */
  private emitDataBlock(block: Uint8Array, lastKey: Uint8Array, nextKey: Uint8Array | null): void {
    const handle = this.writeDataBlock(block)
    this.addIndexEntry(lastKey, nextKey, handle)
  }

  private addIndexEntry(lastKey: Uint8Array, nextKey: Uint8Array | null, handle: BlockHandle): void {
    const p = this.partitioned
    if (this.blockSizes) {
      this.logBlock(lastKey, nextKey, handle)
      return
    }
    if (!p) {
      this.index!.add(lastKey, nextKey, handle)
      return
    }
    p.current.add(lastKey, nextKey, handle)
    p.estimate += lastKey.length + 12
    // Cut index partitions near metadata_block_size (PartitionedIndexBuilder).
    if (p.estimate >= this.o.metadataBlockSize || nextKey === null) {
      p.partitions.push({ lastKey, handle: null, block: p.current.finish() })
      p.current = new ShortenedIndexBuilder({
        userKeys: this.o.formatVersion >= 3,
        deltaValues: this.o.formatVersion >= 4,
        valueTypeForSeek: 0x18,
        shorten: this.o.shortenSeparators ?? true,
      })
      p.estimate = 0
    }
  }

  private logBlock(lastKey: Uint8Array, nextKey: Uint8Array | null, handle: BlockHandle): void {
    const i = this.indexed
    if (i === 0) this.firstBlockOffset = handle.offset
    else if (handle.offset !== this.blockOffset(i - 1) + this.blockSizes![i - 1] + BLOCK_TRAILER_BYTES)
      throw new Error(`TableWriter: data block ${i} at ${handle.offset} does not follow the previous one`)
    this.o.separatorLog!.note(i, lastKey, nextKey)
    if (i === this.blockSizes!.length) {
      const grown = new Uint32Array(i * 2)
      grown.set(this.blockSizes!)
      this.blockSizes = grown
    }
    this.blockSizes![i] = handle.size
    this.lastOffset = handle.offset
    this.indexed++
  }

  /** Offset of logged block i: only the last one's is kept (blocks are contiguous), and i is always the last here. */
  private lastOffset = 0
  private blockOffset(i: number): number {
    if (i !== this.indexed - 1) throw new Error('TableWriter.blockOffset: only the last logged block')
    return this.lastOffset
  }

  private enterUnbuffered(nextKey: Uint8Array | null): void {
    const blocks = this.buffered!
    this.buffered = null
    try {
      this.dictionary = this.buildDictionary(blocks)
      const c = new BlockCompressor(this.o, this.o.formatVersion, this.dictionary)
      this.dataCompressor = c
      const batched = c.batched && !this.o.skip
      // Blocks are taken AHEAD_BLOCKS at a time (compressed in one batch where the kernel does the setting).
      let chunk: HeldBlock[] = []
      let chunkStart = 0
      const blockAt = (k: number): HeldBlock => {
        if (k >= chunkStart + chunk.length) {
          chunkStart = k
          chunk = []
          for (let j = k; j < Math.min(blocks.count, k + AHEAD_BLOCKS); j++) chunk.push(blocks.get(j))
          if (batched)
            this.ahead.compress(
              c,
              chunk.map((h) => h.block),
            )
        }
        return chunk[k - chunkStart]
      }
      // Each block's index entry needs the next block's first key: read one ahead.
      for (let i = 0; i < blocks.count; i++) {
        const held = blockAt(i)
        const next = i + 1 < blocks.count ? blockAt(i + 1) : null
        this.emitDataBlock(held.block, held.last, next ? next.first : nextKey)
      }
    } finally {
      blocks.close()
    }
  }

  /** Give up: release what buffering holds (a temporary file of spilled blocks). */
  abort(): void {
    this.buffered?.close()
    this.buffered = null
    this.ahead.clear()
    this.dataCompressor?.close()
  }

  private buildDictionary(blocks: BlockSpill): Uint8Array {
    const o = this.o
    const plan = planSamples([...blocks.blockSizes], sampleBudget(o.dict, o.compressionType, o.maxDictBytes, o.trainBytes))
    const total = plan.reduce((a, p) => a + p.take, 0)
    const samples = new Uint8Array(total)
    for (const p of plan) samples.set(blocks.get(p.block).block.subarray(0, p.take), p.at)
    // The level matters to finalize only, which is zstd's.
    return dictionaryFromSamples(
      o.dict,
      o.compressionType,
      samples,
      plan.map((p) => p.take),
      o.maxDictBytes,
      effectiveLevel(CompressionType.ZSTD, o.level)!,
    )
  }

  private compress(raw: Uint8Array, withDictionary: boolean): { payload: Uint8Array; type: number; ns: number } {
    const t = this.o.compressionType
    const { maxCompressedBytesPerKb: perKb, acceptance } = this.o
    if (t === CompressionType.None || !attemptsCompression(raw.length, perKb, acceptance)) return { payload: raw, type: 0, ns: 0 }
    let framed: Uint8Array
    let ns = 0
    const ahead = withDictionary ? this.ahead.take(raw) : undefined
    if (ahead) {
      framed = ahead.payload
      ns = ahead.ns
    } else if (withDictionary) {
      const c = this.dataCompressor!
      const before = c.compressNs
      framed = c.compress(raw)
      ns = c.compressNs - before
    } else {
      framed = compressIndexBlock(raw, this.o)
    }
    if (!keepsCompressed(framed.length, raw.length, perKb, acceptance)) return { payload: raw, type: -1, ns }
    return { payload: framed, type: t, ns }
  }

  /** Data blocks compressed ahead (compressAhead, submitAhead), by block: the payload and its share of the batch's CPU. */
  private readonly ahead: AheadBlocks

  /** The data compressor when batches go ahead of addDataBlock: not while blocks are buffered for a dictionary, nor under auto-skip (which decides per block). */
  private aheadCompressor(): BlockCompressor | null {
    const c = this.dataCompressor
    return c && !this.buffered && !this.o.skip && this.o.compressionType !== CompressionType.None && c.batched ? c : null
  }

  /**
   * Compress data blocks about to be added (addDataBlock, these very arrays) in one batch: through
   * the codec kernel where it does the setting, the batch timed as one (codec/kernel.ts). Does
   * nothing while blocks are buffered for a dictionary, under auto-skip (which decides per block),
   * or where the kernel does not do the setting; the blocks are then compressed one by one as added.
   * Into a counting sink, which keeps nothing, the payloads (those onDataBlock sees too) live in two
   * arrays the compressor reuses in turn: each is valid until the compressAhead after next.
   */
  compressAhead(raws: readonly Uint8Array[]): AheadBatch | null {
    const c = this.aheadCompressor()
    return c ? this.ahead.compress(c, raws, this.sink.countsOnly === true) : null
  }

  /**
   * As compressAhead, but the batch goes to a lent core (BlockCompressor.submitMany) and this call
   * returns at once: true when it was taken, collectAhead() then keeping the payloads, to be called
   * before these blocks are added. False where compressAhead would do nothing or no core took it.
   */
  submitAhead(raws: readonly Uint8Array[]): boolean {
    const c = this.aheadCompressor()
    return c !== null && this.ahead.submit(c, raws)
  }

  /** The batch submitAhead handed out, compressed (waited for), kept as compressAhead keeps its own. */
  collectAhead(): AheadBatch {
    return this.ahead.collect(this.dataCompressor!, this.sink.countsOnly === true)
  }

  /**
   * As compressAhead, for zstd with the content checksum, from the batch another writer of the same
   * setting without it compressed ahead (`plain`, the same blocks): its frames, flagged and
   * checksummed (BlockCompressor.withChecksumFrom), instead of compressing them again. False where
   * that cannot be done (the blocks are then compressed as added).
   */
  checksumAheadFrom(plain: AheadBatch): boolean {
    const c = this.dataCompressor
    if (!c || this.buffered || this.o.skip || !c.batched) return false
    return this.ahead.checksumFrom(c, plain, this.sink.countsOnly === true)
  }

  /**
   * Observes each data block's compression: recompress times it and checks the round trip.
   * `compressMs` is the block's compression CPU (its share of its batch's where compressed ahead);
   * `attempted` whether compression was tried at all. A payload compressed ahead into a counting
   * sink is valid until the compressAhead after next (compressAhead).
   */
  onDataBlock?: (raw: Uint8Array, compressed: Uint8Array | null, compressMs: number, attempted: boolean) => void

  private writeDataBlock(raw: Uint8Array): BlockHandle {
    if (this.o.skip && this.o.compressionType !== CompressionType.None && !this.o.skip.attempt()) {
      // Auto-skip: stored raw without trying, counted as bypassed.
      this.onDataBlock?.(raw, null, 0, false)
      this.stats.dataBlocks++
      this.stats.blocksBypassed++
      const h = this.writeBlock(raw, 0)
      this.stats.dataBytes += h.size + BLOCK_TRAILER_BYTES
      return h
    }
    const { payload, type, ns } = this.compress(raw, true)
    this.onDataBlock?.(raw, type > 0 ? payload : null, ns / 1e6, type !== 0)
    if (type === 0) this.stats.blocksBypassed++
    else this.o.skip?.record(type < 0, payload.length, raw.length)
    const s = this.stats
    s.dataBlocks++
    if (type > 0) {
      s.blocksCompressed++
      this.usedTypes.add(type)
    } else if (type < 0) s.blocksRejected++
    const h = this.writeBlock(payload, Math.max(0, type))
    s.dataBytes += h.size + BLOCK_TRAILER_BYTES
    return h
  }

  /** Write payload + trailer; returns its handle. */
  private writeBlock(payload: Uint8Array, type: number): BlockHandle {
    const handle = { offset: this.offset, size: payload.length }
    const trailer = new Uint8Array(BLOCK_TRAILER_BYTES)
    trailer[0] = type
    if (!this.sink.countsOnly) {
      const withType = new Uint8Array(payload.length + 1)
      withType.set(payload)
      withType[payload.length] = type
      let checksum = blockChecksum(this.o.checksumType, withType)
      if (this.o.formatVersion >= 6) checksum = (checksum + contextModifier(this.base, handle.offset)) >>> 0
      new DataView(trailer.buffer).setUint32(1, checksum, true)
    }
    this.sink.write(payload)
    this.sink.write(trailer)
    this.offset += payload.length + BLOCK_TRAILER_BYTES
    return handle
  }

  private writeMaybeCompressed(raw: Uint8Array): BlockHandle {
    const { payload, type } = this.o.indexCompression === false ? { payload: raw, type: 0 } : this.compress(raw, false)
    if (type > 0) this.usedTypes.add(type)
    this.stats.indexUncompressedBytes += raw.length
    if (type > 0) this.stats.indexBlocksCompressed++
    else if (type < 0) this.stats.indexBlocksRejected++
    return this.writeBlock(payload, Math.max(0, type))
  }

  /** Compress once without writing: the first frame allocates codec state, which should not be timed. */
  warmUp(raw: Uint8Array): void {
    if (!this.buffered && raw.length > 0) this.compress(raw, true)
  }

  /** The smallest and largest sequence numbers added (decimal; null before any entry): a MANIFEST records them. */
  get seqnoRange(): { smallest: string; largest: string } | null {
    const s = this.stats
    return s.smallestSeq === null || s.largestSeq === null ? null : { smallest: String(s.smallestSeq), largest: String(s.largestSeq) }
  }

  /** No entry (point or range tombstone) added yet. */
  get isEmpty(): boolean {
    return this.stats.entries === 0
  }

  /** The dictionary in use (built or given); empty until built. */
  get dictionaryBytes(): Uint8Array {
    return this.dictionary
  }

  finish(): WriteSummary {
    // The block under construction (or a held whole block), then any still-buffered blocks.
    this.finishDataBlock(null)
    this.releaseHeld(null)
    if (this.buffered) this.enterUnbuffered(null)
    this.ahead.clear()
    this.dataCompressor?.close()
    const tailStart = this.offset
    const meta: MetaindexEntry[] = []
    let filterBytes = 0
    if (this.o.filter) {
      const h = this.writeBlock(this.o.filter.bytes, 0)
      meta.push({ name: this.o.filter.metaName, handle: h })
      filterBytes = this.o.filter.bytes.length
    }
    // Index.
    let indexHandle: BlockHandle
    let indexSize: number
    let indexProperty: number | null = null
    let partitions = 0
    let topLevelSize = 0
    let keysAreUserKeys: boolean
    if (this.partitioned) {
      const p = this.partitioned
      if (p.current.entries > 0) p.partitions.push({ lastKey: this.lastKey!, handle: null, block: p.current.finish() })
      const top = new ShortenedIndexBuilder({ userKeys: this.o.formatVersion >= 3, deltaValues: this.o.formatVersion >= 4, valueTypeForSeek: 0x18 })
      indexSize = 0
      for (const part of p.partitions) {
        part.handle = this.writeMaybeCompressed(part.block!)
        indexSize += part.handle.size + BLOCK_TRAILER_BYTES
        part.block = null
      }
      for (const part of p.partitions) top.add(part.lastKey, null, part.handle!)
      const topBlock = top.finish()
      indexHandle = this.writeMaybeCompressed(topBlock)
      topLevelSize = indexHandle.size
      indexSize += indexHandle.size
      partitions = p.partitions.length
      keysAreUserKeys = this.o.formatVersion >= 3 && top.keysAreUserKeys
    } else {
      let block: Uint8Array
      if (this.blockSizes) {
        const sizes = this.blockSizes
        let offset = this.firstBlockOffset
        const built = this.o.separatorLog!.build(this.indexed, (i) => {
          const h = { offset, size: sizes[i] }
          offset += sizes[i] + BLOCK_TRAILER_BYTES
          return h
        })
        this.blockSizes = null
        block = built.block
        keysAreUserKeys = built.keysAreUserKeys
      } else {
        block = this.index!.finish()
        keysAreUserKeys = this.index!.keysAreUserKeys
      }
      indexHandle = this.writeMaybeCompressed(block)
      indexSize = indexHandle.size + BLOCK_TRAILER_BYTES
      // RocksDB records the index block's uncompressed size (ShortenedIndexBuilder::IndexSize) + trailer.
      indexProperty = block.length + BLOCK_TRAILER_BYTES
    }
    if (this.o.formatVersion >= 6) meta.push({ name: INDEX_BLOCK, handle: indexHandle })
    let dictBytes = 0
    if (this.dictionary.length > 0) {
      meta.push({ name: COMPRESSION_DICT_BLOCK, handle: this.writeBlock(this.dictionary, 0) })
      dictBytes = this.dictionary.length + BLOCK_TRAILER_BYTES
    }
    if (this.rangeDeletions > 0) meta.push({ name: RANGE_DEL_BLOCK, handle: this.writeBlock(this.rangeDel.finish(), 0) })

    const s = this.stats
    const props = new Map(this.o.baseProperties)
    for (const name of this.o.dropProperties ?? []) props.delete(name)
    const num = (name: string, v: number | bigint) => props.set(name, encodePropertyNumber(v))
    const str = (name: string, v: string) => props.set(name, encodePropertyString(v))
    num(Property.DataSize, s.dataBytes)
    num(Property.IndexSize, indexProperty ?? indexSize)
    props.delete(Property.IndexPartitions)
    props.delete(Property.TopLevelIndexSize)
    if (partitions > 0) {
      num(Property.IndexPartitions, partitions)
      num(Property.TopLevelIndexSize, topLevelSize)
    }
    num(Property.IndexKeyIsUserKey, keysAreUserKeys ? 1 : 0)
    num(Property.IndexValueIsDeltaEncoded, this.o.formatVersion >= 4 ? 1 : 0)
    num(Property.NumEntries, s.entries)
    num(Property.DeletedKeys, s.deletions)
    num(Property.MergeOperands, s.merges)
    num(Property.NumRangeDeletions, this.rangeDeletions)
    num(Property.NumDataBlocks, s.dataBlocks)
    num(Property.RawKeySize, s.rawKeyBytes)
    num(Property.RawValueSize, s.rawValueBytes)
    num(Property.FilterSize, filterBytes)
    if (!this.o.filter) num(Property.NumFilterEntries, 0)
    num(Property.FormatVersion, this.o.formatVersion)
    if (props.has(Property.TailStartOffset) || this.o.formatVersion >= 6) num(Property.TailStartOffset, tailStart)
    if (this.o.formatVersion >= 7 && s.smallestSeq !== null) {
      num(Property.KeySmallestSeqno, s.smallestSeq)
      num(Property.KeyLargestSeqno, s.largestSeq!)
    }
    // Written when non-zero (RocksDB 11.8 counts the blocks of a table without compression as bypassed too); the source's count is not ours.
    props.delete(Property.NumDataBlocksCompressionRejected)
    props.delete(Property.NumDataBlocksCompressionBypassed)
    if (s.blocksRejected > 0 && this.o.formatVersion >= 7) num(Property.NumDataBlocksCompressionRejected, s.blocksRejected)
    if (s.blocksBypassed > 0 && this.o.formatVersion >= 7) num(Property.NumDataBlocksCompressionBypassed, s.blocksBypassed)
    // Blocks built here are in the layout asked for (inline by default); whole blocks keep the source's word unless told.
    layoutProperties(props, { ...this.o, separateKeyValue: this.o.separateKeyValue ?? (this.builtBlocks ? false : undefined) })
    str(Property.Compression, compressionProperty(this.o.formatVersion, this.o.compressionType, this.usedTypes))
    str(Property.CompressionOptions, compressionOptionsProperty(this.o))
    // The index type user property follows the index actually written.
    const indexType = new Uint8Array(4)
    new DataView(indexType.buffer).setUint32(0, this.partitioned ? 2 : 0, true)
    props.set(Property.BlockBasedTableIndexType, indexType)

    meta.push({ name: PROPERTIES_BLOCK, handle: this.writeBlock(encodeProperties(props), 0) })
    const metaindexHandle = this.writeBlock(encodeMetaindex(meta), 0)
    this.writeFooter(metaindexHandle, indexHandle)
    // Its codec contexts are native memory V8 does not see: let them go with the finished table, not with the writer object.
    this.dataCompressor = null
    return {
      fileSize: this.offset,
      dataBlocks: s.dataBlocks,
      blocksCompressed: s.blocksCompressed,
      blocksRejected: s.blocksRejected,
      blocksBypassed: s.blocksBypassed,
      indexBlocksCompressed: s.indexBlocksCompressed,
      indexBlocksRejected: s.indexBlocksRejected,
      indexUncompressedBytes: s.indexUncompressedBytes,
      dataBytes: s.dataBytes,
      indexBytes: indexSize,
      filterBytes,
      dictBytes,
      entries: s.entries - this.rangeDeletions,
      rangeDeletions: this.rangeDeletions,
      indexPartitions: partitions,
      dictionaryId: zstdDictionaryId(this.dictionary),
    }
  }

  private writeFooter(metaindex: BlockHandle, index: BlockHandle): void {
    const footerOffset = this.offset
    const f = encodeFooter(
      {
        checksumType: this.o.checksumType,
        formatVersion: this.o.formatVersion,
        metaindexHandle: metaindex,
        indexHandle: index,
        baseContextChecksum: this.base,
      },
      (footer) => (blockChecksum(this.o.checksumType, footer) + contextModifier(this.base, footerOffset)) >>> 0,
    )
    this.sink.write(f)
    this.offset += FOOTER_BYTES
  }
}

export { INTERNAL_KEY_TRAILER_BYTES }

/** Index blocks from this size are compressed holding the peak lock (codec/peak-lock.ts). */
const LARGE_INDEX_BYTES = 64 << 10

/**
 * Dead buffers a thread may hold when it compresses a large index block: more are collected first.
 * At 0 every such block cost a full collection, one per setting (recompress's default matrix on
 * an 8 MB file: 56 of its 70, their pauses ~0.6 s of 33 s of CPU by --trace-gc); at 2 MiB, 19 in
 * all, peak RSS 128 MB against 124 (commit 6368d48, 2026-12-06, two runs each).
 */
const INDEX_COLLECT_GROWTH_BYTES = 2 << 20

/**
 * An index block compressed as RocksDB compresses it (no dictionary). zstd's context for a whole
 * index is large (~16 MB at level 15 or 19 for a 0.6 MB index, ~50 MB for 3 MB), and zstd keeps a context
 * at its largest: one is made for the block and freed on return (the codec kernel's), a large one
 * one thread at a time. Elsewhere (the other codecs' small contexts, no kernel) through the
 * thread's one shared context (compressBlock), never one per writer: recompress finishes dozens
 * of writers in one go.
 */
function compressIndexBlock(raw: Uint8Array, o: TableWriterOptions): Uint8Array {
  if (o.compressionType === CompressionType.ZSTD) {
    const once = () => {
      const c = new BlockCompressor(o, o.formatVersion)
      try {
        return c.batched ? c.compress(raw) : null
      } finally {
        c.close()
      }
    }
    // A large one on as little memory as the thread can hold: its dead buffers collected and given back first.
    const framed =
      raw.length >= LARGE_INDEX_BYTES
        ? withPeakLock(() => {
            if (collectGarbage(INDEX_COLLECT_GROWTH_BYTES)) trimMallocArenas()
            return once()
          })
        : once()
    if (framed) return framed
  }
  return compressBlock(o.compressionType, raw, {
    formatVersion: o.formatVersion,
    level: o.level ?? undefined,
    zstdChecksum: o.zstdChecksum,
    strategy: o.strategy,
  })
}

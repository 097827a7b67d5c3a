/**
 * Where recompression gets its uncompressed data blocks: the file's own block
 * boundaries, or its entries re-cut into blocks of a given size the way
 * RocksDB's table builder cuts them. Blocks stream one at a time; a corrupt
 * block is recorded and skipped.
 */
import type { Table } from '../table/reader.js'
import { ReadWindow } from '../io/byte-source.js'
import { newScratch } from '../codec/output.js'
import { BlockBuilder } from '../format/block.js'
import { FlushBySizePolicy } from '../table/block-builder.js'
import { messageOf } from '../table/layout.js'
import { collectGarbage } from '../util/garbage.js'

/** A pass over the blocks collects dead buffers (its reads' and decoders') after about this many bytes. */
const COLLECT_EVERY_BYTES = 4 << 20

export interface SourceOptions {
  /** null: keep the file's blocks; else re-cut entries into blocks of this size. */
  blockSize: number | null
  /** Evaluate this percentage of blocks (1..100), evenly spread and deterministic. */
  samplePercent: number
  /**
   * Re-cut an ingested file's entries with its global sequence number applied,
   * as sst_dump's iterator hands them to its builder (default: as stored, as rewrite keeps them).
   */
  applyGlobalSeqno?: boolean
}

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

export interface SkippedBlock {
  readonly offset: number
  readonly message: string
}

/** Deterministic, evenly spread: block i is kept when the running share crosses an integer. */
export function sampled(i: number, percent: number): boolean {
  if (percent >= 100) return true
  return Math.floor(((i + 1) * percent) / 100) > Math.floor((i * percent) / 100)
}

export function* sourceBlocks(table: Table, opts: SourceOptions, skipped: SkippedBlock[]): Generator<SourceBlock> {
  if (opts.blockSize === null) {
    let i = 0
    // One reused read window and decode buffer: a pass over the file allocates nothing per block,
    // so memory stays flat (the yielded data is valid until the next block, as documented).
    const reuse = { window: new ReadWindow(table.source), scratch: newScratch() }
    let sinceCollect = 0
    for (const ref of table.dataBlocks()) {
      const index = i++
      if (!sampled(index, opts.samplePercent)) continue
      let data: Uint8Array
      try {
        data = table.readDataBlock(ref.handle, reuse)
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

function* recut(table: Table, opts: SourceOptions, skipped: SkippedBlock[]): Generator<SourceBlock> {
  const builder = new BlockBuilder()
  const policy = new FlushBySizePolicy(opts.blockSize!)
  let index = 0
  let firstKey: Uint8Array | undefined
  let lastKey: Uint8Array | undefined
  const it = table.iterator({ applyGlobalSeqno: opts.applyGlobalSeqno ?? false })
  try {
    it.seekToFirst()
  } catch (e) {
    skipped.push({ offset: table.indexHandle.offset, message: messageOf(e) })
    return
  }
  let sinceCollect = 0
  for (;;) {
    if (!it.valid) break
    if (policy.shouldFlush(builder, it.key.length, it.value.length)) {
      const data = builder.finish()
      if (sampled(index, opts.samplePercent)) yield { data, index, firstKey, lastKey }
      index++
      firstKey = undefined
      sinceCollect += data.length
      if (sinceCollect >= COLLECT_EVERY_BYTES) {
        sinceCollect = 0
        collectGarbage()
      }
    }
    builder.add(it.key, it.value)
    firstKey ??= it.key.slice()
    lastKey = it.key.slice()
    try {
      it.next()
    } catch (e) {
      // The iterator stops at a corrupt block; entries after it are not re-cut.
      skipped.push({ offset: it.blockHandle?.offset ?? -1, message: `${messageOf(e)}; entries after this point were not evaluated` })
      break
    }
  }
  if (!builder.empty) {
    const data = builder.finish()
    if (sampled(index, opts.samplePercent)) yield { data, index, firstKey, lastKey }
  }
}

/**
 * The file as stored, for the baseline row: its blocks by kind and its data
 * blocks' count, bytes and compression types (the shape, without decoding any
 * data block), and the decoding of its data blocks when no evaluation pass
 * measured it (see evaluate.ts, measureStored).
 */
import { compressionTypeName } from '../codec/compression.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { ReadWindow } from '../io/byte-source.js'
import { tableLayout } from '../table/layout.js'
import type { Table } from '../table/reader.js'
import { type ReadStats, sampled, type SkippedBlock, type SourceOptions, sourceBlocks } from './source.js'

export interface StoredShape {
  compression: string
  blocks: number
  blocksCompressed: number
  dataBytes: number
  dictBytes: number
  indexBytes: number
  /** The index blocks' payloads, without their trailers (what sst_dump's JSON counts). */
  indexPayloadBytes: number
  filterBytes: number
  metaBytes: number
  fileBytes: number
}

/** Data blocks as stored (the sampled ones): how many, their bytes on disk, and their compression types. */
function storedDataBlocks(table: Table, samplePercent: number): { blocks: number; compressed: number; bytes: number; types: Set<number> } {
  // Only each block's trailer byte is read, through one reused window: no per-block objects, so memory stays flat.
  const window = new ReadWindow(table.source)
  const out = { blocks: 0, compressed: 0, bytes: 0, types: new Set<number>() }
  let i = 0
  for (const handle of table.dataHandles()) {
    if (!sampled(i++, samplePercent)) continue
    const { offset, size } = handle
    out.blocks++
    out.bytes += size + BLOCK_TRAILER_BYTES
    let type: number
    try {
      type = window.read(offset + size, 1)[0]
    } catch {
      continue // unreadable: counted, not as compressed (the decompression pass records it)
    }
    out.types.add(type)
    if (type !== 0) out.compressed++
  }
  return out
}

export function storedShape(table: Table, samplePercent: number): StoredShape {
  // Everything but the data blocks from the layout; the data blocks, which may be millions, streamed.
  const layout = tableLayout(table, { decompress: false, dataBlocks: false })
  const sum = (pred: (k: string) => boolean) => layout.blocks.filter((b) => pred(b.kind)).reduce((a, b) => a + b.sizeOnDisk, 0)
  const data = storedDataBlocks(table, samplePercent)
  const compressions = [...data.types].filter((t) => t !== 0).map((t) => compressionTypeName(t))
  return {
    compression: compressions.length ? compressions.join('+') : compressionTypeName(0),
    blocks: data.blocks,
    blocksCompressed: data.compressed,
    dataBytes: data.bytes,
    dictBytes: sum((k) => k === 'compression dictionary'),
    indexBytes: sum((k) => k === 'index' || k === 'index partition'),
    indexPayloadBytes: layout.blocks.filter((b) => b.kind === 'index' || b.kind === 'index partition').reduce((a, b) => a + b.size, 0),
    filterBytes: sum((k) => k === 'filter' || k === 'filter partition'),
    metaBytes: sum((k) => k === 'properties' || k === 'metaindex' || k === 'range-del' || k === 'meta' || k === 'footer'),
    fileBytes: layout.fileSize,
  }
}

/** The stored data blocks (the sampled ones) decoded in a pass of their own, timed. */
export function decodeStored(table: Table, samplePercent: number, skipped: SkippedBlock[]): ReadStats {
  const stats: ReadStats = { bytes: 0, ms: 0 }
  const ownBoundaries: SourceOptions = { blockSize: null, samplePercent }
  for (const _ of sourceBlocks(table, ownBoundaries, skipped, stats));
  return stats
}

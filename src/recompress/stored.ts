/**
 * The file as stored, for the baseline row: its blocks by kind (from the layout)
 * and its data blocks' count, bytes and compression types (tallied by the pass
 * that reads them anyway, else from their trailers), and the decoding of its
 * data blocks when no evaluation pass measured it (see evaluate.ts, measureStored).
 */
import { compressionTypeName } from '../codec/compression.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { ReadWindow } from '../io/byte-source.js'
import { tableLayout } from '../table/layout.js'
import type { StoredTally, Table } from '../table/reader.js'
import { emptyReadStats, type ReadStats, sampled, type SkippedBlock, type SourceOptions, sourceBlocks } from './source.js'
import { finishStoredTiming, timeStoredDecompression } from './stored-decompress.js'

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

/**
 * The data blocks as stored (the sampled ones), by reading each one's trailer byte: for a file
 * whose pass could not tally them (Table.readDataBlock), one with an unreadable block.
 */
export function storedTally(table: Table, samplePercent: number): StoredTally {
  // Only each block's trailer byte is read, through one reused window: no per-block objects, so memory stays flat.
  const window = new ReadWindow(table.source)
  const out: StoredTally = { blocks: 0, storedBytes: 0, compressed: 0, types: [] }
  let i = 0
  for (const handle of table.dataHandles()) {
    if (!sampled(i++, samplePercent)) continue
    const { offset, size } = handle
    out.blocks++
    out.storedBytes += size + BLOCK_TRAILER_BYTES
    let type: number
    try {
      type = window.read(offset + size, 1)[0]
    } catch {
      continue // unreadable: counted, not as compressed (the decompression pass records it)
    }
    if (!out.types.includes(type)) out.types.push(type)
    if (type !== 0) out.compressed++
  }
  return out
}

/** The file's blocks but its data blocks, from its layout (no data block read): the rest of StoredShape. */
export type StoredLayout = Omit<StoredShape, 'compression' | 'blocks' | 'blocksCompressed' | 'dataBytes'>

export function storedLayout(table: Table): StoredLayout {
  // Everything but the data blocks, which may be millions: those are tallied as a pass reads them.
  const layout = tableLayout(table, { decompress: false, dataBlocks: false })
  const sum = (pred: (k: string) => boolean) => layout.blocks.filter((b) => pred(b.kind)).reduce((a, b) => a + b.sizeOnDisk, 0)
  return {
    dictBytes: sum((k) => k === 'compression dictionary'),
    indexBytes: sum((k) => k === 'index' || k === 'index partition'),
    indexPayloadBytes: layout.blocks.filter((b) => b.kind === 'index' || b.kind === 'index partition').reduce((a, b) => a + b.size, 0),
    filterBytes: sum((k) => k === 'filter' || k === 'filter partition'),
    metaBytes: sum((k) => k === 'properties' || k === 'metaindex' || k === 'range-del' || k === 'meta' || k === 'footer'),
    fileBytes: layout.fileSize,
  }
}

/** The stored file's shape: its layout, and its data blocks as tallied. */
export function storedShape(layout: StoredLayout, data: StoredTally): StoredShape {
  const compressions = data.types.filter((t) => t !== 0).map((t) => compressionTypeName(t))
  return {
    compression: compressions.length ? compressions.join('+') : compressionTypeName(0),
    blocks: data.blocks,
    blocksCompressed: data.compressed,
    dataBytes: data.storedBytes,
    ...layout,
  }
}

/**
 * The stored data blocks (the sampled ones) decoded in a pass of their own, timed and tallied; their
 * decompression timed on 1 in `stride` of them (stored-decompress.ts storedTimingStride), as a setting's.
 */
export function decodeStored(table: Table, samplePercent: number, skipped: SkippedBlock[], stride: number): ReadStats {
  const stats = timeStoredDecompression(emptyReadStats(), table, stride)
  const ownBoundaries: SourceOptions = { blockSize: null, samplePercent }
  for (const _ of sourceBlocks(table, ownBoundaries, skipped, stats));
  finishStoredTiming(stats)
  return stats
}

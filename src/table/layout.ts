/**
 * The physical layout of a table: every block in file order with its kind,
 * position, stored and uncompressed size, compression and checksum status.
 * Like pebble's `sstable layout`, which sst_dump lacks.
 */
import { compressionTypeName, declaredUncompressedSize } from '../codec/compression.js'
import type { BlockHandle } from '../format/block-handle.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { errorCode } from '../errors.js'
import { CorruptionError, NotSupportedError } from '../format/errors.js'
import { IndexBlockIter } from '../format/index-block.js'
import {
  BLOCK_BASED_FILTER_PREFIX,
  COMPRESSION_DICT_BLOCK,
  FULL_FILTER_PREFIX,
  HASH_INDEX_METADATA_BLOCK,
  HASH_INDEX_PREFIXES_BLOCK,
  INDEX_BLOCK,
  LEGACY_PROPERTIES_BLOCK,
  PARTITIONED_FILTER_PREFIX,
  PROPERTIES_BLOCK,
  RANGE_DEL_BLOCK,
} from '../format/metaindex.js'
import { blockChecksumOf, decompressRawBlock, hex32, type RawBlock } from './block-reader.js'
import { propertiesChecksumWithSeqnoZeroed, type Table } from './reader.js'

export type BlockKind =
  | 'data'
  | 'index'
  | 'index partition'
  | 'filter'
  | 'filter partition'
  | 'range-del'
  | 'compression dictionary'
  | 'properties'
  | 'metaindex'
  | 'meta'
  | 'footer'
  | 'gap'

export interface LayoutBlock {
  readonly kind: BlockKind
  /** Metaindex name for meta blocks; empty for data blocks. */
  readonly name: string
  readonly offset: number
  /** Stored payload bytes (without trailer). */
  readonly size: number
  /** Bytes on disk including the 5-byte trailer (the footer has none). */
  readonly sizeOnDisk: number
  readonly compressionType: number | null
  readonly compression: string | null
  /** Uncompressed size, when known. */
  readonly uncompressedSize: number | null
  readonly storedChecksum: number | null
  /** 'ok', 'mismatch', or 'unchecked' (footer before format_version 6, gaps). */
  readonly checksum: 'ok' | 'mismatch' | 'unchecked'
  /** Why the block could not be read or decoded, if so. */
  readonly problem?: string
}

export interface LayoutTotals {
  readonly kind: BlockKind
  readonly count: number
  readonly sizeOnDisk: number
  readonly uncompressedSize: number
}

export interface TableLayout {
  readonly fileSize: number
  readonly blocks: LayoutBlock[]
  readonly totals: LayoutTotals[]
}

interface PendingBlock {
  kind: BlockKind
  name: string
  handle: BlockHandle
  isData?: boolean
}

/**
 * Walk every block. With `decompress: false`, compressed sizes come from the
 * block framing where it records them (cheap); blocks are decompressed only
 * where it does not (format_version < 2 zlib/bzip2). Blocks that fail to read are listed with their problem and
 * the walk goes on, so one bad block does not hide the rest of the file.
 */
export function tableLayout(
  table: Table,
  options: {
    decompress?: boolean
    dataBlocks?: boolean
    /** Totals only: data blocks are folded in as they are read, not kept (memory stays flat). */
    summaryOnly?: boolean
  } = {},
): TableLayout {
  const decompress = options.decompress ?? true
  const withData = options.dataBlocks ?? true
  const summaryOnly = options.summaryOnly ?? false
  const pending: PendingBlock[] = []
  /** Why a partition index (of the index or the filter) could not be walked, by its offset: its problem unless describing it finds one. */
  const walkErrors = new Map<number, unknown>()
  const blocks: LayoutBlock[] = []
  const folded = { count: 0, sizeOnDisk: 0, uncompressedSize: 0 }
  const addData = (handle: BlockHandle) => {
    if (!summaryOnly) {
      pending.push({ kind: 'data', name: '', handle, isData: true })
      return
    }
    const b = describe(table, { kind: 'data', name: '', handle, isData: true }, decompress)
    if (b.problem)
      blocks.push(b) // problems are kept: they are few and must be reported
    else {
      folded.count++
      folded.sizeOnDisk += b.sizeOnDisk
      folded.uncompressedSize += b.uncompressedSize ?? 0
    }
  }

  // Data blocks (and index partitions) through the index.
  let dataOk = true
  try {
    if (table.isPartitionedIndex) {
      const top = table.topIndex()
      for (top.seekToFirst(); top.valid; top.next()) {
        const partition = top.handle
        pending.push({ kind: 'index partition', name: '', handle: partition })
        try {
          const it = table.indexPartition(partition)
          if (withData) for (it.seekToFirst(); it.valid; it.next()) addData(it.handle)
        } catch (e) {
          walkErrors.set(partition.offset, e)
        }
      }
    } else if (withData) {
      for (const ref of table.dataBlocks()) addData(ref.handle)
    }
  } catch (e) {
    dataOk = false
    blocks.push(problemBlock('index', 'index', table.indexHandle, e))
  }
  if (dataOk) pending.push({ kind: 'index', name: table.formatVersion >= 6 ? INDEX_BLOCK : '', handle: table.indexHandle })

  for (const { name, handle } of table.metaindexEntries) {
    if (name === INDEX_BLOCK) continue // listed above
    pending.push({ kind: metaKind(name), name, handle })
    if (name.startsWith(PARTITIONED_FILTER_PREFIX)) {
      try {
        const block = table.readBlock(handle, 'filter partition index')
        const it = new IndexBlockIter(block, handle.offset, { ...table.indexEncoding, hasFirstKey: false }, 'filter partition index')
        for (it.seekToFirst(); it.valid; it.next()) pending.push({ kind: 'filter partition', name: '', handle: it.handle })
      } catch (e) {
        walkErrors.set(handle.offset, e)
      }
    }
  }
  pending.push({ kind: 'metaindex', name: '', handle: table.footer.metaindexHandle })

  for (const p of pending) {
    const b = describe(table, p, decompress)
    const walkError = walkErrors.get(p.handle.offset)
    blocks.push(walkError !== undefined && !b.problem ? { ...b, problem: messageOf(walkError) } : b)
  }
  blocks.push({
    kind: 'footer',
    name: '',
    offset: table.footer.offset,
    size: table.footer.length,
    sizeOnDisk: table.footer.length,
    compressionType: null,
    compression: null,
    uncompressedSize: table.footer.length,
    storedChecksum: table.footer.footerChecksum ?? null,
    // openTable already verified the footer checksum of format_version >= 6 files.
    checksum: table.footer.formatVersion >= 6 && table.verifyChecksums ? 'ok' : 'unchecked',
  })
  blocks.sort((a, b) => a.offset - b.offset)
  if (summaryOnly) {
    const totals = totalsOf(blocks)
    if (folded.count > 0) {
      const d = totals.find((t) => t.kind === 'data')
      const merged = {
        kind: 'data' as BlockKind,
        count: folded.count + (d?.count ?? 0),
        sizeOnDisk: folded.sizeOnDisk + (d?.sizeOnDisk ?? 0),
        uncompressedSize: folded.uncompressedSize + (d?.uncompressedSize ?? 0),
      }
      totals.splice(d ? totals.indexOf(d) : 0, d ? 1 : 0, merged)
    }
    const covered = totals.reduce((a, t) => a + t.sizeOnDisk, 0)
    if (withData && covered < table.fileSize) totals.push({ kind: 'gap', count: 1, sizeOnDisk: table.fileSize - covered, uncompressedSize: 0 })
    return { fileSize: table.fileSize, blocks, totals }
  }
  const withGaps = withData ? addGaps(blocks, table.fileSize) : blocks
  return { fileSize: table.fileSize, blocks: withGaps, totals: totalsOf(withGaps) }
}

function metaKind(name: string): BlockKind {
  if (name === PROPERTIES_BLOCK || name === LEGACY_PROPERTIES_BLOCK) return 'properties'
  if (name === COMPRESSION_DICT_BLOCK) return 'compression dictionary'
  if (name === RANGE_DEL_BLOCK) return 'range-del'
  if (name === HASH_INDEX_PREFIXES_BLOCK || name === HASH_INDEX_METADATA_BLOCK) return 'index'
  if (name.startsWith(FULL_FILTER_PREFIX) || name.startsWith(PARTITIONED_FILTER_PREFIX) || name.startsWith(BLOCK_BASED_FILTER_PREFIX)) return 'filter'
  return 'meta'
}

/** One block as the layout lists it; a failure of any kind while reading it becomes its problem. */
function describe(table: Table, p: PendingBlock, decompress: boolean): LayoutBlock {
  try {
    return describeBlock(table, p, decompress)
  } catch (e) {
    return problemBlock(p.kind, p.name, p.handle, e)
  }
}

function describeBlock(table: Table, p: PendingBlock, decompress: boolean): LayoutBlock {
  let raw: RawBlock
  let checksum: LayoutBlock['checksum'] = 'ok'
  let problem: string | undefined
  try {
    raw = table.readRaw(p.handle, `${p.kind} block`, false)
  } catch (e) {
    return problemBlock(p.kind, p.name, p.handle, e)
  }
  const computed = blockChecksumOf(table, raw)
  // An ingested file's properties carry a global seqno rewritten in place after
  // the checksum was computed; RocksDB re-checks with that field zeroed.
  const seqnoRewritten = p.kind === 'properties' && computed !== raw.storedChecksum && propertiesChecksumWithSeqnoZeroed(raw, table.checksum)
  if (computed !== raw.storedChecksum && !seqnoRewritten) {
    checksum = 'mismatch'
    problem = `${p.kind} block checksum mismatch: stored 0x${hex32(raw.storedChecksum)}, computed 0x${hex32(computed)}`
  }
  let uncompressedSize: number | null = raw.compressionType === 0 ? raw.payload.length : null
  if (uncompressedSize === null && !decompress) {
    try {
      uncompressedSize = declaredUncompressedSize(raw.compressionType, raw.payload, table.formatVersion, raw.handle.offset) ?? null
    } catch (e) {
      problem ??= messageOf(e)
    }
  }
  if (uncompressedSize === null && !problem) {
    try {
      const dict = p.isData ? (table.dictionary() ?? undefined) : undefined
      uncompressedSize = decompressRawBlock(raw, table.formatVersion, `${p.kind} block`, dict).length
    } catch (e) {
      problem ??= messageOf(e)
    }
  }
  return {
    kind: p.kind,
    name: p.name,
    offset: p.handle.offset,
    size: p.handle.size,
    sizeOnDisk: p.handle.size + BLOCK_TRAILER_BYTES,
    compressionType: raw.compressionType,
    compression: compressionTypeName(raw.compressionType),
    uncompressedSize,
    storedChecksum: raw.storedChecksum,
    checksum,
    ...(problem ? { problem } : {}),
  }
}

function problemBlock(kind: BlockKind, name: string, handle: BlockHandle, e: unknown): LayoutBlock {
  return {
    kind,
    name,
    offset: handle.offset,
    size: handle.size,
    sizeOnDisk: handle.size + BLOCK_TRAILER_BYTES,
    compressionType: null,
    compression: null,
    uncompressedSize: null,
    storedChecksum: null,
    checksum: 'unchecked',
    problem: messageOf(e),
  }
}

/** What an error says, for a problem line; a failure of sstkit itself (not of the file) says so. */
export function messageOf(e: unknown): string {
  if (e instanceof CorruptionError || e instanceof NotSupportedError) return e.message
  const message = e instanceof Error ? e.message : String(e)
  return errorCode(e) === 'internal' ? `internal error: ${message}` : message
}

/** Blocks in file order with a `gap` block for the bytes none accounts for (alignment padding, embedded blobs, or damage). */
export function addGaps(blocks: LayoutBlock[], fileSize: number): LayoutBlock[] {
  const out: LayoutBlock[] = []
  let pos = 0
  for (const b of blocks) {
    if (b.offset > pos) out.push(gap(pos, b.offset - pos))
    out.push(b)
    pos = Math.max(pos, b.offset + b.sizeOnDisk)
  }
  if (pos < fileSize) out.push(gap(pos, fileSize - pos))
  return out
}

function gap(offset: number, size: number): LayoutBlock {
  return {
    kind: 'gap',
    name: '',
    offset,
    size,
    sizeOnDisk: size,
    compressionType: null,
    compression: null,
    uncompressedSize: null,
    storedChecksum: null,
    checksum: 'unchecked',
  }
}

function totalsOf(blocks: LayoutBlock[]): LayoutTotals[] {
  const byKind = new Map<BlockKind, { count: number; sizeOnDisk: number; uncompressedSize: number }>()
  for (const b of blocks) {
    const t = byKind.get(b.kind) ?? { count: 0, sizeOnDisk: 0, uncompressedSize: 0 }
    t.count++
    t.sizeOnDisk += b.sizeOnDisk
    t.uncompressedSize += b.uncompressedSize ?? 0
    byKind.set(b.kind, t)
  }
  return [...byKind.entries()].map(([kind, t]) => ({ kind, ...t }))
}

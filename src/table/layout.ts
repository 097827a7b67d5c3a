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
import { escapeText } from '../format/coding.js'
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
  /** The problem is a format or codec sstkit does not read (a NotSupportedError), not damage. */
  readonly unsupported?: true
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

export interface LayoutOptions {
  /** Decompress blocks whose framing does not record their size (default true). */
  readonly decompress?: boolean
  /** Include the data blocks and the gaps between blocks (default true). */
  readonly dataBlocks?: boolean
}

/**
 * Every block in file order, one at a time, with a `gap` block for the bytes
 * none accounts for (with data blocks only: without them the data region
 * would be one big gap). With `decompress: false`, compressed sizes come from
 * the block framing where it records them (cheap); blocks are decompressed
 * only where it does not (format_version < 2 zlib/bzip2). Blocks that fail to
 * read are yielded with their problem and the walk goes on, so one bad block
 * does not hide the rest of the file.
 *
 * Memory does not grow with the number of data blocks: the non-data blocks
 * (meta blocks, index and filter partitions) are listed first, then merged by
 * offset into the data blocks as the index yields them.
 */
export function* layoutBlocks(table: Table, options: LayoutOptions = {}): Generator<LayoutBlock> {
  const decompress = options.decompress ?? true
  const withData = options.dataBlocks ?? true
  // Why a partition index (of the index or the filter) could not be walked, by its offset: its problem unless describing it finds one.
  const walkErrors = new Map<number, unknown>()
  const others = nonDataBlocks(table, walkErrors, !withData)
  let next = 0
  let pos = 0
  function* emit(b: LayoutBlock): Generator<LayoutBlock> {
    if (withData && b.offset > pos) yield gap(pos, b.offset - pos)
    yield b
    pos = Math.max(pos, b.offset + b.sizeOnDisk)
  }
  function* othersBefore(offset: number): Generator<LayoutBlock> {
    for (; next < others.length && others[next].offset < offset; next++) {
      const p = others[next]
      yield* emit(p.described ?? (p.footer ? footerBlock(table) : withWalkError(describe(table, p, decompress), walkErrors.get(p.handle.offset))))
    }
  }
  if (withData) {
    try {
      for (const handle of dataHandles(table, walkErrors)) {
        yield* othersBefore(handle.offset)
        yield* emit(describe(table, { kind: 'data', name: '', handle, isData: true }, decompress))
      }
    } catch (e) {
      // The index (or the walk through it) failed: the index is listed, in its place, with why.
      const index = others.find((p) => p.kind === 'index' && p.handle === table.indexHandle)
      if (index) index.described = problemBlock('index', index.name, table.indexHandle, e)
    }
  }
  yield* othersBefore(Number.POSITIVE_INFINITY)
  if (withData && pos < table.fileSize) yield gap(pos, table.fileSize - pos)
}

/** The kinds of block `layoutBlocks` can yield for this table (data, gap and those of its other blocks), for sizing columns. */
export function layoutKinds(table: Table): BlockKind[] {
  return [...new Set<BlockKind>(['data', 'gap', ...nonDataBlocks(table, new Map(), false).map((p) => p.kind)])]
}

/** A block to describe, by handle; `footer` marks the footer's place in the order. */
interface PendingBlock {
  kind: BlockKind
  name: string
  handle: BlockHandle
  offset: number
  isData?: boolean
  footer?: boolean
  /** Already known (an index that failed while the data blocks were walked). */
  described?: LayoutBlock
}

/** A walk failure becomes the block's problem when describing the block found none. */
function withWalkError(b: LayoutBlock, walkError: unknown): LayoutBlock {
  return walkError !== undefined && !b.problem ? { ...b, problem: messageOf(walkError), ...unsupportedOf(walkError) } : b
}

/**
 * The blocks other than data blocks, sorted by offset: few (a partition per many data blocks).
 * Walk failures are recorded in `walkErrors`; `walkPartitions` also opens each index partition
 * (when no data walk will).
 */
function nonDataBlocks(table: Table, walkErrors: Map<number, unknown>, walkPartitions: boolean): PendingBlock[] {
  const pending: PendingBlock[] = []
  const add = (kind: BlockKind, name: string, handle: BlockHandle) => pending.push({ kind, name, handle, offset: handle.offset })
  if (table.isPartitionedIndex) {
    try {
      const top = table.topIndex()
      for (top.seekToFirst(); top.valid; top.next()) {
        add('index partition', '', top.handle)
        if (!walkPartitions) continue
        try {
          table.indexPartition(top.handle)
        } catch (e) {
          walkErrors.set(top.handle.offset, e)
        }
      }
    } catch (e) {
      walkErrors.set(table.indexHandle.offset, e)
    }
  }
  add('index', table.formatVersion >= 6 ? INDEX_BLOCK : '', table.indexHandle)
  for (const { name, handle } of table.metaindexEntries) {
    if (name === INDEX_BLOCK) continue // listed above
    add(metaKind(name), name, handle)
    if (name.startsWith(PARTITIONED_FILTER_PREFIX)) {
      try {
        const block = table.readBlock(handle, 'filter partition index')
        const it = new IndexBlockIter(block, handle.offset, { ...table.indexEncoding, hasFirstKey: false }, 'filter partition index')
        for (it.seekToFirst(); it.valid; it.next()) add('filter partition', '', it.handle)
      } catch (e) {
        walkErrors.set(handle.offset, e)
      }
    }
  }
  add('metaindex', '', table.footer.metaindexHandle)
  pending.push({ kind: 'footer', name: '', handle: table.footer.metaindexHandle, offset: table.footer.offset, footer: true })
  return pending.sort((a, b) => a.offset - b.offset)
}

/** The data block handles in index order; a partition that cannot be walked is skipped, its failure recorded. */
function* dataHandles(table: Table, walkErrors: Map<number, unknown>): Generator<BlockHandle> {
  if (!table.isPartitionedIndex) {
    for (const ref of table.dataBlocks()) yield ref.handle
    return
  }
  const top = table.topIndex()
  for (top.seekToFirst(); top.valid; top.next()) {
    const partition = top.handle
    const handles: BlockHandle[] = []
    try {
      // A partition's handles first (a few hundred), so that a failure inside it cannot stop the walk of the others.
      const it = table.indexPartition(partition)
      for (it.seekToFirst(); it.valid; it.next()) handles.push(it.handle)
    } catch (e) {
      walkErrors.set(partition.offset, e)
    }
    yield* handles
  }
}

function footerBlock(table: Table): LayoutBlock {
  return {
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
  }
}

/** Per-kind totals of a block stream, in order of first appearance. */
export class LayoutTotalsBuilder {
  private readonly byKind = new Map<BlockKind, { count: number; sizeOnDisk: number; uncompressedSize: number }>()
  /** Blocks that could not be read or failed their checksum. */
  problems = 0

  add(b: LayoutBlock): void {
    const t = this.byKind.get(b.kind) ?? { count: 0, sizeOnDisk: 0, uncompressedSize: 0 }
    t.count++
    t.sizeOnDisk += b.sizeOnDisk
    t.uncompressedSize += b.uncompressedSize ?? 0
    this.byKind.set(b.kind, t)
    if (b.problem) this.problems++
  }

  get totals(): LayoutTotals[] {
    return [...this.byKind.entries()].map(([kind, t]) => ({ kind, ...t }))
  }
}

/**
 * The whole layout at once. With `summaryOnly` the data blocks are folded into
 * the totals as they are read and not kept (memory stays flat), except those
 * with a problem, which are few and must be reported.
 */
export function tableLayout(table: Table, options: LayoutOptions & { summaryOnly?: boolean } = {}): TableLayout {
  const totals = new LayoutTotalsBuilder()
  const blocks: LayoutBlock[] = []
  for (const b of layoutBlocks(table, options)) {
    totals.add(b)
    if (!options.summaryOnly || b.problem || (b.kind !== 'data' && b.kind !== 'gap')) blocks.push(b)
  }
  return { fileSize: table.fileSize, blocks, totals: totals.totals }
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
function describe(table: Table, p: Pick<PendingBlock, 'kind' | 'name' | 'handle' | 'isData'>, decompress: boolean): LayoutBlock {
  try {
    return describeBlock(table, p, decompress)
  } catch (e) {
    return problemBlock(p.kind, p.name, p.handle, e)
  }
}

function describeBlock(table: Table, p: Pick<PendingBlock, 'kind' | 'name' | 'handle' | 'isData'>, decompress: boolean): LayoutBlock {
  let raw: RawBlock
  let checksum: LayoutBlock['checksum'] = 'ok'
  let problem: string | undefined
  let unsupported: { unsupported?: true } = {}
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
      if (problem === undefined) unsupported = unsupportedOf(e)
      problem ??= messageOf(e)
    }
  }
  if (uncompressedSize === null && !problem) {
    try {
      const dict = p.isData ? (table.dictionary() ?? undefined) : undefined
      uncompressedSize = decompressRawBlock(raw, table.formatVersion, `${p.kind} block`, dict).length
    } catch (e) {
      if (problem === undefined) unsupported = unsupportedOf(e)
      problem ??= messageOf(e)
    }
  }
  return {
    kind: p.kind,
    name: escapeText(p.name),
    offset: p.handle.offset,
    size: p.handle.size,
    sizeOnDisk: p.handle.size + BLOCK_TRAILER_BYTES,
    compressionType: raw.compressionType,
    compression: compressionTypeName(raw.compressionType),
    uncompressedSize,
    storedChecksum: raw.storedChecksum,
    checksum,
    ...(problem ? { problem, ...unsupported } : {}),
  }
}

/** `{ unsupported: true }` for an error that is a format or codec sstkit does not read, else nothing. */
function unsupportedOf(e: unknown): { unsupported?: true } {
  return e instanceof NotSupportedError ? { unsupported: true } : {}
}

function problemBlock(kind: BlockKind, name: string, handle: BlockHandle, e: unknown): LayoutBlock {
  return {
    kind,
    name: escapeText(name),
    offset: handle.offset,
    size: handle.size,
    sizeOnDisk: handle.size + BLOCK_TRAILER_BYTES,
    compressionType: null,
    compression: null,
    uncompressedSize: null,
    storedChecksum: null,
    checksum: 'unchecked',
    problem: messageOf(e),
    ...unsupportedOf(e),
  }
}

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

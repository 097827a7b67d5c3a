/**
 * What the browser shows, loaded lazily and in small time-sliced chunks so the
 * first screen appears at once and the UI never waits long on I/O.
 *
 * Uses sstkit's public API (`../index.js`), the shared report helpers, and
 * table/layout.ts's gap finder (so the Blocks screen's gaps are the layout's).
 * Nothing here imports ink or React: the model is plain TypeScript, testable on
 * its own, and the components in `app.tsx` only read from it.
 *
 * Background work, in order, each step in chunks of a few milliseconds with
 * `setImmediate` between them:
 *   1. the overview's properties with the filter identified (reads the filter);
 *   2. the non-data blocks (`tableLayout(table, { dataBlocks: false })`);
 *   3. the index walk: every data block's handle (`table.dataBlocks()`);
 *   4. a checksum sweep over the data blocks, so corrupt ones are flagged
 *      before anyone scrolls to them.
 * Entries are read one data block at a time when shown (plus a little read-ahead).
 *
 * The rooms: scheduler.ts runs the background tasks, overview.ts sums the
 * byte split, entry-cache.ts reads and caches entries, cursor.ts moves over
 * them; this model ties them to one table and is what the screens read.
 */
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { addGaps, messageOf } from '../table/layout.js'
import { ChecksumMismatchError } from '../table/block-reader.js'
import { compressionTypeName } from '../codec/compression.js'
import { tableLayout } from '../table/layout.js'
import type { DataBlockRef, LayoutBlock, BlockHandle, Table } from '../reader.js'
import { propsJson, type PropsJson } from '../report/props.js'
import * as cursor from './cursor.js'
import type { EntryPos, EntryRows } from './cursor.js'
import { EntryCache, type BlockEntries, type EntryRow } from './entry-cache.js'
import { byteSplit, type ByteSplit } from './overview.js'
import { SliceScheduler } from './scheduler.js'

export type { EntryPos } from './cursor.js'
export type { BlockEntries, EntryRow } from './entry-cache.js'
export type { ByteSplit } from './overview.js'

/** A block as the Blocks screen lists it. Data blocks carry their ordinal (index order). */
export interface BlockRow {
  readonly block: LayoutBlock
  /** Position among data blocks, for data blocks. */
  readonly ordinal?: number
  /** False while a data block's compression/checksum have not been read yet. */
  readonly described: boolean
}

export interface IndexHandleRow {
  readonly key: Uint8Array
  readonly handle: BlockHandle
  readonly firstKey: Uint8Array | null
  /** What the handle points to. */
  readonly target: 'data' | 'index partition'
}

export interface ModelOptions {
  /** Milliseconds of work per background chunk (default 8). */
  readonly sliceMs?: number
  /** Blocks of entries kept in memory (default 256). */
  readonly cacheBlocks?: number
  /** Start background loading at once (default true). Tests may step it with `runAll()`. */
  readonly background?: boolean
}

export interface Progress {
  readonly indexDone: boolean
  readonly dataBlocksKnown: number
  readonly sweepChecked: number
  readonly sweepDone: boolean
  readonly problems: number
}

export class BrowseModel implements EntryRows {
  /** Data blocks found so far by the index walk, in index order. */
  readonly refs: DataBlockRef[] = []
  indexDone = false
  /** Why the index could not be walked (the file's index is damaged). */
  indexError: string | null = null
  /** Non-data blocks (index, filter, properties, metaindex, footer...), null until read. */
  metaBlocks: LayoutBlock[] | null = null
  props: PropsJson
  /** True until the filter has been identified (the overview shows it then). */
  propsPending = true
  /** Why the filter could not be identified, if so. */
  filterProblem: string | null = null

  private readonly offsets = new Map<number, number>()
  private walker: Generator<DataBlockRef> | null = null
  private readonly infos = new Map<number, { info: DataInfo; full: boolean }>()
  private sweepNext = 0
  private problemCount = 0
  private readonly entryCache: EntryCache
  private readonly listeners = new Set<() => void>()
  private readonly scheduler: SliceScheduler
  private rowsMemo: { key: string; rows: BlockRow[] } | null = null

  constructor(
    readonly file: string,
    readonly table: Table,
    options: ModelOptions = {},
  ) {
    // First paint: everything openTable already read. The filter (which may be
    // megabytes) is identified in the background.
    this.props = propsJson(file, table, { identifyFilter: false })
    this.entryCache = new EntryCache(table, this.refs, options.cacheBlocks ?? 256, (ordinal, problem) => this.flagProblem(ordinal, problem))
    const tasks = [() => this.loadProps(), () => this.loadMeta(), () => this.walkIndex(), () => this.sweep()]
    this.scheduler = new SliceScheduler(tasks, options.sliceMs ?? 8, () => this.changed())
    if (options.background ?? true) this.scheduler.start()
  }

  /** Start background loading (when constructed with `background: false`). */
  start(): void {
    this.scheduler.start()
  }

  // ---- change notification and background scheduling ----

  onChange(f: () => void): () => void {
    this.listeners.add(f)
    return () => this.listeners.delete(f)
  }

  private changed(): void {
    for (const f of this.listeners) f()
  }

  /** Run background work for one time slice. Returns false when nothing is left. */
  step(): boolean {
    return this.scheduler.step()
  }

  /** Finish all background work synchronously (tests, and `G` before the index walk ends). */
  runAll(): void {
    this.scheduler.runAll()
  }

  get idle(): boolean {
    return this.scheduler.idle
  }

  close(): void {
    this.scheduler.close()
    this.listeners.clear()
  }

  progress(): Progress {
    return {
      indexDone: this.indexDone,
      dataBlocksKnown: this.refs.length,
      sweepChecked: this.sweepNext,
      sweepDone: this.indexDone && this.sweepNext >= this.refs.length,
      problems: this.problemCount + (this.metaBlocks?.filter((b) => b.problem).length ?? 0) + (this.indexError ? 1 : 0),
    }
  }

  // ---- background tasks ----

  private loadProps(): boolean {
    try {
      this.props = propsJson(this.file, this.table)
    } catch (e) {
      this.filterProblem = messageOf(e)
    }
    this.propsPending = false
    return true
  }

  private loadMeta(): boolean {
    try {
      this.metaBlocks = tableLayout(this.table, { dataBlocks: false, decompress: false }).blocks
    } catch (e) {
      this.metaBlocks = []
      this.indexError ??= messageOf(e)
    }
    return true
  }

  /** A few hundred index entries per call. */
  private walkIndex(): boolean {
    if (this.indexDone) return true
    try {
      this.walker ??= this.table.dataBlocks()
      for (let i = 0; i < 512; i++) {
        const r = this.walker.next()
        if (r.done) {
          this.indexDone = true
          return true
        }
        this.offsets.set(r.value.handle.offset, this.refs.length)
        this.refs.push(r.value)
      }
      return false
    } catch (e) {
      this.indexError = messageOf(e)
      this.indexDone = true
      return true
    }
  }

  /** Read data blocks (no decompression) to check their checksums, a few at a time. */
  private sweep(): boolean {
    for (let i = 0; i < 16; i++) {
      if (this.sweepNext >= this.refs.length) return this.indexDone
      this.dataInfo(this.sweepNext++, false)
    }
    return false
  }

  /** Walk the rest of the index now (bounded by the index size; used by `G`, seek). */
  finishIndex(): void {
    while (!this.walkIndex());
  }

  // ---- overview ----

  /** How the file's bytes split between data, index, filter and meta blocks. */
  byteSplit(): ByteSplit {
    const known = this.indexDone && !this.indexError && this.metaBlocks
    return byteSplit(this.table, known ? this.blockRows().map((r) => r.block) : null)
  }

  // ---- blocks ----

  /** Bytes after each block's payload (its trailer), as the layout measures them. */
  private get trailerBytes(): number {
    const b = this.metaBlocks?.find((m) => m.kind !== 'footer' && m.kind !== 'gap' && !m.problem)
    return b ? b.sizeOnDisk - b.size : BLOCK_TRAILER_BYTES
  }

  /** Every block known so far in file order; gaps once the whole layout is known. */
  blockRows(): BlockRow[] {
    const key = `${this.refs.length}/${this.indexDone}/${this.metaBlocks?.length ?? -1}`
    if (this.rowsMemo?.key === key) return this.rowsMemo.rows
    const trailer = this.trailerBytes
    const rows: BlockRow[] = []
    for (let i = 0; i < this.refs.length; i++) {
      const h = this.refs[i].handle
      rows.push({ block: dataLayoutBlock(h, trailer, null), ordinal: i, described: false })
    }
    for (const b of this.metaBlocks ?? []) rows.push({ block: b, described: true })
    rows.sort((a, b) => a.block.offset - b.block.offset || (a.ordinal ?? -1) - (b.ordinal ?? -1))
    const complete = this.indexDone && this.metaBlocks !== null
    const out = complete ? withGapRows(rows, this.table.fileSize) : rows
    this.rowsMemo = { key, rows: out }
    return out
  }

  /** A row with its data block described (read and checksummed; decompressed when `full`). */
  describe(row: BlockRow, full = true): BlockRow {
    if (row.ordinal === undefined) return row
    const d = this.dataInfo(row.ordinal, full)
    return { block: dataLayoutBlock(this.refs[row.ordinal].handle, this.trailerBytes, d), ordinal: row.ordinal, described: true }
  }

  /** Compression, checksum and (when `full`) uncompressed size of data block `ordinal`. Cached. */
  dataInfo(ordinal: number, full: boolean): DataInfo {
    const cached = this.infos.get(ordinal)
    if (cached && (cached.full || !full)) return cached.info
    const handle = this.refs[ordinal].handle
    let info: DataInfo
    try {
      const raw = this.table.readRaw(handle, 'data block', true)
      let uncompressedSize: number | null = raw.compressionType === 0 ? raw.payload.length : null
      let problem: string | undefined
      if (uncompressedSize === null && full) {
        try {
          uncompressedSize = this.table.readBlock(handle, 'data block', true, false).length
        } catch (e) {
          problem = messageOf(e)
        }
      }
      info = {
        compressionType: raw.compressionType,
        compression: compressionTypeName(raw.compressionType),
        uncompressedSize,
        checksum: 'ok',
        storedChecksum: raw.storedChecksum,
        problem,
      }
    } catch (e) {
      const mismatch = e instanceof ChecksumMismatchError
      info = {
        compressionType: null,
        compression: null,
        uncompressedSize: null,
        checksum: mismatch ? 'mismatch' : 'unchecked',
        storedChecksum: mismatch ? e.stored : null,
        problem: messageOf(e),
      }
    }
    if (info.problem && !cached?.info.problem) this.problemCount++
    this.infos.set(ordinal, { info, full: full || info.problem !== undefined })
    return info
  }

  /** Index of the next block row at or after `from` (wrapping) that has a problem, or -1. */
  nextProblem(from: number): number {
    const rows = this.blockRows()
    for (let k = 1; k <= rows.length; k++) {
      const i = (from + k) % rows.length
      const r = rows[i]
      if (r.block.problem) return i
      if (r.ordinal !== undefined && this.infos.get(r.ordinal)?.info.problem) return i
    }
    return -1
  }

  ordinalOfOffset(offset: number): number | undefined {
    if (!this.offsets.has(offset) && !this.indexDone) {
      // walk on until the block turns up (the index walk is cheap compared with reading data)
      while (!this.offsets.has(offset) && !this.walkIndex());
    }
    return this.offsets.get(offset)
  }

  /** The handles an index block (top level or a partition) lists. */
  indexHandles(block: Pick<LayoutBlock, 'kind' | 'offset' | 'size'> & { name?: string }): IndexHandleRow[] {
    const t = this.table
    if (block.kind === 'index' && block.offset === t.indexHandle.offset && !t.isPartitionedIndex) {
      this.finishIndex()
      if (this.indexError) throw new Error(this.indexError)
      return this.refs.map((r) => ({ key: r.indexKey, handle: r.handle, firstKey: r.firstKey, target: 'data' }))
    }
    const partition = block.kind === 'index partition'
    if (!partition && block.offset !== t.indexHandle.offset) throw new Error(`the ${block.name || block.kind} block lists no block handles`)
    const it = partition ? t.indexPartition({ offset: block.offset, size: block.size }) : t.topIndex()
    const out: IndexHandleRow[] = []
    for (it.seekToFirst(); it.valid; it.next()) {
      out.push({ key: it.key.slice(), handle: { ...it.handle }, firstKey: it.firstKey?.slice() ?? null, target: partition ? 'data' : 'index partition' })
    }
    return out
  }

  // ---- entries ----

  /** Entries of data block `ordinal` (read on first use, then cached). */
  entries(ordinal: number): BlockEntries {
    return this.entryCache.get(ordinal)
  }

  isLoaded(ordinal: number): boolean {
    return this.entryCache.has(ordinal)
  }

  /** Read the next few blocks after `ordinal` in the background, so scrolling finds them ready. */
  readAhead(ordinal: number, count = 4): void {
    const pending: number[] = []
    for (let i = ordinal + 1; i <= ordinal + count && i < this.refs.length; i++) if (!this.entryCache.has(i)) pending.push(i)
    if (pending.length === 0 || this.scheduler.isClosed) return
    setImmediate(() => {
      if (this.scheduler.isClosed) return
      for (const i of pending) this.entries(i)
    })
  }

  /** Rows shown for a block: its entries, or one row saying why it cannot be read. */
  rowCount(ordinal: number): number {
    return cursor.rowCount(this, ordinal)
  }

  /** Number of data blocks, when known (the index walk is done). */
  get blockCount(): number | null {
    return this.indexDone ? this.refs.length : null
  }

  get knownBlocks(): number {
    return this.refs.length
  }

  /** Entries of a block could not be read: make its Blocks row say so too (as a checksum mismatch when it is one). */
  private flagProblem(ordinal: number, problem: string): void {
    const d = this.dataInfo(ordinal, false)
    if (d.problem) return
    this.infos.set(ordinal, { info: { ...d, problem }, full: true })
    this.problemCount++
  }

  /** Whether data block `ordinal` exists, walking the index on (a little, synchronously) to find out. */
  has(ordinal: number): boolean {
    while (ordinal >= this.refs.length && !this.indexDone) this.walkIndex()
    return ordinal < this.refs.length
  }

  // ---- the Entries cursor (cursor.ts) ----

  /** First position with a row at or after block `ordinal` (null if none). */
  firstFrom(ordinal: number): EntryPos | null {
    return cursor.firstFrom(this, ordinal)
  }

  first(): EntryPos | null {
    return cursor.firstFrom(this, 0)
  }

  last(): EntryPos | null {
    return cursor.last(this)
  }

  /** Move `delta` rows (negative: back), stopping at the ends of what is known. */
  move(pos: EntryPos, delta: number): EntryPos {
    return cursor.move(this, pos, delta)
  }

  /** Rows from `pos` on, at most `count`. */
  window(pos: EntryPos, count: number): { pos: EntryPos; row: EntryRow | { problem: string } }[] {
    return cursor.window(this, pos, count)
  }

  /** The first entry whose user key is >= `userKey`, found through the index. */
  seek(userKey: Uint8Array): { pos: EntryPos } | { end: true } | { error: string } {
    return cursor.seek(this, this.table, userKey)
  }
}

export interface DataInfo {
  readonly compressionType: number | null
  readonly compression: string | null
  readonly uncompressedSize: number | null
  readonly checksum: 'ok' | 'mismatch' | 'unchecked'
  readonly storedChecksum: number | null
  readonly problem?: string
}

function dataLayoutBlock(h: BlockHandle, trailer: number, d: DataInfo | null): LayoutBlock {
  return {
    kind: 'data',
    name: '',
    offset: h.offset,
    size: h.size,
    sizeOnDisk: h.size + trailer,
    compressionType: d?.compressionType ?? null,
    compression: d?.compression ?? null,
    uncompressedSize: d?.uncompressedSize ?? null,
    storedChecksum: d?.storedChecksum ?? null,
    checksum: d?.checksum ?? 'unchecked',
    ...(d?.problem ? { problem: d.problem } : {}),
  }
}

/** The rows with a row for each gap between blocks (table/layout.ts finds the gaps). */
function withGapRows(rows: BlockRow[], fileSize: number): BlockRow[] {
  const byBlock = new Map(rows.map((r) => [r.block, r]))
  return addGaps(
    rows.map((r) => r.block),
    fileSize,
  ).map((b) => byBlock.get(b) ?? { block: b, described: true })
}

/** `browse --json`: the overview as JSON, `props --json` plus the byte split (from the table properties). */
export interface BrowseJson extends PropsJson {
  /** How the file's bytes split between kinds of blocks, from the table properties. */
  bytes: { source: 'properties' | 'layout'; fileSize: number; data: number; index: number; filter: number; meta: number }
}

export function overviewJson(file: string, table: Table): BrowseJson {
  const split = new BrowseModel(file, table, { background: false }).byteSplit()
  const part = (name: string) => split.parts.find((x) => x.name === name)?.bytes ?? 0
  return {
    ...propsJson(file, table),
    bytes: { source: split.source, fileSize: split.fileSize, data: part('data'), index: part('index'), filter: part('filter'), meta: part('meta') },
  }
}

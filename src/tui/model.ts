/**
 * What the browser shows, loaded lazily and in small time-sliced chunks so the
 * first screen appears at once and the UI never waits long on I/O.
 *
 * Uses only sstkit's public API (`../index.js`) and the shared report helpers.
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
 */
import {
  ChecksumMismatchError,
  compressionTypeName,
  parseInternalKey,
  tableLayout,
  type DataBlockRef,
  type LayoutBlock,
  type BlockHandle,
  type BlockKind,
  type SequenceNumber,
  type Table,
  type TableIterator,
} from '../index.js'
import { propsJson, type PropsJson } from '../report/props.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { Property } from '../format/properties.js'

/** One point entry, copied out of its block. */
export interface EntryRow {
  readonly internalKey: Uint8Array
  readonly userKey: Uint8Array
  readonly seq: SequenceNumber
  readonly type: number
  readonly value: Uint8Array
}

export type BlockEntries = { readonly ok: true; readonly entries: EntryRow[] } | { readonly ok: false; readonly problem: string }

/** A block as the Blocks screen lists it. Data blocks carry their ordinal (index order). */
export interface BlockRow {
  readonly block: LayoutBlock
  /** Position among data blocks, for data blocks. */
  readonly ordinal?: number
  /** False while a data block's compression/checksum have not been read yet. */
  readonly described: boolean
}

/** Where the Entries cursor is: data block ordinal and entry within it (0 for a corrupt block's row). */
export interface EntryPos {
  readonly block: number
  readonly entry: number
}

export interface ByteSplit {
  /** 'properties' before the layout is known, then 'layout' (measured from the blocks). */
  readonly source: 'properties' | 'layout'
  readonly fileSize: number
  readonly parts: { readonly name: 'data' | 'index' | 'filter' | 'meta' | 'gap'; readonly bytes: number }[]
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

type Task = () => boolean // true when finished

export class BrowseModel {
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
  private readonly entryCache = new Map<number, BlockEntries>()
  /** A table iterator standing on the first entry of block `ordinal`: reading on from there needs no seek. */
  private cont: { it: TableIterator; ordinal: number; offset: number } | null = null
  private readonly listeners = new Set<() => void>()
  private readonly tasks: Task[]
  private timer: NodeJS.Immediate | null = null
  private closed = false
  private rowsMemo: { key: string; rows: BlockRow[] } | null = null
  private readonly sliceMs: number
  private readonly cacheBlocks: number
  private readonly bytewise: boolean

  constructor(
    readonly file: string,
    readonly table: Table,
    options: ModelOptions = {},
  ) {
    this.sliceMs = options.sliceMs ?? 8
    this.cacheBlocks = options.cacheBlocks ?? 256
    this.bytewise = table.comparatorName.startsWith('leveldb.BytewiseComparator')
    // First paint: everything openTable already read. The filter (which may be
    // megabytes) is identified in the background.
    this.props = propsJson(file, withoutFilter(table))
    this.tasks = [() => this.loadProps(), () => this.loadMeta(), () => this.walkIndex(), () => this.sweep()]
    if (options.background ?? true) this.schedule()
  }

  /** Start background loading (when constructed with `background: false`). */
  start(): void {
    this.schedule()
  }

  // ---- change notification and background scheduling ----

  onChange(f: () => void): () => void {
    this.listeners.add(f)
    return () => this.listeners.delete(f)
  }

  private changed(): void {
    for (const f of this.listeners) f()
  }

  private schedule(): void {
    if (this.closed || this.timer || this.tasks.length === 0) return
    this.timer = setImmediate(() => {
      this.timer = null
      this.step()
      this.schedule()
    })
  }

  /** Run background work for one time slice. Returns false when nothing is left. */
  step(): boolean {
    const end = performance.now() + this.sliceMs
    let progressed = false
    while (this.tasks.length > 0 && performance.now() < end) {
      progressed = true
      if (this.tasks[0]()) this.tasks.shift()
    }
    if (progressed) this.changed()
    return this.tasks.length > 0
  }

  /** Finish all background work synchronously (tests, and `G` before the index walk ends). */
  runAll(): void {
    while (this.tasks.length > 0) if (this.tasks[0]()) this.tasks.shift()
    this.changed()
  }

  get idle(): boolean {
    return this.tasks.length === 0
  }

  close(): void {
    this.closed = true
    if (this.timer) clearImmediate(this.timer)
    this.timer = null
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
    const fileSize = this.table.fileSize
    if (this.indexDone && !this.indexError && this.metaBlocks) {
      const sums = { data: 0, index: 0, filter: 0, meta: 0, gap: 0 }
      for (const r of this.blockRows()) sums[splitName(r.block.kind)] += r.block.sizeOnDisk
      return { source: 'layout', fileSize, parts: Object.entries(sums).map(([name, bytes]) => ({ name: name as keyof typeof sums, bytes })) }
    }
    const known = this.table.properties.known
    const num = (n: string) => {
      const v = known.get(n)
      return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0
    }
    const data = num(Property.DataSize)
    const index = num(Property.IndexSize)
    const filter = num(Property.FilterSize)
    const meta = Math.max(0, fileSize - data - index - filter)
    return {
      source: 'properties',
      fileSize,
      parts: [
        { name: 'data', bytes: data },
        { name: 'index', bytes: index },
        { name: 'filter', bytes: filter },
        { name: 'meta', bytes: meta },
      ],
    }
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
    const out = complete ? withGaps(rows, this.table.fileSize) : rows
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
      info = { compressionType: raw.compressionType, compression: compressionTypeName(raw.compressionType), uncompressedSize, checksum: 'ok', storedChecksum: raw.storedChecksum, problem }
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
    const hit = this.entryCache.get(ordinal)
    if (hit) {
      this.entryCache.delete(ordinal)
      this.entryCache.set(ordinal, hit)
      return hit
    }
    const r = this.loadEntries(ordinal)
    this.entryCache.set(ordinal, r)
    while (this.entryCache.size > this.cacheBlocks) this.entryCache.delete(this.entryCache.keys().next().value as number)
    if (!r.ok) this.flagProblem(ordinal, r.problem)
    return r
  }

  isLoaded(ordinal: number): boolean {
    return this.entryCache.has(ordinal)
  }

  /** Read the next few blocks after `ordinal` in the background, so scrolling finds them ready. */
  readAhead(ordinal: number, count = 4): void {
    const pending: number[] = []
    for (let i = ordinal + 1; i <= ordinal + count && i < this.refs.length; i++) if (!this.entryCache.has(i)) pending.push(i)
    if (pending.length === 0 || this.closed) return
    setImmediate(() => {
      if (this.closed) return
      for (const i of pending) this.entries(i)
    })
  }

  /** Rows shown for a block: its entries, or one row saying why it cannot be read. */
  rowCount(ordinal: number): number {
    const e = this.entries(ordinal)
    return e.ok ? e.entries.length : 1
  }

  /** Number of data blocks, when known (the index walk is done). */
  get blockCount(): number | null {
    return this.indexDone ? this.refs.length : null
  }

  /** Entries of a block could not be read: make its Blocks row say so too (as a checksum mismatch when it is one). */
  private flagProblem(ordinal: number, problem: string): void {
    const d = this.dataInfo(ordinal, false)
    if (d.problem) return
    this.infos.set(ordinal, { info: { ...d, problem }, full: true })
    this.problemCount++
  }

  private userKeyOfIndexKey(k: Uint8Array): Uint8Array {
    return this.table.indexEncoding.keyIsUserKey ? k : parseInternalKey(k).userKey
  }

  /** Why block `ordinal` cannot be read, or null if it reads fine. */
  private probe(ordinal: number): string | null {
    try {
      this.table.readBlock(this.refs[ordinal].handle, 'data block', true)
      return null
    } catch (e) {
      return messageOf(e)
    }
  }

  private loadEntries(ordinal: number): BlockEntries {
    const ref = this.refs[ordinal]
    if (!ref) return { ok: false, problem: `no data block #${ordinal}` }
    const c = this.cont
    if (c && c.ordinal === ordinal && c.offset === ref.handle.offset) {
      this.cont = null
      return this.collect(c.it, ordinal)
    }
    // Position a table iterator on the block through the index: seek to the
    // previous block's separator, then step to this block's first entry.
    const it = this.table.iterator()
    // Without a known comparator there is no seek: walk from the first block.
    const walk = this.table.userComparator === null
    try {
      if (ordinal === 0 || walk) it.seekToFirst()
      else it.seek(this.userKeyOfIndexKey(this.refs[ordinal - 1].indexKey))
    } catch (e) {
      const own = this.probe(ordinal)
      if (own) return { ok: false, problem: own }
      if (ordinal === 0 || !this.bytewise) return { ok: false, problem: `cannot reach this block: ${messageOf(e)}` }
      // The previous block is unreadable: seek just past its separator instead.
      try {
        it.seek(successor(this.userKeyOfIndexKey(this.refs[ordinal - 1].indexKey)))
      } catch (e2) {
        return { ok: false, problem: messageOf(e2) }
      }
    }
    const next = walk ? undefined : this.refs[ordinal + 1]?.handle.offset
    try {
      while (it.valid && it.blockHandle && it.blockHandle.offset !== ref.handle.offset) {
        if (it.blockHandle.offset === next) break
        it.next()
      }
    } catch (e) {
      return { ok: false, problem: this.probe(ordinal) ?? messageOf(e) }
    }
    if (!it.valid || it.blockHandle?.offset !== ref.handle.offset) {
      const own = this.probe(ordinal)
      return own ? { ok: false, problem: own } : { ok: true, entries: [] }
    }
    return this.collect(it, ordinal)
  }

  /** Copy entries while the iterator stays in block `ordinal`; keep it for the next block. */
  private collect(it: TableIterator, ordinal: number): BlockEntries {
    const offset = this.refs[ordinal].handle.offset
    const entries: EntryRow[] = []
    try {
      while (it.valid && it.blockHandle?.offset === offset) {
        const internalKey = it.key.slice()
        const p = parseInternalKey(internalKey)
        entries.push({ internalKey, userKey: p.userKey, seq: p.seq, type: p.type, value: it.value.slice() })
        it.next()
      }
    } catch {
      // reading on failed in the *next* block; this one is complete
      return { ok: true, entries }
    }
    if (it.valid && it.blockHandle) this.cont = { it, ordinal: ordinal + 1, offset: it.blockHandle.offset }
    return { ok: true, entries }
  }

  /** Whether data block `ordinal` exists, walking the index on (a little, synchronously) to find out. */
  has(ordinal: number): boolean {
    while (ordinal >= this.refs.length && !this.indexDone) this.walkIndex()
    return ordinal < this.refs.length
  }

  /** First position with a row at or after block `ordinal` (null if none). */
  firstFrom(ordinal: number): EntryPos | null {
    for (let b = ordinal; this.has(b); b++) if (this.rowCount(b) > 0) return { block: b, entry: 0 }
    return null
  }

  first(): EntryPos | null {
    return this.firstFrom(0)
  }

  last(): EntryPos | null {
    this.finishIndex()
    for (let b = this.refs.length - 1; b >= 0; b--) {
      const n = this.rowCount(b)
      if (n > 0) return { block: b, entry: n - 1 }
    }
    return null
  }

  /** Move `delta` rows (negative: back), stopping at the ends of what is known. */
  move(pos: EntryPos, delta: number): EntryPos {
    let { block, entry } = pos
    while (delta > 0) {
      const n = this.rowCount(block)
      if (entry + delta < n) return { block, entry: entry + delta }
      // next block with rows
      let b = block + 1
      while (this.has(b) && this.rowCount(b) === 0) b++
      if (!this.has(b)) return { block, entry: Math.max(0, n - 1) }
      delta -= n - entry
      block = b
      entry = 0
    }
    while (delta < 0) {
      if (entry + delta >= 0) return { block, entry: entry + delta }
      let b = block - 1
      while (b >= 0 && this.rowCount(b) === 0) b--
      if (b < 0) return { block, entry: 0 }
      delta += entry + 1
      block = b
      entry = this.rowCount(b) - 1
    }
    return { block, entry }
  }

  /** Rows from `pos` on, at most `count`. */
  window(pos: EntryPos, count: number): { pos: EntryPos; row: EntryRow | { problem: string } }[] {
    const out: { pos: EntryPos; row: EntryRow | { problem: string } }[] = []
    let { block, entry } = pos
    while (out.length < count && this.has(block)) {
      const e = this.entries(block)
      if (!e.ok) {
        if (entry === 0) out.push({ pos: { block, entry: 0 }, row: { problem: e.problem } })
      } else {
        for (let i = entry; i < e.entries.length && out.length < count; i++) out.push({ pos: { block, entry: i }, row: e.entries[i] })
      }
      block++
      entry = 0
    }
    return out
  }

  /** The first entry whose user key is >= `userKey`, found through the index. */
  seek(userKey: Uint8Array): { pos: EntryPos } | { end: true } | { error: string } {
    const it = this.table.iterator()
    try {
      it.seek(userKey)
    } catch (e) {
      return { error: messageOf(e) }
    }
    if (!it.valid || !it.blockHandle) return { end: true }
    const ordinal = this.ordinalOfOffset(it.blockHandle.offset)
    if (ordinal === undefined) return { error: `data block at offset ${it.blockHandle.offset} is not in the index` }
    const found = it.key.slice()
    const e = this.entries(ordinal)
    if (!e.ok) return { error: e.problem }
    const i = e.entries.findIndex((r) => equalBytes(r.internalKey, found))
    return { pos: { block: ordinal, entry: Math.max(0, i) } }
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

function withGaps(rows: BlockRow[], fileSize: number): BlockRow[] {
  const out: BlockRow[] = []
  let pos = 0
  const gap = (offset: number, size: number): BlockRow => ({
    block: { kind: 'gap', name: '', offset, size, sizeOnDisk: size, compressionType: null, compression: null, uncompressedSize: null, storedChecksum: null, checksum: 'unchecked' },
    described: true,
  })
  for (const r of rows) {
    if (r.block.offset > pos) out.push(gap(pos, r.block.offset - pos))
    out.push(r)
    pos = Math.max(pos, r.block.offset + r.block.sizeOnDisk)
  }
  if (pos < fileSize) out.push(gap(pos, fileSize - pos))
  return out
}

function splitName(kind: BlockKind): 'data' | 'index' | 'filter' | 'meta' | 'gap' {
  switch (kind) {
    case 'data':
      return 'data'
    case 'index':
    case 'index partition':
      return 'index'
    case 'filter':
    case 'filter partition':
      return 'filter'
    case 'gap':
      return 'gap'
    default:
      return 'meta'
  }
}

/** The table as propsJson sees it, minus its filter (so nothing beyond what open read is touched). */
function withoutFilter(table: Table): Table {
  const entries = table.metaindexEntries.filter((e) => !e.name.startsWith('filter.') && !e.name.startsWith('fullfilter.') && !e.name.startsWith('partitionedfilter.'))
  return Object.create(table, { metaindexEntries: { value: entries } }) as Table
}

/** The smallest key after `k` in bytewise order. */
function successor(k: Uint8Array): Uint8Array {
  const out = new Uint8Array(k.length + 1)
  out.set(k)
  return out
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

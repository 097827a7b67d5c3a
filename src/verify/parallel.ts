/**
 * verify's data blocks checked in parallel. Worker threads (and the main
 * thread, while it waits) claim chunks of consecutive data blocks from a
 * queue in shared memory (src/util/chunk-queue.ts) and do the
 * expensive, context-free part of each block: read, checksum, decompress and
 * key-order check of the block on its own (BlockSummarizer, through the
 * BlockChecker seam of block-checker.ts). What they hand back
 * per block is tiny: the entry count and the first and last keys.
 *
 * verify.ts stays the one place that decides findings: for a block a worker
 * passed it applies the summary (the checks that need the neighbours: the
 * previous block's last key, the index separators); a block a worker did not
 * pass (or whose first key does not follow the previous block) is read and
 * checked again in verify.ts's serial path, which words the problem. So the
 * findings, their order and their wording do not depend on the number of jobs,
 * and memory is bounded by a small window of chunks, not by the file size.
 */
import { ReadWindow } from '../io/byte-source.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { ChunkQueue, chunkExtent, MAX_CHUNK_HANDLES, orphanedChunks } from '../util/chunk-queue.js'
import { WorkerPool, type PoolSlot } from '../util/worker-pool.js'
import type { BlockHandle } from '../format/block-handle.js'
import type { DataBlockRef, Table } from '../table/reader.js'
import { chunkPassesAcross, IndexWalkStop, NativeBlockChecker, NativeIndexWalk, nativeVerifyAbilities } from './native.js'
import type { IndexBlockIter } from '../format/index-block.js'
import { WasmBlockChecker } from './wasm.js'
import { BlockCode, type BlockChecker, BlockResults, SUMMARY_INTS, type TableFacts, VERIFY_CHECKS } from './block-checker.js'

/** What a worker found in one data block that it passed. */
export interface BlockSummary {
  /** Point entries (0: an empty block, no keys). */
  readonly entries: number
  readonly firstKey: Uint8Array
  readonly lastKey: Uint8Array
}

/** Per block of a chunk, SUMMARY_INTS ints: entries (or REDO), first key offset and length, last key offset and length in `keys`. */
export interface PackedSummaries {
  meta: Int32Array
  keys: Uint8Array
}

/** The block is to be checked again by verify.ts's serial path. */
const REDO = BlockCode.Redo

/** Messages to a verify worker: none of the user's (it claims its chunks from the queue). */
export type VerifyWorkerRequest = never
/** A worker's answer for one chunk. */
export type VerifyWorkerMessage = { kind: 'result'; id: number } & PackedSummaries

/** Start-up data of a verify worker. */
export interface VerifyWorkerData {
  path: string
  maxBlockBytes: number
  /** The chunks to claim (ChunkQueue.attach). */
  queue: SharedArrayBuffer
  queueSlots: number
}

/** Filled in with how the work was split (tests and benchmarks). */
export interface VerifyStats {
  /** Chunks of data blocks (0: a serial run). */
  chunks: number
  chunksByWorkers: number
}

/** Workers run the built JavaScript; from TypeScript sources (tests) verify stays serial. */
const WORKER_URL = new URL('./worker.js', import.meta.url)
export const canUseVerifyWorkers = !import.meta.url.endsWith('.ts')
/**
 * Chunks in flight per worker. Answers are a few KB, so a deep queue costs nothing and
 * keeps a worker busy through the main thread's (or a loaded machine's) scheduling delays.
 */
const WORKER_WINDOW = 8
/** Data bytes per chunk: a few dozen blocks, so a chunk's answer is a few KB. */
export const VERIFY_CHUNK_BYTES = 512 * 1024
/** A chunk's blocks are read in one go up to this span (default chunks are far below it). */
const CHUNK_READ_MAX_BYTES = 2 << 20

/**
 * The context-free checks of data blocks by chunks, as a worker (or the main thread) does
 * them: the chunk read in one go, then its blocks through the native kernel where it loads
 * and through the portable checker (what the kernel leaves, or all of them) behind the same
 * BlockChecker seam (block-checker.ts). Null where they cannot run (no WebAssembly).
 */
export class BlockSummarizer {
  private readonly window: ReadWindow
  private readonly results = new BlockResults()
  /** The portable checker: the blocks the others leave, and every block of a chunk that does not read in one go. */
  private readonly portable: WasmBlockChecker
  /** A chunk's checkers in turn: the native kernel (native/verify-kernel.c) where it loads and is wanted, then the portable one. */
  private readonly checkers: BlockChecker[]

  /** Whether create() gives a summarizer here (WebAssembly runs). */
  static get available(): boolean {
    return WasmBlockChecker.available
  }

  /** `native` false: every block through the portable checker (what the native kernel is tested against). */
  static create(table: Table, native = true): BlockSummarizer | null {
    const facts = tableFacts(table)
    const portable = WasmBlockChecker.create(facts)
    return portable ? new BlockSummarizer(table, facts, portable, native) : null
  }

  private constructor(
    private readonly table: Table,
    facts: TableFacts,
    portable: WasmBlockChecker,
    native: boolean,
  ) {
    this.portable = portable
    const kernel = native ? NativeBlockChecker.create(VERIFY_CHECKS, facts) : null
    this.checkers = kernel ? [kernel, portable] : [portable]
    this.window = new ReadWindow(table.source)
  }

  /**
   * Summaries of the blocks at [offset, size, offset, size, ...]. `strict` (the main thread): a
   * failed read of the chunk is returned as `readError`, every block then to be checked again,
   * so that verify.ts reports it; a worker's is left to the reads of its blocks one by one.
   */
  summarize(handles: Float64Array, strict = false): PackedSummaries & { readError?: { error: unknown } } {
    // The chunk's blocks in one read: the usual readahead would read past them into blocks other threads check.
    const extent = chunkExtent(handles, BLOCK_TRAILER_BYTES, this.table.source.size, CHUNK_READ_MAX_BYTES)
    const blocks = handles.length / 2
    const results = this.results
    // A new meta per chunk: a worker hands it on.
    const meta = results.reset(blocks, true)
    let filled = false
    try {
      filled = extent !== null && this.window.fill(extent.offset, extent.length, strict)
    } catch (error) {
      meta.fill(0)
      for (let b = 0; b < blocks; b++) meta[b * SUMMARY_INTS] = REDO
      return { meta, keys: NO_KEY, readError: { error } }
    }
    if (filled && extent) {
      // The kernel's one call for the chunk, then the blocks it leaves (another codec, say) in place in the window.
      for (const checker of this.checkers) checker.check(this.window.bytes, extent.length, extent.offset, handles, results)
    }
    // A chunk that did not read in one go: block by block, through the window.
    if (results.someNotHandled()) this.portable.checkFrom(this.window, handles, results)
    return { meta, keys: results.keys.slice(0, results.used) }
  }

  /**
   * A block of verify.ts's serial path, read through its window (in place: no RawBlock or views;
   * a failed read is thrown, for verify.ts to report as it reports any read), checked as a worker
   * checks one: a summary (its keys are views valid until the next check), or null: check it
   * there in JavaScript. The block must lie before the footer.
   */
  summarizeIn(window: ReadWindow, offset: number, size: number): BlockSummary | null {
    const at = window.at(offset, size + BLOCK_TRAILER_BYTES)
    let n: number
    try {
      n = this.portable.checkOne(window.bytes, at, offset, size)
    } catch {
      return null
    }
    if (n === REDO) return null
    if (n === 0) return { entries: 0, firstKey: NO_KEY, lastKey: NO_KEY }
    return { entries: n, firstKey: this.portable.firstKey(), lastKey: this.portable.lastKey() }
  }
}

/** What a checker needs of `table`; a dictionary that does not read is left out (verify.ts reports it; blocks needing it are checked again there). */
function tableFacts(table: Table): TableFacts {
  let dictionary: Uint8Array | undefined
  try {
    dictionary = table.dictionary() ?? undefined
  } catch {
    dictionary = undefined
  }
  return { checksum: table.checksum, footerOffset: table.footer.offset, maxBlockBytes: table.maxBlockBytes, dictionary }
}

const NO_KEY = new Uint8Array(0)

/**
 * A data block as verify.ts walks it: its handle, index key and (partitioned indexes) index
 * partition. With `run`, it stands for a whole chunk whose blocks workers passed and whose
 * checks across blocks all pass after verify.ts's state (native.ts chunkPassesAcross):
 * its handle is the first block's, its index key the last block's.
 */
export type VerifyBlockRef = Pick<DataBlockRef, 'handle' | 'indexKey' | 'partition'> & {
  run?: CleanRun
  /** On a chunk's first block: the main thread's read of the chunk failed (its blocks are checked one by one). */
  readError?: { error: unknown }
}

/** A chunk verify.ts takes whole (VerifyBlockRef.run). */
export interface CleanRun {
  readonly blocks: number
  readonly entries: number
  /** The last key of its last block with entries (null: none has any). */
  readonly lastKey: Uint8Array | null
}

/** verify.ts's state before a block: the last key so far and the previous index separator. */
export interface AcrossState {
  prevKey: Uint8Array | null
  prevIndexKey: Uint8Array | null
}

/**
 * A chunk read ahead from the index. Its blocks are kept packed, not as a ref object each, in
 * buffers reused chunk after chunk: the window holds a few thousand blocks for as long as the
 * workers take, and what lives that long survives young-generation GCs. Objects were copied by
 * each and promoted (22 MB of the 224 MB file's, 95 ms of pauses, where the serial run promotes
 * 1 MB); a buffer per chunk (its keys, a worker's answer) was promoted and its memory freed only
 * by a full GC, which then hardly ever ran (+25 MB of peak RSS on the 1 GB file).
 */
interface Chunk {
  /** Its id in the queue (which holds its handles). */
  id: number
  blocks: number
  /** Where its index keys and its summaries are (Store.keys, Store.keyEnds, Store.summary). */
  store: Store
  /** Each block's index partition (partitioned indexes), else null. */
  partitions: (BlockHandle | null)[] | null
  /** Whether store.summary holds the chunk's summaries. */
  checked: boolean
  /** The main thread's read of the chunk failed (its blocks are then checked one by one): verify.ts reports it. */
  readError: { error: unknown } | null
}

/** The buffers of one chunk in the window, reused by the chunks after it (ParallelBlockChecks.stores). */
class Store {
  /** Block b's index key is keys[keyEnds[b - 1] (0 for b = 0) .. keyEnds[b]). */
  keys = new Uint8Array(8 * 1024)
  keyEnds = new Int32Array(256)
  summary: PackedSummaries = { meta: new Int32Array(256 * SUMMARY_INTS), keys: new Uint8Array(16 * 1024) }

  /** Keep a copy of `s` (its buffers then die young). */
  setSummary(s: PackedSummaries): void {
    const d = this.summary
    if (d.meta.length < s.meta.length) d.meta = new Int32Array(s.meta.length)
    if (d.keys.length < s.keys.length) d.keys = new Uint8Array(Math.max(s.keys.length, 2 * d.keys.length))
    d.meta.set(s.meta)
    d.keys.set(s.keys)
  }
}

/**
 * Reads the index ahead of verify.ts's loop (wrap) and publishes the chunks in
 * a shared queue (src/util/chunk-queue.ts) that the workers claim from; the
 * main thread claims too whenever the chunk verify.ts reaches is not checked
 * yet. It answers for each block verify.ts reaches whether a worker passed it
 * (summary). Everything runs on the calling thread's schedule: the pool is
 * polled, never awaited.
 */
export class ParallelBlockChecks {
  private readonly pool: WorkerPool<VerifyWorkerRequest, VerifyWorkerMessage>
  private readonly local: BlockSummarizer
  private readonly queue: ChunkQueue
  /** The window: chunks read from the index and not yet walked by verify.ts; the head is the current one. */
  private readonly window: Chunk[] = []
  private pos = -1
  /** The head chunk's handles (in the queue, valid while it is the head). */
  private headHandles: Float64Array = new Float64Array(0)
  /**
   * Chunk id's buffers are stores[id % stores.length]: one more than the queue's slots, since
   * verify.ts still holds the previous block's index key (a view) when the next chunk is published.
   */
  private readonly stores: Store[]
  private source: Iterator<DataBlockRef> | null = null
  /** The table's one index block (wrap's binaryIndex), while the kernel walks it. */
  private binaryIndex: (() => IndexBlockIter) | null = null
  private indexWalk: NativeIndexWalk | null = null
  /** The index's first entry, decoded in JavaScript, for the first chunk. */
  private firstEntry: { offset: number; size: number; key: Uint8Array } | null = null
  private exhausted = false
  private indexError: { error: unknown } | null = null
  /** Tests (awaitWorkers): after each chunk the main thread takes, the next is left to the workers until one answers. */
  private leaveToWorkers = false
  private awaited = false
  /** The index's separators are user keys (else internal keys). */
  private readonly sepIsUserKey: boolean
  /** Whether the native kernel checks chunks across their blocks and walks the index (it loads, and the caller wants it). */
  private readonly useNative: boolean

  /**
   * The workers start first: the main thread's own summarizer (`makeLocal`: loading the
   * native kernel and compiling WebAssembly) then overlaps their start.
   */
  constructor(
    table: Table,
    makeLocal: () => BlockSummarizer,
    path: string,
    workers: number,
    private readonly chunkBytes: number,
    private readonly stats?: VerifyStats,
    native = true,
  ) {
    this.queue = ChunkQueue.create(workers * WORKER_WINDOW + 2)
    const data: VerifyWorkerData = { path, maxBlockBytes: table.maxBlockBytes, queue: this.queue.buffer, queueSlots: this.queue.slots }
    this.pool = new WorkerPool(WORKER_URL, workers, data, { unref: true })
    this.stores = Array.from({ length: this.queue.slots + 1 }, () => new Store())
    this.sepIsUserKey = table.indexEncoding.keyIsUserKey
    this.local = makeLocal()
    this.useNative = native && nativeVerifyAbilities() !== null
  }

  /** The main thread's summarizer (verify.ts's serial checks use it too). */
  get summarizer(): BlockSummarizer {
    return this.local
  }

  /** Wait until every worker has started (tests: so that workers take chunks even of a small file). */
  awaitWorkers(): void {
    this.awaited = true
    while (this.pool.slots.some((s) => !s.ready && !s.dead)) this.waitForWorker()
  }

  /**
   * The data blocks of `refs`, in order; an error of the index is thrown where it was met. With
   * `state` (verify.ts's, read when a chunk starts), a chunk that passes whole comes as one ref
   * with `run` where the native kernel is available. With `binaryIndex` (the index of a table
   * whose index is one block without first keys, as `refs` walks it), the kernel walks the index
   * (readChunkNative) and `refs` takes over where the kernel meets anything unusual.
   */
  wrap(refs: Iterator<DataBlockRef>, state?: () => AcrossState, binaryIndex?: () => IndexBlockIter): Iterator<VerifyBlockRef> {
    this.source = refs
    this.binaryIndex = this.useNative ? (binaryIndex ?? null) : null
    return {
      next: (): IteratorResult<VerifyBlockRef> => {
        this.pos++
        if (this.window.length > 0 && this.pos >= this.window[0].blocks) {
          this.window.shift()
          this.pos = 0
        }
        this.fill()
        if (this.window.length === 0) {
          if (this.indexError) {
            const { error } = this.indexError
            this.indexError = null
            throw error
          }
          return { done: true, value: undefined }
        }
        const c = this.window[0]
        const b = this.pos
        let readError: { error: unknown } | undefined
        if (b === 0) {
          this.headHandles = this.queue.handlesOf(c.id)
          const run = state && this.useNative ? this.cleanRun(c, state()) : null
          if (c.readError) readError = c.readError
          if (run) {
            this.pos = c.blocks - 1
            const h = this.headHandles
            const { keys, keyEnds } = c.store
            const last = c.blocks - 1
            const indexKey = keys.subarray(last === 0 ? 0 : keyEnds[last - 1], keyEnds[last])
            return { done: false, value: { handle: { offset: h[0], size: h[1] }, indexKey, partition: c.partitions ? c.partitions[last] : null, run } }
          }
        }
        const h = this.headHandles
        const handle = { offset: h[2 * b], size: h[2 * b + 1] }
        const { keys, keyEnds } = c.store
        const indexKey = keys.subarray(b === 0 ? 0 : keyEnds[b - 1], keyEnds[b])
        return { done: false, value: { handle, indexKey, partition: c.partitions ? c.partitions[b] : null, ...(readError ? { readError } : {}) } }
      },
    }
  }

  /** A worker's summary of the block wrap() yielded last, or null when the block must be checked in verify.ts. */
  summary(): BlockSummary | null {
    const head = this.window[0]
    this.awaitChecked(head)
    const { meta, keys } = head.store.summary
    const at = this.pos * SUMMARY_INTS
    const entries = meta[at]
    if (entries === REDO) return null
    const firstKey = keys.subarray(meta[at + 1], meta[at + 1] + meta[at + 2])
    const lastKey = keys.subarray(meta[at + 3], meta[at + 3] + meta[at + 4])
    return { entries, firstKey, lastKey }
  }

  /** Until the head chunk `head` is checked: by this thread when no worker has claimed it, else by waiting for one. */
  private awaitChecked(head: Chunk): void {
    while (!head.checked) {
      const id = this.leaveToWorkers ? -1 : this.queue.claim(MAIN_THREAD)
      if (id >= 0) {
        if (this.awaited) this.leaveToWorkers = true
        this.checkHere(id)
      } else if (!this.poll()) this.waitForWorker()
    }
  }

  /** The head chunk `c` as one run, when the kernel finds every check across its blocks passing after `state`; else null. */
  private cleanRun(c: Chunk, state: AcrossState): CleanRun | null {
    this.awaitChecked(c)
    const { meta, keys } = c.store.summary
    const chunk = { blocks: c.blocks, meta, keys, indexKeys: c.store.keys, indexEnds: c.store.keyEnds }
    if (!chunkPassesAcross(chunk, this.sepIsUserKey, state.prevKey, state.prevIndexKey)) return null
    let entries = 0
    let lastKey: Uint8Array | null = null
    for (let b = 0; b < c.blocks; b++) {
      const at = b * SUMMARY_INTS
      entries += meta[at]
      if (meta[at] > 0) lastKey = keys.subarray(meta[at + 3], meta[at + 3] + meta[at + 4])
    }
    return { blocks: c.blocks, entries, lastKey }
  }

  /** Close the workers (the handshake; also on process exit). */
  close(): void {
    if (this.stats) this.stats.chunks = this.queue.published
    this.queue.close()
    this.pool.close()
  }

  /** Read chunks from the index and publish them, as far ahead of verify.ts as the queue holds. */
  private fill(): void {
    this.poll()
    const head = this.window.length > 0 ? this.window[0].id : this.queue.published
    while (!this.exhausted && this.queue.hasRoom(head)) {
      const c = this.readChunk()
      if (c) this.window.push(c)
    }
  }

  /** The next chunk of about chunkBytes of data blocks (published), or null at the end (or at an error of the index). */
  private readChunk(): Chunk | null {
    if (this.binaryIndex) {
      const c = this.readChunkNative()
      if (c !== undefined) return c
    }
    const list: number[] = []
    const store = this.stores[this.queue.published % this.stores.length]
    let partitions: (BlockHandle | null)[] | null = null
    let blocks = 0
    let used = 0
    let bytes = 0
    while (bytes < this.chunkBytes && blocks < MAX_CHUNK_HANDLES) {
      let r: IteratorResult<DataBlockRef>
      try {
        r = (this.source as Iterator<DataBlockRef>).next()
      } catch (error) {
        // verify.ts reports it once every block before it is checked, as a serial run does.
        this.indexError = { error }
        this.exhausted = true
        break
      }
      if (r.done) {
        this.exhausted = true
        break
      }
      const { handle, indexKey, partition } = r.value
      if (used + indexKey.length > store.keys.length) {
        const bigger = new Uint8Array(Math.max(2 * store.keys.length, used + indexKey.length))
        bigger.set(store.keys.subarray(0, used))
        store.keys = bigger
      }
      store.keys.set(indexKey, used)
      used += indexKey.length
      if (blocks === store.keyEnds.length) {
        const bigger = new Int32Array(2 * blocks)
        bigger.set(store.keyEnds)
        store.keyEnds = bigger
      }
      store.keyEnds[blocks++] = used
      if (partition && !partitions) partitions = new Array<BlockHandle | null>(blocks - 1).fill(null)
      partitions?.push(partition)
      list.push(handle.offset, handle.size)
      bytes += handle.size
    }
    if (blocks === 0) return null
    return { id: this.queue.publish(list), blocks, store, partitions, checked: false, readError: null }
  }

  /**
   * readChunk with the index walked by the kernel (native.ts NativeIndexWalk): the same
   * chunks as from `source`, without an object per block. Undefined: `source` goes on from here
   * (the kernel is not available, or met an entry it leaves to the JavaScript iterator).
   */
  private readChunkNative(): Chunk | null | undefined {
    if (!this.indexWalk) {
      // The first entry as dataBlocks() decodes it: an error here is the index's, met where the iterator meets it.
      let top: IndexBlockIter
      try {
        top = (this.binaryIndex as () => IndexBlockIter)()
        top.seekToFirst()
      } catch (error) {
        this.indexError = { error }
        this.exhausted = true
        return null
      }
      if (!top.valid) {
        this.exhausted = true
        return null
      }
      const first = { next: top.iter.valueEnd, offset: top.handle.offset, size: top.handle.size, key: top.key }
      this.indexWalk = NativeIndexWalk.create(top.iter.block, top.iter.layout, top.encoding.valueIsDeltaEncoded, first)
      if (!this.indexWalk) {
        this.binaryIndex = null
        return undefined
      }
      this.firstEntry = { offset: first.offset, size: first.size, key: first.key.slice() }
    }
    const walk = this.indexWalk
    const store = this.stores[this.queue.published % this.stores.length]
    if (store.keyEnds.length < MAX_CHUNK_HANDLES) store.keyEnds = new Int32Array(MAX_CHUNK_HANDLES)
    const handles = this.queue.nextHandles()
    let blocks = 0
    let used = 0
    let bytes = 0
    if (this.firstEntry) {
      const f = this.firstEntry
      this.firstEntry = null
      handles[0] = f.offset
      handles[1] = f.size
      if (f.key.length > store.keys.length) store.keys = new Uint8Array(2 * f.key.length)
      store.keys.set(f.key)
      store.keyEnds[0] = used = f.key.length
      blocks = 1
      bytes = f.size
    }
    while (bytes < this.chunkBytes && blocks < MAX_CHUNK_HANDLES && walk.stop === IndexWalkStop.Limit) {
      const n = walk.next(MAX_CHUNK_HANDLES - blocks, this.chunkBytes - bytes, handles.subarray(2 * blocks), store.keys, used, store.keyEnds.subarray(blocks))
      for (let b = blocks; b < blocks + n; b++) bytes += handles[2 * b + 1]
      blocks += n
      if (blocks > 0) used = store.keyEnds[blocks - 1]
      if (n === 0 && walk.stop === IndexWalkStop.Limit) {
        // the keys did not fit
        const bigger = new Uint8Array(2 * store.keys.length)
        bigger.set(store.keys.subarray(0, used))
        store.keys = bigger
      }
    }
    if (walk.stop === IndexWalkStop.End) this.exhausted = true
    else if (walk.stop === IndexWalkStop.Unusual) {
      // The JavaScript iterator goes on from the entry the kernel stopped at (and words what it finds there).
      this.binaryIndex = null
      try {
        for (let i = 0; i < walk.entries; i++) (this.source as Iterator<DataBlockRef>).next()
      } catch (error) {
        this.indexError = { error }
        this.exhausted = true
      }
    }
    if (blocks === 0) return this.exhausted ? null : undefined
    return { id: this.queue.publishWritten(blocks), blocks, store, partitions: null, checked: false, readError: null }
  }

  /** The chunk of the window with this id, if it is still there and unchecked. */
  private unchecked(id: number): Chunk | null {
    const c = this.window.length > 0 ? this.window[id - this.window[0].id] : undefined
    return c && !c.checked ? c : null
  }

  /** Check a chunk on this thread. */
  private checkHere(id: number): void {
    const c = this.unchecked(id)
    if (!c) return
    const s = this.local.summarize(this.queue.handlesOf(id), true)
    c.store.setSummary(s)
    c.readError = s.readError ?? null
    c.checked = true
  }

  private readonly received = (_s: PoolSlot, m: VerifyWorkerMessage): void => {
    this.leaveToWorkers = false
    const c = this.unchecked(m.id)
    if (!c) return
    c.store.setSummary(m)
    c.checked = true
    if (this.stats) this.stats.chunksByWorkers++
  }

  private poll(): boolean {
    return this.pool.poll(this.received)
  }

  /** Block until a worker answers; the chunks a worker that died had claimed are checked here. */
  private waitForWorker(): void {
    if (this.pool.wait(this.received, 50)) return
    this.leaveToWorkers = false
    if (this.pool.exited().length === 0) return
    this.poll() // their last answers may have arrived just before they went
    const from = this.window.length > 0 ? this.window[0].id : this.queue.claimed
    for (const id of orphanedChunks(this.queue, from, this.pool.liveThreadIds())) this.checkHere(id)
  }
}

/** The main thread's owner id in the queue (a worker's is its threadId). */
const MAIN_THREAD = 0

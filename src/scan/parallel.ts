/**
 * The parallel scan: the main thread cuts the data blocks into chunks and
 * publishes them in shared memory (src/util/chunk-queue.ts); worker threads
 * (src/util/worker-pool.ts), each with the file opened itself, claim chunks,
 * print them into buffers and hand those back. The main thread claims chunks
 * too (the next one to write goes straight into the output) and writes every
 * chunk's output in file order. Everything stays synchronous on the main
 * thread (the pool is polled), output is byte-identical to a serial scan, and
 * memory is bounded by the chunks the queue holds, not by the file size.
 */
import type { BlockHandle } from '../format/block-handle.js'
import { errorFromTransfer, type TransferredError } from '../errors.js'
import type { RangeTombstone } from '../format/range-del.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import type { KeyFormat, Table } from '../table/reader.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { ChunkQueue, chunkExtent, MAX_CHUNK_HANDLES, orphanedChunks } from '../util/chunk-queue.js'
import { WorkerPool, type PoolSlot } from '../util/worker-pool.js'
import type { ChunkResult, ScanSpec } from './printer.js'
import { WASM_OUTPUT_BYTES } from './wasm-printer.js'

/** What a scan did in parallel, for tests and the drop-in's summary. */
export interface ScanStats {
  /** Chunks of blocks (0: a serial scan). */
  chunks: number
  /** Chunks printed by worker threads. */
  chunksByWorkers: number
}

/** Messages to a scan worker: output buffers of earlier answers, written and returned for reuse. */
export type ScanWorkerRequest = { kind: 'buffers'; buffers: ArrayBuffer[] }

/** A worker says `ready` once it has opened the file (the pool's message), then answers each chunk it claims. */
export type ScanWorkerMessage = ScanWorkerResult

/** A worker's answer for one chunk. */
export interface ScanWorkerResult extends ChunkResult {
  kind: 'result'
  id: number
  output: Uint8Array[]
  error?: TransferredError
}

/** Start-up data of a scan worker. */
export interface ScanWorkerData {
  path: string
  spec: ScanSpec
  tombstones: RangeTombstone[]
  verifyChecksums: boolean
  maxBlockBytes: number
  /** As the main thread opened the table: the key format it settled on, the comparator a caller stated. */
  keyFormat: KeyFormat
  comparator?: string
  /** The chunks to claim (ChunkQueue.attach). */
  queue: SharedArrayBuffer
  queueSlots: number
}

/** Workers run the built JavaScript; from TypeScript sources (tests) scans stay serial. */
const WORKER_URL = new URL('./worker.js', import.meta.url)
export const canUseWorkers = !import.meta.url.endsWith('.ts')
/**
 * Chunks in flight per thread (published, not yet written): enough that no
 * thread waits for another's scheduling, few enough that their output (about
 * 2.5x the chunk's data bytes) stays a few MB.
 */
const SLOTS_PER_THREAD = 4
/**
 * Output of chunks printed aside travels in buffers of this size (kept in
 * pools, reused): at least the WebAssembly printer's output region, which it
 * copies out whole. (At 256 KiB every chunk's copy took a fresh, larger buffer
 * that no pool kept: ~70 MB of dead buffers at the peak.)
 */
export const OUTPUT_BUFFER_BYTES = WASM_OUTPUT_BYTES
/** Spare output buffers a thread keeps: about the most its chunks in flight hold at once. */
export const OUTPUT_BUFFERS_KEPT = 16

type Printed = (ScanWorkerResult & { slot: PoolSlot }) | { id: number; local: ChunkResult; output: Uint8Array[]; error?: unknown }

/** What prints the chunks on the main thread: scan's EntryPrinter, or another format's printer (sst-dump's). */
export interface ChunkPrinter {
  readonly tombstones: readonly unknown[]
  printBlocks(w: LineWriter, handles: Iterable<BlockHandle>, ti: number, limit: number): ChunkResult
  printTombstones(w: LineWriter, from: number, to: number, limit: number): number
  /** Read [offset, offset + length), a chunk's blocks, in one go before printing them (optional). */
  readAhead?(offset: number, length: number): void
}

/** Another worker script speaking the same protocol (ScanWorkerRequest / ScanWorkerResult), with its own start-up data. */
export interface ChunkWorker {
  url: URL
  data: unknown
}

export class ParallelScan {
  /** The workers; they claim chunks from the queue themselves once they have opened the file. */
  private readonly pool: WorkerPool<ScanWorkerRequest, ScanWorkerMessage>
  private readonly queue: ChunkQueue
  private readonly fileSize: number
  /** Printed chunks waiting for their turn to be written. */
  private readonly ready = new Map<number, Printed>()
  private nextWrite = 0
  private exhausted = false
  /** The index failed part way: thrown once every chunk before it is written. */
  private indexError: { error: unknown } | null = null
  private ti = 0
  private count = 0
  /**
   * Tests (awaitWorkers): after each chunk the main thread takes, it leaves
   * the next to the workers until one answers, so that workers print chunks
   * even of a small file (else the main thread is through it before they wake).
   */
  private leaveToWorkers = false
  /** Output buffers of chunks printed here out of order. */
  private readonly buffers = new BufferPool(OUTPUT_BUFFER_BYTES, OUTPUT_BUFFERS_KEPT)
  /** Where chunks printed here out of order go: one writer for all, so its buffer after a chunk's flush serves the next. */
  private asideOutput: Uint8Array[] = []
  private readonly asideWriter = new LineWriter((b) => this.asideOutput.push(b), this.buffers)

  constructor(
    table: Table,
    private readonly printer: ChunkPrinter,
    spec: ScanSpec,
    tombstones: RangeTombstone[],
    path: string,
    workers: number,
    private readonly chunkBytes: number,
    private readonly w: LineWriter,
    private readonly stats?: ScanStats,
    worker?: ChunkWorker,
  ) {
    this.queue = ChunkQueue.create(SLOTS_PER_THREAD * (workers + 1))
    this.fileSize = table.source.size
    const queue = { queue: this.queue.buffer, queueSlots: this.queue.slots }
    const scanData: ScanWorkerData = {
      path,
      spec,
      tombstones,
      verifyChecksums: table.verifyChecksums,
      maxBlockBytes: table.maxBlockBytes,
      keyFormat: table.keyFormat,
      ...(table.comparatorSource === 'stated' ? { comparator: table.comparatorName } : {}),
      ...queue,
    }
    // A worker that fails is noticed (exited()) and its chunks are printed here instead.
    // Another worker script gets the queue with its own data.
    const data = worker ? { ...(worker.data as object), ...queue } : scanData
    this.pool = new WorkerPool(worker?.url ?? WORKER_URL, workers, data, { unref: true })
  }

  /** Lines written so far (what run returns; also after it threw). */
  get printed(): number {
    return this.count
  }

  run(handles: Iterator<BlockHandle>, awaitWorkers: boolean): number {
    const source = this.chunks(handles)
    try {
      while (awaitWorkers && this.pool.slots.some((s) => !s.ready && !s.dead)) this.waitForWorker()
      for (;;) {
        if (this.writeReady()) break
        this.publish(source)
        if (this.exhausted && this.nextWrite === this.queue.published) break
        const id = this.leaveToWorkers ? -1 : this.queue.claim(MAIN_THREAD)
        if (id >= 0 && awaitWorkers) this.leaveToWorkers = true
        if (id === this.nextWrite) {
          // The next chunk to write: print it straight into the output, in order.
          const r = printChunk(this.printer, this.w, this.queue.handlesOf(id), this.ti, this.fileSize)
          this.nextWrite++
          this.count += r.count
          this.ti = r.tombstonesTo
          if (r.stop) break
        } else if (id >= 0) this.printAside(id)
        else if (!this.poll()) this.waitForWorker() // the next chunk to write is a worker's
      }
      if (this.stats) this.stats.chunks = this.queue.published
      if (this.indexError) throw this.indexError.error
      // Tombstones after the last entry.
      this.count += this.printer.printTombstones(this.w, this.ti, this.printer.tombstones.length, Infinity)
      return this.count
    } finally {
      // The close handshake (never a terminate inside a native codec call); the
      // pool also closes on process exit (`sstkit scan big.sst | head`).
      this.queue.close()
      this.pool.close()
    }
  }

  /** Chunks of consecutive data blocks of about chunkBytes each, as [offset, size, ...]. */
  private *chunks(handles: Iterator<BlockHandle>): Generator<number[]> {
    for (;;) {
      const list: number[] = []
      let bytes = 0
      let h: IteratorResult<BlockHandle> | null = null
      while (bytes < this.chunkBytes && list.length < 2 * MAX_CHUNK_HANDLES) {
        try {
          h = handles.next()
        } catch (e) {
          // A damaged index part: the blocks before it are still printed (as a serial
          // scan prints them), then the scan fails with this error.
          this.indexError = { error: e }
          break
        }
        if (h.done) break
        list.push(h.value.offset, h.value.size)
        bytes += h.value.size
      }
      if (list.length > 0) yield list
      if (list.length === 0 || this.indexError || h?.done) {
        this.exhausted = true
        return
      }
    }
  }

  /** Publish chunks as far ahead of the write position as the queue holds. */
  private publish(source: Generator<number[]>): void {
    while (!this.exhausted && this.queue.hasRoom(this.nextWrite)) {
      const c = source.next()
      if (c.done) return
      this.queue.publish(c.value)
    }
  }

  /** Print a chunk out of order into its own buffers. */
  private printAside(id: number): void {
    const output: Uint8Array[] = []
    this.asideOutput = output
    const w = this.asideWriter
    let local: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
    let error: unknown
    try {
      local = printChunk(this.printer, w, this.queue.handlesOf(id), -1, this.fileSize)
    } catch (e) {
      error = e
    }
    w.flush()
    this.ready.set(id, { id, local, output, error })
  }

  /** Write every chunk that is next in order; true when the scan must stop. */
  private writeReady(): boolean {
    for (;;) {
      const r = this.ready.get(this.nextWrite)
      if (!r) return false
      this.ready.delete(this.nextWrite)
      this.nextWrite++
      const res: ChunkResult = 'local' in r ? r.local : r
      if (res.tombstonesFrom >= 0) {
        this.count += this.printer.printTombstones(this.w, this.ti, res.tombstonesFrom, Infinity)
        this.ti = res.tombstonesTo
      }
      for (const b of r.output) this.w.write(b)
      this.recycle(r)
      this.count += res.count
      if (r.error !== undefined) throw 'local' in r ? r.error : errorFromTransfer(r.error as TransferredError)
      if (res.stop) return true
    }
  }

  /** Give a printed chunk's buffers back to whoever printed it. */
  private recycle(r: Printed): void {
    const buffers = r.output.map((b) => b.buffer as ArrayBuffer)
    if ('local' in r) for (const b of buffers) this.buffers.give(b)
    else this.pool.send(r.slot, { kind: 'buffers', buffers }, buffers)
  }

  /** A worker's answer for a chunk (one printed here too, after that worker seemed gone, is kept once). */
  private readonly received = (s: PoolSlot, r: ScanWorkerResult): void => {
    this.leaveToWorkers = false
    const printed = { ...r, slot: s }
    if (r.id < this.nextWrite || this.ready.has(r.id)) return this.recycle(printed)
    this.ready.set(r.id, printed)
    if (this.stats) this.stats.chunksByWorkers++
  }

  /** Collect answers already posted; true if any arrived. */
  private poll(): boolean {
    return this.pool.poll(this.received)
  }

  /** Block until a worker answers; chunks that a worker which died had claimed are printed here. */
  private waitForWorker(): void {
    if (this.pool.wait(this.received, 50)) return
    this.leaveToWorkers = false
    if (this.pool.exited().length === 0) return
    this.poll() // their last answers may have arrived just before they went
    for (const id of orphanedChunks(this.queue, this.nextWrite, this.pool.liveThreadIds())) if (!this.ready.has(id)) this.printAside(id)
  }
}

/** A chunk's blocks are read in one go up to this span (default chunks are far below it). */
const CHUNK_READ_MAX_BYTES = 2 << 20

/**
 * Print a chunk's blocks (as [offset, size, ...]), read in one go first: the
 * usual readahead would read past the chunk into blocks other threads print.
 */
export function printChunk(printer: ChunkPrinter, w: LineWriter, pairs: Float64Array, ti: number, fileSize: number): ChunkResult {
  const extent = printer.readAhead ? chunkExtent(pairs, BLOCK_TRAILER_BYTES, fileSize, CHUNK_READ_MAX_BYTES) : null
  if (extent) printer.readAhead!(extent.offset, extent.length)
  return printer.printBlocks(w, handlesOf(pairs), ti, Infinity)
}

/** The main thread's owner id in the queue (a worker's is its threadId). */
const MAIN_THREAD = 0

export function* handlesOf(list: Float64Array): Generator<BlockHandle> {
  for (let i = 0; i < list.length; i += 2) yield { offset: list[i], size: list[i + 1] }
}

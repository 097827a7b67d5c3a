/**
 * The parallel scan: chunks of consecutive data blocks printed by worker
 * threads (src/util/worker-pool.ts), each of which opens the file itself,
 * prints its chunks into buffers and hands them back; the main thread prints
 * chunks too and writes every chunk's output in file order. Everything stays
 * synchronous on the main thread (the pool is polled), output is
 * byte-identical to a serial scan, and memory is bounded by a small window of
 * chunks in flight, not by the file size.
 */
import type { BlockHandle } from '../format/block-handle.js'
import { errorFromTransfer, type TransferredError } from '../errors.js'
import type { RangeTombstone } from '../format/range-del.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import type { KeyFormat, Table } from '../table/reader.js'
import { WorkerPool, type PoolSlot } from '../util/worker-pool.js'
import type { ChunkResult, ScanSpec } from './printer.js'
import type { ScanStats } from './scan.js'

/** Messages to a scan worker. */
export type ScanWorkerRequest =
  | { kind: 'chunk'; id: number; handles: Float64Array }
  /** Output buffers of earlier answers, written and returned for reuse. */
  | { kind: 'buffers'; buffers: ArrayBuffer[] }

/** A worker says `ready` once it has opened the file (the pool's message), then answers each chunk. */
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
}

/** Workers run the built JavaScript; from TypeScript sources (tests) scans stay serial. */
const WORKER_URL = new URL('./worker.js', import.meta.url)
export const canUseWorkers = !import.meta.url.endsWith('.ts')
/** Chunks a worker holds at once (printing one, one queued so it does not wait for the main thread). */
const WORKER_WINDOW = 2
/** Output of chunks printed aside travels in buffers of this size (kept in pools, reused). */
export const OUTPUT_BUFFER_BYTES = 256 * 1024
/** How far ahead of the write position the main thread prints chunks itself. */
const MAIN_AHEAD = 1

interface Chunk {
  id: number
  handles: Float64Array
}

/** What prints the chunks on the main thread: scan's EntryPrinter, or another format's printer (sst-dump's). */
export interface ChunkPrinter {
  readonly tombstones: readonly unknown[]
  printBlocks(w: LineWriter, handles: Iterable<BlockHandle>, ti: number, limit: number): ChunkResult
  printTombstones(w: LineWriter, from: number, to: number, limit: number): number
}

/** Another worker script speaking the same protocol (ScanWorkerRequest / ScanWorkerResult), with its own start-up data. */
export interface ChunkWorker {
  url: URL
  data: unknown
}

export class ParallelScan {
  /** Workers take chunks once ready (they have opened the file); until then the main thread does them. */
  private readonly pool: WorkerPool<ScanWorkerRequest, ScanWorkerMessage>
  /** Chunks sent to each worker (by slot index) and not yet answered. */
  private readonly outstanding: Map<number, Chunk>[]
  /** Printed chunks waiting for their turn to be written. */
  private readonly ready = new Map<
    number,
    (ScanWorkerResult & { slot: PoolSlot }) | { id: number; local: ChunkResult; output: Uint8Array[]; error?: unknown }
  >()
  private nextId = 0
  private nextWrite = 0
  private exhausted = false
  /** The index failed part way: thrown once every chunk before it is written. */
  private indexError: { error: unknown } | null = null
  private ti = 0
  private count = 0
  /** Output buffers of chunks printed here out of order. */
  private readonly buffers = new BufferPool(OUTPUT_BUFFER_BYTES)

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
    const scanData: ScanWorkerData = {
      path,
      spec,
      tombstones,
      verifyChecksums: table.verifyChecksums,
      maxBlockBytes: table.maxBlockBytes,
      keyFormat: table.keyFormat,
      ...(table.comparatorSource === 'stated' ? { comparator: table.comparatorName } : {}),
    }
    // A worker that fails is noticed (exited()) and its chunks are printed here instead.
    this.pool = new WorkerPool(worker?.url ?? WORKER_URL, workers, worker?.data ?? scanData, { unref: true })
    this.outstanding = this.pool.slots.map(() => new Map())
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
        if (this.nextWrite === this.nextId) {
          // The next chunk to write is not printed anywhere: print it here, in order.
          const c = source.next()
          if (c.done) break
          this.nextId++
          this.poll()
          this.feedWorkers(source)
          const r = this.printer.printBlocks(this.w, handlesOf(c.value.handles), this.ti, Infinity)
          this.nextWrite++
          this.count += r.count
          this.ti = r.tombstonesTo
          if (r.stop) break
          continue
        }
        if (this.poll()) continue
        if (this.nextId - this.nextWrite < this.pool.slots.length * WORKER_WINDOW + MAIN_AHEAD && !this.exhausted) {
          // The head chunk is with a worker: print a later chunk meanwhile.
          const c = source.next()
          if (c.done) continue
          this.nextId++
          this.printAside(c.value)
          this.feedWorkers(source)
          continue
        }
        this.waitForWorker()
      }
      if (this.stats) this.stats.chunks = this.nextId
      if (this.indexError) throw this.indexError.error
      // Tombstones after the last entry.
      this.count += this.printer.printTombstones(this.w, this.ti, this.printer.tombstones.length, Infinity)
      return this.count
    } finally {
      // The close handshake (never a terminate inside a native codec call); the
      // pool also closes on process exit (`sstkit scan big.sst | head`).
      this.pool.close()
    }
  }

  /** Chunks of consecutive data blocks of about chunkBytes each. */
  private *chunks(handles: Iterator<BlockHandle>): Generator<Chunk> {
    let id = 0
    for (;;) {
      const list: number[] = []
      let bytes = 0
      let h: IteratorResult<BlockHandle> | null = null
      while (bytes < this.chunkBytes) {
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
      if (list.length > 0) yield { id: id++, handles: Float64Array.from(list) }
      if (list.length === 0 || this.indexError || h?.done) {
        this.exhausted = true
        return
      }
    }
  }

  /** Give each live worker chunks up to its window. */
  private feedWorkers(source: Generator<Chunk>): void {
    for (const s of this.pool.slots) {
      const outstanding = this.outstanding[s.index]
      while (s.ready && !s.dead && !this.exhausted && outstanding.size < WORKER_WINDOW) {
        const c = source.next()
        if (c.done) return
        this.nextId++
        outstanding.set(c.value.id, c.value)
        this.pool.send(s, { kind: 'chunk', id: c.value.id, handles: c.value.handles })
      }
    }
  }

  /** Print a chunk out of order into its own buffers. */
  private printAside(c: Chunk): void {
    const output: Uint8Array[] = []
    const w = new LineWriter((b) => output.push(b), this.buffers)
    let local: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
    let error: unknown
    try {
      local = this.printer.printBlocks(w, handlesOf(c.handles), -1, Infinity)
    } catch (e) {
      error = e
    }
    w.flush()
    this.ready.set(c.id, { id: c.id, local, output, error })
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
      const buffers = r.output.map((b) => b.buffer as ArrayBuffer)
      if ('local' in r) for (const b of buffers) this.buffers.give(b)
      else this.pool.send(r.slot, { kind: 'buffers', buffers }, buffers)
      this.count += res.count
      if (r.error !== undefined) throw 'local' in r ? r.error : errorFromTransfer(r.error as TransferredError)
      if (res.stop) return true
    }
  }

  /** A worker's answer for a chunk. */
  private readonly received = (s: PoolSlot, r: ScanWorkerResult): void => {
    this.outstanding[s.index].delete(r.id)
    this.ready.set(r.id, { ...r, slot: s })
    if (this.stats) this.stats.chunksByWorkers++
  }

  /** Collect answers already posted; true if any arrived. */
  private poll(): boolean {
    return this.pool.poll(this.received)
  }

  /** Block until a worker answers; a worker that died has its chunks printed here. */
  private waitForWorker(): void {
    if (this.pool.wait(this.received, 50)) return
    const gone = this.pool.exited()
    if (gone.length > 0) this.poll() // their last answers may have arrived just before they went
    for (const s of gone) {
      const outstanding = this.outstanding[s.index]
      for (const c of outstanding.values()) this.printAside(c)
      outstanding.clear()
    }
  }
}

/** The handles of a chunk, sent as [offset, size, offset, size, ...]. */
export function* handlesOf(list: Float64Array): Generator<BlockHandle> {
  for (let i = 0; i < list.length; i += 2) yield { offset: list[i], size: list[i + 1] }
}

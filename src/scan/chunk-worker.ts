/**
 * The worker side of the parallel scan's protocol (parallel.ts) for any chunk
 * printer (scan's EntryPrinter, sst-dump's): claim chunks from the shared queue,
 * print each into pooled buffers and post them (transferred, not copied); the
 * main thread sends the buffers back once written. Used by src/scan/worker.ts
 * and src/sstdump/worker.ts, which each open the file their own way.
 */
import { threadId } from 'node:worker_threads'
import { errorToTransfer, type TransferredError } from '../errors.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import { type ChunkQueue, serveChunks } from '../util/chunk-queue.js'
import type { PoolWorkerSide } from '../util/worker-pool.js'
import {
  type ChunkPrinter,
  printChunk,
  OUTPUT_BUFFER_BYTES,
  OUTPUT_BUFFERS_KEPT,
  type ScanWorkerMessage,
  type ScanWorkerRequest,
  type ScanWorkerResult,
} from './parallel.js'
import type { ChunkResult } from './printer.js'

/**
 * Serve chunks with `printer` (null: this thread could not open the file; it still says ready,
 * so that nothing waits for it, and takes no chunks: the main thread prints them). `close`
 * releases the file when the pool closes.
 */
export function serveChunkPrinter(
  side: PoolWorkerSide<unknown, ScanWorkerRequest, ScanWorkerMessage>,
  queue: ChunkQueue,
  printer: ChunkPrinter | null,
  fileSize: number,
  close: () => void,
): void {
  /** Output buffers, sent back by the main thread once written. */
  const pool = new BufferPool(OUTPUT_BUFFER_BYTES, OUTPUT_BUFFERS_KEPT)
  /** One writer for every chunk, so that the buffer it holds after a chunk's flush serves the next chunk. */
  let output: Uint8Array[] = []
  const w = new LineWriter((b) => output.push(b), pool)
  let closed = false
  side.listen(
    (m) => {
      for (const b of m.buffers) pool.give(b)
    },
    () => {
      closed = true
      close()
    },
  )
  const print = (p: ChunkPrinter, id: number): void => {
    output = []
    let r: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
    let error: TransferredError | undefined
    try {
      r = printChunk(p, w, queue.handlesOf(id), -1, fileSize)
    } catch (e) {
      error = errorToTransfer(e)
    }
    w.flush()
    const result: ScanWorkerResult = { ...r, kind: 'result', id, output, error }
    side.post(
      result,
      output.map((b) => b.buffer as ArrayBuffer),
    )
  }
  side.ready()
  if (printer)
    void serveChunks(
      queue,
      threadId,
      () => closed,
      (id) => print(printer, id),
    )
}

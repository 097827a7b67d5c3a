/**
 * An sst-dump worker: scan's chunk protocol (src/scan/parallel.ts, as
 * src/scan/worker.ts speaks it: chunks claimed from the shared queue, each
 * answered with its printed bytes) with sst_dump's printer. It opens the file
 * itself as SstFileDumper does; if that fails it claims nothing and the main
 * thread prints every chunk.
 */
import { threadId } from 'node:worker_threads'
import { errorToTransfer, type TransferredError } from '../errors.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import type { ChunkResult } from '../scan/printer.js'
import {
  OUTPUT_BUFFER_BYTES,
  OUTPUT_BUFFERS_KEPT,
  printChunk,
  type ScanWorkerMessage,
  type ScanWorkerRequest,
  type ScanWorkerResult,
} from '../scan/parallel.js'
import { ChunkQueue } from '../util/chunk-queue.js'
import { poolWorker } from '../util/worker-pool.js'
import { Dumper } from './dumper.js'
import { SstDumpBlockPrinter, type SstDumpWorkerData } from './sequential.js'
import { ByteSink } from './sink.js'

/** How long an idle worker sleeps before looking again (it is woken as soon as a chunk is published). */
const IDLE_WAIT_MS = 50

const side = poolWorker<SstDumpWorkerData & { queue: SharedArrayBuffer; queueSlots: number }, ScanWorkerRequest, ScanWorkerMessage>()
const data = side.data
const queue = ChunkQueue.attach(data.queue, data.queueSlots)
const ignored = new ByteSink(() => {})
const dumper = openOrNull()
// Out of order, bad keys end the chunk (SerialRestart) before anything reaches this sink.
const printer = dumper ? new SstDumpBlockPrinter(dumper, data.read, ignored) : null
/** Output buffers, sent back by the main thread once written. */
const pool = new BufferPool(OUTPUT_BUFFER_BYTES, OUTPUT_BUFFERS_KEPT)
let output: Uint8Array[] = []
const w = new LineWriter((b) => output.push(b), pool)
let closed = false

function openOrNull(): Dumper | null {
  try {
    const d = Dumper.open(data.path, data.fsPath, ignored, data.opts)
    if (!d.status) return d
    d.close()
  } catch {
    // The main thread prints the chunks this worker cannot.
  }
  return null
}

side.listen(
  (m) => {
    for (const b of m.buffers) pool.give(b)
  },
  () => {
    closed = true
    dumper?.close()
  },
)

function print(printer: SstDumpBlockPrinter, id: number, fileSize: number): void {
  output = []
  let r: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
  let error: TransferredError | undefined
  try {
    r = printChunk(printer, w, queue.handlesOf(id), -1, fileSize)
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

/** Claim and print chunks until the queue closes, one per turn of the event loop (as scan's worker). */
async function run(printer: SstDumpBlockPrinter, fileSize: number): Promise<void> {
  while (!closed && !queue.closed) {
    const epoch = queue.epoch
    const id = queue.claim(threadId)
    if (id >= 0) {
      print(printer, id, fileSize)
      await new Promise(setImmediate)
    } else await queue.waitForWorkAsync(epoch, IDLE_WAIT_MS)
  }
}

side.ready()
if (printer && dumper?.table) void run(printer, dumper.table.source.size)

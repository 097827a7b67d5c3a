/**
 * A scan worker: opens the file itself, then claims chunks of data blocks from
 * the shared queue until it closes, answering each with the printed bytes
 * (transferred, not copied). See parallel.ts for the protocol,
 * src/util/worker-pool.ts for the pool's part.
 */
import { threadId } from 'node:worker_threads'
import { errorToTransfer, type TransferredError } from '../errors.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import { openTable, type Table } from '../table/reader.js'
import { ChunkQueue } from '../util/chunk-queue.js'
import { poolWorker } from '../util/worker-pool.js'
import { EntryPrinter, type ChunkResult } from './printer.js'
import {
  printChunk,
  OUTPUT_BUFFER_BYTES,
  OUTPUT_BUFFERS_KEPT,
  type ScanWorkerData,
  type ScanWorkerMessage,
  type ScanWorkerRequest,
  type ScanWorkerResult,
} from './parallel.js'

/** How long an idle worker sleeps before looking again (it is woken as soon as a chunk is published). */
const IDLE_WAIT_MS = 50

const side = poolWorker<ScanWorkerData, ScanWorkerRequest, ScanWorkerMessage>()
const data = side.data
const queue = ChunkQueue.attach(data.queue, data.queueSlots)
const table = openOrNull()
const printer = table ? new EntryPrinter(table, data.spec, data.tombstones) : null
/** Output buffers, sent back by the main thread once written. */
const pool = new BufferPool(OUTPUT_BUFFER_BYTES, OUTPUT_BUFFERS_KEPT)
/** One writer for every chunk, so that the buffer it holds after a chunk's flush serves the next chunk. */
let output: Uint8Array[] = []
const w = new LineWriter((b) => output.push(b), pool)
let closed = false

/**
 * The file as the main thread opened it; null if this thread cannot (it was
 * removed meanwhile, say): then it takes no chunks. It still says ready, so
 * that nothing waits for it; the main thread prints the chunks itself.
 */
function openOrNull(): Table | null {
  try {
    return openTable(data.path, {
      verifyChecksums: data.verifyChecksums,
      maxBlockBytes: data.maxBlockBytes,
      keyFormat: data.keyFormat,
      comparator: data.comparator,
    })
  } catch {
    return null
  }
}

side.listen(
  (m) => {
    for (const b of m.buffers) pool.give(b)
  },
  () => {
    closed = true
    table?.close()
  },
)

function print(printer: EntryPrinter, id: number): void {
  output = []
  let r: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
  let error: TransferredError | undefined
  try {
    r = printChunk(printer, w, queue.handlesOf(id), -1, printer.table.source.size)
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

/**
 * Claim and print chunks until the queue closes. One chunk per turn of the
 * event loop: it delivers the returned buffers and the close message, and
 * runs V8's tasks (a loop that never yields let dead buffers pile up: 200 MB).
 */
async function run(printer: EntryPrinter): Promise<void> {
  while (!closed && !queue.closed) {
    const epoch = queue.epoch
    const id = queue.claim(threadId)
    if (id >= 0) {
      print(printer, id)
      await new Promise(setImmediate)
    } else await queue.waitForWorkAsync(epoch, IDLE_WAIT_MS)
  }
}

side.ready()
if (printer) void run(printer)

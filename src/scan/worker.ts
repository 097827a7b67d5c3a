/**
 * A scan worker: opens the file itself, then claims chunks of data blocks from
 * the shared queue until it closes, answering each with the printed bytes
 * (transferred, not copied). See parallel.ts for the protocol,
 * src/util/worker-pool.ts for the pool's part.
 */
import { threadId } from 'node:worker_threads'
import { errorToTransfer, type TransferredError } from '../errors.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import { openTable } from '../table/reader.js'
import { ChunkQueue } from '../util/chunk-queue.js'
import { poolWorker } from '../util/worker-pool.js'
import { EntryPrinter, type ChunkResult } from './printer.js'
import {
  handlesOf,
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
const table = openTable(data.path, {
  verifyChecksums: data.verifyChecksums,
  maxBlockBytes: data.maxBlockBytes,
  keyFormat: data.keyFormat,
  comparator: data.comparator,
})
const printer = new EntryPrinter(table, data.spec, data.tombstones)
/** Output buffers, sent back by the main thread once written. */
const pool = new BufferPool(OUTPUT_BUFFER_BYTES, OUTPUT_BUFFERS_KEPT)
/** One writer for every chunk, so that the buffer it holds after a chunk's flush serves the next chunk. */
let output: Uint8Array[] = []
const w = new LineWriter((b) => output.push(b), pool)
let closed = false
side.ready()

side.listen(
  (m) => {
    for (const b of m.buffers) pool.give(b)
  },
  () => {
    closed = true
    table.close()
  },
)

function print(id: number): void {
  output = []
  let r: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
  let error: TransferredError | undefined
  try {
    r = printer.printBlocks(w, handlesOf(queue.handlesOf(id)), -1, Infinity)
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
async function run(): Promise<void> {
  while (!closed && !queue.closed) {
    const epoch = queue.epoch
    const id = queue.claim(threadId)
    if (id >= 0) {
      print(id)
      await new Promise(setImmediate)
    } else await queue.waitForWorkAsync(epoch, IDLE_WAIT_MS)
  }
}

void run()

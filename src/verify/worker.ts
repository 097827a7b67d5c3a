/**
 * A verify worker: opens the file itself, then claims chunks of data blocks
 * from the shared queue until it closes, answering each with their summaries
 * (transferred, not copied). See parallel.ts for the protocol,
 * src/util/worker-pool.ts for the pool's part.
 */
import { threadId } from 'node:worker_threads'
import { ChunkQueue, serveChunks } from '../util/chunk-queue.js'
import { poolWorker } from '../util/worker-pool.js'
import { openTable, type Table } from '../table/reader.js'
import { BlockSummarizer, type VerifyWorkerData, type VerifyWorkerMessage, type VerifyWorkerRequest } from './parallel.js'

const side = poolWorker<VerifyWorkerData, VerifyWorkerRequest, VerifyWorkerMessage>()
const queue = ChunkQueue.attach(side.data.queue, side.data.queueSlots)
const table = openOrNull()
const summarizer = table ? BlockSummarizer.create(table) : null
let closed = false

/**
 * The file as the main thread opened it; null if this thread cannot (it was
 * removed meanwhile, say): then it takes no chunks.
 */
function openOrNull(): Table | null {
  try {
    return openTable(side.data.path, { verifyChecksums: false, maxBlockBytes: side.data.maxBlockBytes })
  } catch {
    return null
  }
}
side.listen(
  () => {},
  () => {
    closed = true
    table?.close()
  },
)

// A worker that cannot check (the file is gone; no WebAssembly, where the main thread starts no workers)
// still says ready, so that nothing waits for it, and takes no chunks: the main thread checks them.
side.ready()
if (summarizer) {
  void serveChunks(
    queue,
    threadId,
    () => closed,
    (id) => {
      const r = summarizer.summarize(queue.handlesOf(id))
      side.post({ kind: 'result', id, ...r }, [r.meta.buffer as ArrayBuffer, r.keys.buffer as ArrayBuffer])
    },
  )
}

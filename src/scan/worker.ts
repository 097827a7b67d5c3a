/**
 * A scan worker: opens the file itself, then serves chunks of data blocks from
 * the shared queue with scan's printer (chunk-worker.ts). See parallel.ts for
 * the protocol, src/util/worker-pool.ts for the pool's part.
 */
import { openTable, type Table } from '../table/reader.js'
import { ChunkQueue } from '../util/chunk-queue.js'
import { poolWorker } from '../util/worker-pool.js'
import { serveChunkPrinter } from './chunk-worker.js'
import type { ScanWorkerData, ScanWorkerMessage, ScanWorkerRequest } from './parallel.js'
import { EntryPrinter } from './printer.js'

const side = poolWorker<ScanWorkerData, ScanWorkerRequest, ScanWorkerMessage>()
const data = side.data
const table = openOrNull()

/**
 * The file as the main thread opened it; null if this thread cannot (it was
 * removed meanwhile, say): then it takes no chunks and the main thread prints them.
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

serveChunkPrinter(
  side,
  ChunkQueue.attach(data.queue, data.queueSlots),
  table ? new EntryPrinter(table, data.spec, data.tombstones) : null,
  table?.source.size ?? 0,
  () => table?.close(),
)

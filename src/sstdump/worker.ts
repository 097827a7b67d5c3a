/**
 * An sst-dump worker: scan's chunk protocol (src/scan/parallel.ts, served by
 * src/scan/chunk-worker.ts) with sst_dump's printer. It opens the file itself
 * as SstFileDumper does; if that fails it claims nothing and the main thread
 * prints every chunk.
 */
import { serveChunkPrinter } from '../scan/chunk-worker.js'
import type { ScanWorkerMessage, ScanWorkerRequest } from '../scan/parallel.js'
import { ChunkQueue } from '../util/chunk-queue.js'
import { poolWorker } from '../util/worker-pool.js'
import { Dumper } from './dumper.js'
import { SstDumpBlockPrinter, type SstDumpWorkerData } from './sequential.js'
import { ByteSink } from './sink.js'

const side = poolWorker<SstDumpWorkerData & { queue: SharedArrayBuffer; queueSlots: number }, ScanWorkerRequest, ScanWorkerMessage>()
const data = side.data
const ignored = new ByteSink(() => {})
const dumper = openOrNull()

function openOrNull(): Dumper | null {
  try {
    const d = Dumper.open(data.path, data.fsPath, ignored, { ...data.opts, keepIndex: false })
    if (!d.status && d.table) return d
    d.close()
  } catch {
    // The main thread prints the chunks this worker cannot.
  }
  return null
}

serveChunkPrinter(
  side,
  ChunkQueue.attach(data.queue, data.queueSlots),
  // Out of order, bad keys end the chunk (SerialRestart) before anything reaches this sink.
  dumper ? new SstDumpBlockPrinter(dumper, data.read, ignored) : null,
  dumper?.table?.source.size ?? 0,
  () => dumper?.close(),
)

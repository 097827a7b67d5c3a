/**
 * An sst-dump worker: scan's chunk protocol (src/scan/parallel.ts, as
 * src/scan/worker.ts speaks it) with sst_dump's printer. It opens the file
 * itself as SstFileDumper does; if that fails the worker ends and the main
 * thread prints its chunks.
 */
import { errorToTransfer, type TransferredError } from '../errors.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import type { ChunkResult } from '../scan/printer.js'
import { OUTPUT_BUFFER_BYTES, handlesOf, type ScanWorkerMessage, type ScanWorkerRequest, type ScanWorkerResult } from '../scan/parallel.js'
import { poolWorker } from '../util/worker-pool.js'
import { Dumper } from './dumper.js'
import { SstDumpBlockPrinter, type SstDumpWorkerData } from './sequential.js'
import { ByteSink } from './sink.js'

const side = poolWorker<SstDumpWorkerData, ScanWorkerRequest, ScanWorkerMessage>()
const data = side.data
const ignored = new ByteSink(() => {})
const dumper = Dumper.open(data.path, data.fsPath, ignored, data.opts)
if (dumper.status) throw dumper.status
// Out of order, bad keys end the chunk (SerialRestart) before anything reaches this sink.
const printer = new SstDumpBlockPrinter(dumper, data.read, ignored)
/** Output buffers, sent back by the main thread once written. */
const pool = new BufferPool(OUTPUT_BUFFER_BYTES)
side.ready()

side.listen(
  (m) => {
    if (m.kind === 'buffers') {
      for (const b of m.buffers) pool.give(b)
      return
    }
    const output: Uint8Array[] = []
    const w = new LineWriter((b) => output.push(b), pool)
    let r: ChunkResult = { count: 0, stop: false, tombstonesFrom: -1, tombstonesTo: -1 }
    let error: TransferredError | undefined
    try {
      r = printer.printBlocks(w, handlesOf(m.handles), -1, Infinity)
    } catch (e) {
      error = errorToTransfer(e)
    }
    w.flush()
    const result: ScanWorkerResult = { ...r, kind: 'result', id: m.id, output, error }
    side.post(
      result,
      output.map((b) => b.buffer as ArrayBuffer),
    )
  },
  () => dumper.close(),
)

/**
 * A scan worker: opens the file itself and prints the chunks of data blocks it
 * is sent, answering each with the printed bytes (transferred, not copied).
 * See parallel.ts for the protocol, src/util/worker-pool.ts for the pool's part.
 */
import { errorToTransfer, type TransferredError } from '../errors.js'
import { BufferPool, LineWriter } from '../report/line-writer.js'
import { openTable } from '../table/reader.js'
import { poolWorker } from '../util/worker-pool.js'
import { EntryPrinter, type ChunkResult } from './printer.js'
import { handlesOf, OUTPUT_BUFFER_BYTES, type ScanWorkerData, type ScanWorkerMessage, type ScanWorkerRequest, type ScanWorkerResult } from './parallel.js'

const side = poolWorker<ScanWorkerData, ScanWorkerRequest, ScanWorkerMessage>()
const data = side.data
const table = openTable(data.path, {
  verifyChecksums: data.verifyChecksums,
  maxBlockBytes: data.maxBlockBytes,
  keyFormat: data.keyFormat,
  comparator: data.comparator,
})
const printer = new EntryPrinter(table, data.spec, data.tombstones)
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
  () => table.close(),
)

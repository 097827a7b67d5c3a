/**
 * A verify worker: opens the file itself and answers each chunk of data
 * blocks with their summaries (transferred, not copied). See
 * verify-parallel.ts for the protocol, src/util/worker-pool.ts for the pool's part.
 */
import { poolWorker } from '../util/worker-pool.js'
import { openTable } from './reader.js'
import { BlockSummarizer, type VerifyWorkerData, type VerifyWorkerMessage, type VerifyWorkerRequest } from './verify-parallel.js'

const side = poolWorker<VerifyWorkerData, VerifyWorkerRequest, VerifyWorkerMessage>()
const table = openTable(side.data.path, { verifyChecksums: false, maxBlockBytes: side.data.maxBlockBytes })
const summarizer = BlockSummarizer.create(table)
// Without WebAssembly the main thread does not start workers; if it ever did, this one just never says ready.
if (summarizer) side.ready()

side.listen(
  (m) => {
    const r = (summarizer as BlockSummarizer).summarize(m.handles)
    side.post({ kind: 'result', id: m.id, ...r }, [r.meta.buffer as ArrayBuffer, r.keys.buffer as ArrayBuffer])
  },
  () => table.close(),
)

/** Worker-thread entry: evaluate one task at a time, reporting progress. */
import { parentPort } from 'node:worker_threads'
import { errorToTransfer } from '../errors.js'
import { evaluate, EvaluateTask } from './evaluate.js'
import type { WorkerMessage } from './pool.js'

const port = parentPort
if (!port) throw new Error('recompress worker must run in a worker thread')

port.on('message', (task: EvaluateTask) => {
  let pending = 0
  const post = (m: WorkerMessage) => port.postMessage(m)
  try {
    const result = evaluate(task, () => {
      if (++pending >= 32) {
        post({ kind: 'progress', blocks: pending })
        pending = 0
      }
    })
    if (pending) post({ kind: 'progress', blocks: pending })
    post({ kind: 'done', result })
  } catch (e) {
    post({ kind: 'error', error: errorToTransfer(e) })
  }
})

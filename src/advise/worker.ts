/** Worker-thread entry of advise: evaluate one file task at a time. */
import { parentPort } from 'node:worker_threads'
import { evaluateFile, type FileTask } from './evaluate.js'
import type { WorkerReply } from './pool.js'

const port = parentPort
if (!port) throw new Error('advise worker must run in a worker thread')

port.on('message', (task: FileTask) => {
  let reply: WorkerReply
  try {
    reply = { ok: true, result: evaluateFile(task) }
  } catch (e) {
    const err = e as Error
    reply = { ok: false, name: err.name, message: err.message }
  }
  port.postMessage(reply)
})

/** Worker-thread entry of advise: evaluate one file task at a time (see pool.ts). */
import { sharePeakLock } from '../codec/peak-lock.js'
import { errorToTransfer } from '../errors.js'
import { poolWorker } from '../util/worker-pool.js'
import { evaluateFile } from './evaluate.js'
import { type AdviseReply, type AdviseRequest, afterTask } from './pool.js'

const side = poolWorker<SharedArrayBuffer, AdviseRequest, AdviseReply>()
sharePeakLock(side.data)
side.ready()

side.listen((m) => {
  try {
    side.post({ kind: 'done', id: m.id, result: evaluateFile(m.task) })
  } catch (e) {
    side.post({ kind: 'error', id: m.id, error: errorToTransfer(e) })
  }
  afterTask()
})

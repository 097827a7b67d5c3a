/** Worker-thread entry: evaluate one task at a time, reporting progress (see pool.ts). */
import { splitKernelCompression } from '../codec/kernel.js'
import { sharePeakLock } from '../codec/peak-lock.js'
import { errorToTransfer } from '../errors.js'
import { collectGarbage } from '../util/garbage.js'
import { poolWorker } from '../util/worker-pool.js'
import { evaluate } from './evaluate.js'
import type { WorkerMessage, WorkerRequest } from './pool.js'

const side = poolWorker<SharedArrayBuffer, WorkerRequest, WorkerMessage>()
sharePeakLock(side.data)
side.ready()

side.listen((m) => {
  let pending = 0
  splitKernelCompression(m.task.splitCompression === true)
  try {
    const result = evaluate(m.task, () => {
      if (++pending >= 32) {
        side.post({ kind: 'progress', blocks: pending })
        pending = 0
      }
    })
    if (pending) side.post({ kind: 'progress', blocks: pending })
    side.post({ kind: 'done', id: m.id, result })
  } catch (e) {
    side.post({ kind: 'error', id: m.id, error: errorToTransfer(e) })
  }
  collectGarbage()
})

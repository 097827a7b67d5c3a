/**
 * Runs evaluation tasks on worker threads (`--jobs`), or inline when one job
 * suffices or when running from TypeScript sources (tests), where the worker
 * script is not built. Results never depend on the number of jobs: each task
 * is a pure function of its inputs (timings aside).
 */
import { Worker } from 'node:worker_threads'
import { errorFromTransfer, type TransferredError } from '../errors.js'
import { ConfigMeasurement, evaluate, EvaluateTask } from './evaluate.js'
import type { SkippedBlock } from './source.js'

export interface TaskResult {
  results: ConfigMeasurement[]
  skipped: SkippedBlock[]
}

/** Messages from a worker. */
export type WorkerMessage = { kind: 'progress'; blocks: number } | { kind: 'done'; result: TaskResult } | { kind: 'error'; error: TransferredError }

const WORKER_URL = new URL('./worker.js', import.meta.url)
const canUseWorkers = !import.meta.url.endsWith('.ts')

export async function runTasks(tasks: EvaluateTask[], jobs: number, onBlocks?: (n: number) => void): Promise<TaskResult[]> {
  if (jobs <= 1 || tasks.length <= 1 || !canUseWorkers) {
    const out: TaskResult[] = []
    for (const t of tasks) {
      out.push(evaluate(t, () => onBlocks?.(1)))
      // Let a progress display repaint between tasks.
      await new Promise((r) => setImmediate(r))
    }
    return out
  }
  const results: TaskResult[] = new Array(tasks.length)
  let next = 0
  const runOne = (worker: Worker): Promise<void> =>
    new Promise((resolve, reject) => {
      const i = next++
      if (i >= tasks.length) {
        resolve()
        return
      }
      const onMessage = (m: WorkerMessage) => {
        if (m.kind === 'progress') onBlocks?.(m.blocks)
        else {
          worker.off('message', onMessage)
          worker.off('error', onError)
          if (m.kind === 'error') {
            reject(errorFromTransfer(m.error))
            return
          }
          results[i] = m.result
          runOne(worker).then(resolve, reject)
        }
      }
      const onError = (e: Error) => reject(e)
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.postMessage(tasks[i])
    })
  const workers = Array.from({ length: Math.min(jobs, tasks.length) }, () => new Worker(WORKER_URL))
  try {
    await Promise.all(workers.map((w) => runOne(w)))
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
  return results
}

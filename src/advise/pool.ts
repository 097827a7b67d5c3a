/**
 * Runs advise's file tasks: lane j of every round goes to worker j, so a
 * worker's dictionary cache serves the same files and settings round after
 * round. Inline when one job suffices or when running from TypeScript sources
 * (tests), where the worker script is not built. Results never depend on the
 * number of jobs: each task is a pure function of its inputs (timings aside).
 */
import { Worker } from 'node:worker_threads'
import { evaluateFile, RoundTripError, type FileTask, type FileTaskResult } from './evaluate.js'

export type WorkerReply = { ok: true; result: FileTaskResult } | { ok: false; name: string; message: string }

const WORKER_URL = new URL('./worker.js', import.meta.url)
const canUseWorkers = !import.meta.url.endsWith('.ts')

export class AdvisePool {
  private readonly workers: Worker[]

  constructor(readonly lanes: number) {
    this.workers = lanes > 1 && canUseWorkers ? Array.from({ length: lanes }, () => new Worker(WORKER_URL)) : []
  }

  /** Run tasks; `lane` picks the worker. Results come back in task order. */
  async run(tasks: { lane: number; task: FileTask }[]): Promise<FileTaskResult[]> {
    if (this.workers.length === 0) {
      const out: FileTaskResult[] = []
      for (const t of tasks) {
        out.push(evaluateFile(t.task))
        await new Promise((r) => setImmediate(r))
      }
      return out
    }
    const byLane = new Map<number, number[]>()
    tasks.forEach((t, i) => byLane.set(t.lane % this.workers.length, [...(byLane.get(t.lane % this.workers.length) ?? []), i]))
    const results: FileTaskResult[] = new Array(tasks.length)
    await Promise.all(
      [...byLane].map(async ([lane, indices]) => {
        for (const i of indices) results[i] = await this.post(this.workers[lane], tasks[i].task)
      }),
    )
    return results
  }

  private post(worker: Worker, task: FileTask): Promise<FileTaskResult> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: WorkerReply) => {
        worker.off('error', onError)
        if (m.ok) resolve(m.result)
        else {
          const e = m.name === 'RoundTripError' ? new RoundTripError(m.message) : new Error(m.message)
          if (m.name !== 'RoundTripError') e.name = m.name
          reject(e)
        }
      }
      const onError = (e: Error) => {
        worker.off('message', onMessage)
        reject(e)
      }
      worker.once('message', onMessage)
      worker.once('error', onError)
      worker.postMessage(task)
    })
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()))
  }
}

/**
 * Runs advise's file tasks on the shared worker pool (src/util/worker-pool.ts):
 * lane j of every round goes to worker j, so a worker's dictionary cache
 * serves the same files and settings round after round. Inline when one job
 * suffices or when running from TypeScript sources (tests), where the worker
 * script is not built. Results never depend on the number of jobs: each task is
 * a pure function of its inputs (timings aside).
 */
import { errorFromTransfer, type TransferredError } from '../errors.js'
import { WorkerPool, type PoolSlot } from '../util/worker-pool.js'
import { evaluateFile, type FileTask, type FileTaskResult } from './evaluate.js'

export type AdviseRequest = { kind: 'task'; id: number; task: FileTask }
export type AdviseReply = { kind: 'done'; id: number; result: FileTaskResult } | { kind: 'error'; id: number; error: TransferredError }

const WORKER_URL = new URL('./worker.js', import.meta.url)
const canUseWorkers = !import.meta.url.endsWith('.ts')
/** Worker heaps: a small young generation and a modest old one, so garbage is collected long before RSS grows (measured: ~45 MB less per worker). */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 }
/** How long to sleep between looks at the workers when none has posted. */
const POLL_MS = 50

export class AdvisePool {
  private readonly pool: WorkerPool<AdviseRequest, AdviseReply> | null

  constructor(readonly lanes: number) {
    this.pool = lanes > 1 && canUseWorkers ? new WorkerPool<AdviseRequest, AdviseReply>(WORKER_URL, lanes, null, { resourceLimits: WORKER_LIMITS }) : null
  }

  /** Run tasks; `lane` picks the worker. Results come back in task order. */
  async run(tasks: { lane: number; task: FileTask }[]): Promise<FileTaskResult[]> {
    const pool = this.pool
    if (!pool) {
      const out: FileTaskResult[] = []
      for (const t of tasks) {
        out.push(evaluateFile(t.task))
        await new Promise((r) => setImmediate(r))
      }
      return out
    }
    const queues = pool.slots.map(() => [] as number[])
    for (const [i, t] of tasks.entries()) queues[t.lane % pool.slots.length].push(i)
    const results: FileTaskResult[] = new Array(tasks.length)
    const busy = pool.slots.map(() => false)
    let done = 0
    let failure: { error: unknown } | null = null
    const give = (s: PoolSlot) => {
      const i = failure ? undefined : queues[s.index].shift()
      busy[s.index] = i !== undefined
      if (i !== undefined) pool.send(s, { kind: 'task', id: i, task: tasks[i].task })
    }
    const received = (s: PoolSlot, m: AdviseReply) => {
      if (m.kind === 'error') failure ??= { error: errorFromTransfer(m.error) }
      else results[m.id] = m.result
      done++
      give(s)
    }
    for (const s of pool.slots) give(s)
    while (!failure && done < tasks.length) {
      await pool.waitAsync(received, POLL_MS)
      for (const s of pool.exited()) {
        pool.poll(received)
        if (busy[s.index]) failure ??= { error: s.error ?? new Error('an advise worker thread exited') }
      }
    }
    if (failure) throw failure.error
    return results
  }

  async close(): Promise<void> {
    if (!this.pool) return
    this.pool.close()
    await Promise.all(this.pool.stragglers.map((s) => s.worker.terminate()))
  }
}

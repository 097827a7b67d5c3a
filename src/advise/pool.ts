/**
 * Runs advise's file tasks on `lanes` lanes: this thread (lane 0) and
 * `lanes - 1` workers of the shared pool (src/util/worker-pool.ts). Lane j of
 * every round goes to the same thread, so its dictionary and codec caches
 * serve the same files and settings round after round. This thread is a lane
 * because it is otherwise idle while the workers compress, and every worker
 * costs ~25 MB of RSS of its own (a V8 isolate, its heap, its codec
 * contexts). Inline only when one job suffices or when running from
 * TypeScript sources (tests), where the worker script is not built. Results
 * never depend on the number of jobs: each task is a pure function of its
 * inputs (timings aside).
 */
import { errorFromTransfer, type TransferredError } from '../errors.js'
import { newPeakLock, sharePeakLock } from '../codec/peak-lock.js'
import { collectGarbage, collectHeapGarbage, reapplyGrowthFactor } from '../util/garbage.js'
import { trimMallocArenas } from '../util/malloc.js'
import { FirstFailure, type PoolSlot, WorkerPool, workBeside } from '../util/worker-pool.js'
import { evaluateFile, type FileTask, type FileTaskResult } from './evaluate.js'

export type AdviseRequest = { kind: 'task'; id: number; task: FileTask }
export type AdviseReply = { kind: 'done'; id: number; result: FileTaskResult } | { kind: 'error'; id: number; error: TransferredError }

const WORKER_URL = new URL('./worker.js', import.meta.url)
const canUseWorkers = !import.meta.url.endsWith('.ts')
/** Worker heaps: a small young generation and a modest old one, so garbage is collected long before RSS grows (measured: ~45 MB less per worker). */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 }
/**
 * Tasks a worker holds at once: one running, one waiting, so it never idles
 * while this thread is inside a task of its own and cannot hand out the next.
 */
const WORKER_DEPTH = 2
/**
 * Every thread collects its garbage after a task once its buffers grew by this
 * (util/garbage.ts): tasks are few (about a hundred a run) and each leaves a
 * file's index, windows and samples behind, so a low bar costs little.
 */
export const TASK_COLLECT_GROWTH_BYTES = 2 << 20

/**
 * After a task: collect this thread's garbage when its buffers grew (TASK_COLLECT_GROWTH_BYTES), and
 * give the pages malloc then holds free back (a block's copy, a batch's payloads: small buffers, in
 * the thread's own malloc arena, where freed memory between live blocks stays in the RSS).
 */
export function afterTask(): void {
  if (collectGarbage(TASK_COLLECT_GROWTH_BYTES) || collectHeapGarbage()) trimMallocArenas()
  reapplyGrowthFactor()
}

export class AdvisePool {
  private readonly pool: WorkerPool<AdviseRequest, AdviseReply> | null

  constructor(readonly lanes: number) {
    // Lanes train their files' dictionaries one at a time (codec/peak-lock.ts): the workers get the lock as their data.
    const lock = lanes > 1 && canUseWorkers ? newPeakLock() : null
    sharePeakLock(lock)
    this.pool = lock ? new WorkerPool<AdviseRequest, AdviseReply>(WORKER_URL, lanes - 1, lock, { resourceLimits: WORKER_LIMITS }) : null
  }

  /** Run tasks; `lane` picks the thread. Results come back in task order. */
  async run(tasks: { lane: number; task: FileTask }[]): Promise<FileTaskResult[]> {
    const pool = this.pool
    if (!pool) {
      const out: FileTaskResult[] = []
      for (const t of tasks) {
        out.push(evaluateFile(t.task))
        afterTask()
        await new Promise((r) => setImmediate(r))
      }
      return out
    }
    // Queue 0 is this thread's; queue j + 1 worker j's.
    const queues = Array.from({ length: pool.slots.length + 1 }, () => [] as number[])
    for (const [i, t] of tasks.entries()) queues[t.lane % queues.length].push(i)
    const results: FileTaskResult[] = new Array(tasks.length)
    const inFlight = pool.slots.map(() => 0)
    let done = 0
    const failure = new FirstFailure()
    const give = (s: PoolSlot) => {
      while (!failure.failed && inFlight[s.index] < WORKER_DEPTH && queues[s.index + 1].length > 0) {
        const i = queues[s.index + 1].shift()!
        inFlight[s.index]++
        pool.send(s, { kind: 'task', id: i, task: tasks[i].task })
      }
    }
    const received = (s: PoolSlot, m: AdviseReply) => {
      if (m.kind === 'error') failure.set(errorFromTransfer(m.error))
      else results[m.id] = m.result
      done++
      inFlight[s.index]--
      give(s)
    }
    const noticeExits = () => {
      for (const s of pool.exited()) {
        pool.poll(received)
        if (inFlight[s.index] > 0) failure.set(s.error ?? new Error('an advise worker thread exited'))
      }
    }
    for (const s of pool.slots) give(s)
    await workBeside(pool, {
      ownTask: () => {
        const i = queues[0].shift()
        if (i === undefined) return null
        return () => {
          done++
          results[i] = evaluateFile(tasks[i].task)
          afterTask()
        }
      },
      received,
      noticeExits,
      settled: () => done >= tasks.length,
      failure,
    })
    return results
  }

  async close(): Promise<void> {
    if (!this.pool) return
    sharePeakLock(null)
    this.pool.close()
    await Promise.all(this.pool.stragglers.map((s) => s.worker.terminate()))
  }
}

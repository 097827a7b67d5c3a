/**
 * Runs evaluation tasks on `jobs` lanes: this thread and `jobs - 1` worker
 * threads (through src/util/worker-pool.ts). This thread is a lane because it
 * is otherwise idle while the workers compress, and every worker costs ~25 MB
 * of RSS of its own (a V8 isolate, its heap, its codec contexts). Inline only
 * when one job suffices or when running from TypeScript sources (tests), where
 * the worker script is not built. Results never depend on the number of jobs:
 * each task is a pure function of its inputs (timings aside).
 */
import { lendCores } from '../codec/kernel.js'
import { newPeakLock, sharePeakLock } from '../codec/peak-lock.js'
import { errorFromTransfer, type TransferredError } from '../errors.js'
import { FirstFailure, type PoolSlot, WorkerPool, workBeside } from '../util/worker-pool.js'
import { evaluate, type EvaluateTask, type TaskResult } from './evaluate.js'

export type { TaskResult } from './evaluate.js'

/** A task for a worker. */
export type WorkerRequest = { kind: 'task'; id: number; task: EvaluateTask }

/** Messages from a worker: progress while a task runs, then its result or error. */
export type WorkerMessage =
  | { kind: 'progress'; blocks: number }
  | { kind: 'done'; id: number; result: TaskResult }
  | { kind: 'error'; id: number; error: TransferredError }

const WORKER_URL = new URL('./worker.js', import.meta.url)
const canUseWorkers = !import.meta.url.endsWith('.ts')

/** Whether tasks can run on worker threads here (not from TypeScript sources, where the worker script is not built). */
export function workersAvailable(): boolean {
  return canUseWorkers
}

/** The worker threads of a run. */
export type Workers = WorkerPool<WorkerRequest, WorkerMessage>

/**
 * The worker threads for `tasks` tasks on `jobs` lanes (null: all inline),
 * started now so that they boot while this thread prepares the tasks. Hand
 * them to runTasks, which closes them; a caller that fails before must close them itself (closeWorkers).
 */
export function startWorkers(jobs: number, tasks: number): Workers | null {
  const workers = canUseWorkers ? Math.min(jobs, tasks) - 1 : 0
  if (workers <= 0) return null
  // Lanes train dictionaries and compress large index blocks one at a time (codec/peak-lock.ts): the workers get the lock as their data.
  const lock = newPeakLock()
  sharePeakLock(lock)
  return new WorkerPool<WorkerRequest, WorkerMessage>(WORKER_URL, workers, lock, { resourceLimits: WORKER_LIMITS })
}

/** Close the workers, stopping any still inside a task after the close wait (after a failure elsewhere). */
export async function closeWorkers(pool: Workers | null): Promise<void> {
  if (!pool) return
  pool.close()
  await Promise.all(pool.stragglers.map((s) => s.worker.terminate()))
  sharePeakLock(null)
}

/**
 * A recompress worker's young generation: 4 MiB semi-spaces (12 MiB with V8's
 * large-object space of one semi-space), not the 1 MiB of other workers
 * (util/worker-pool.ts). A lane's re-cut pass makes ~0.9 GB of short-lived
 * views per configuration (BlockIter keys and values, builder copies: measured
 * with the sampling heap profiler), i.e. ~900 scavenges of a 1 MiB space: 4 MiB
 * took a one-lane run from 4.98 to 4.05-4.25 s of CPU (-17%) for +5 MB of RSS
 * (16 MiB: no faster, +15 MB). A Worker limit, not a V8 flag set at run time:
 * that would make the workers compile Node's built-ins without their code cache.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 12 }

/** Run the tasks on this thread and the workers (started by startWorkers unless given); the results in task order. */
export async function runTasks(
  tasks: EvaluateTask[],
  jobs: number,
  onBlocks?: (n: number) => void,
  workers: Workers | null = startWorkers(jobs, tasks.length),
): Promise<TaskResult[]> {
  if (!workers) {
    const out: TaskResult[] = []
    for (const t of tasks) {
      out.push(evaluate(t, () => onBlocks?.(1)))
      // Let a progress display repaint between tasks.
      await new Promise((r) => setImmediate(r))
    }
    return out
  }
  const results: TaskResult[] = new Array(tasks.length)
  const pool = workers
  /** The task each worker is on (by slot index), or -1. */
  const running = pool.slots.map(() => -1)
  let next = 0
  let done = 0
  const failure = new FirstFailure()
  // A lane with no task left lends its core to the lanes still compressing (codec/kernel.ts lendCores).
  const split = tasks.some((t) => t.splitCompression)
  let lent = 0
  const lendIdleCore = () => {
    if (!split) return
    lendCores(1)
    lent++
  }
  const give = (s: PoolSlot) => {
    running[s.index] = next < tasks.length && !failure.failed ? next++ : -1
    const task = tasks[running[s.index]]
    if (task) pool.send(s, { kind: 'task', id: running[s.index], task }, task.feedIn ? [task.feedIn.port] : [])
    else lendIdleCore()
  }
  const received = (s: PoolSlot, m: WorkerMessage) => {
    if (m.kind === 'progress') {
      onBlocks?.(m.blocks)
      return
    }
    if (m.kind === 'error') failure.set(errorFromTransfer(m.error))
    else results[m.id] = m.result
    done++
    give(s)
  }
  const noticeExits = () => {
    for (const s of pool.exited()) {
      pool.poll(received) // its last answers may have arrived just before it went
      if (running[s.index] >= 0 && results[running[s.index]] === undefined) failure.set(s.error ?? new Error('a recompress worker thread exited'))
    }
  }
  let ownIdle = false
  try {
    for (const s of pool.slots) give(s)
    // This thread's lane: the next task nobody has taken, in turn with the workers.
    await workBeside(pool, {
      ownTask: () => {
        if (next >= tasks.length) {
          if (!ownIdle) lendIdleCore()
          ownIdle = true
          return null
        }
        const id = next++
        return () => {
          done++
          let blocks = 0
          results[id] = evaluate(tasks[id], () => {
            onBlocks?.(1)
            // The workers' progress too, while this thread is busy.
            if (++blocks % 32 === 0) pool.poll(received)
          })
        }
      },
      received,
      noticeExits,
      settled: () => done >= tasks.length,
      failure,
    })
    return results
  } finally {
    lendCores(-lent)
    await closeWorkers(pool)
  }
}

/**
 * Worker threads started before a command has loaded (bin/run.js, for `verify` and the
 * `sst-dump` drop-in on a large file): a worker takes ~90 ms to boot and load its bundle, the
 * main thread ~50 ms to load the command's, so a worker started first is ready about when the
 * main thread starts checking, not 90 ms into it. The pool that wants a worker of that URL
 * adopts one (WorkerPool's constructor): it sends the worker its start-up data in a first
 * message, which the worker waits for (poolWorker). One nobody adopts only waits: it is
 * unref'd, so it does not keep the process alive.
 *
 * Its own bundle entry (dist/bundle/_early-workers.js) so that bin/run.js loads nothing else
 * first; the registry is on globalThis, shared by every copy of this module.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads'

/** The start-up data of a worker started early (its pool data comes in its first message). */
export interface EarlyWorkerData {
  early: { port: MessagePort; wake: SharedArrayBuffer }
}

/** What a pool sends an early worker it adopts: its PoolWorkerData but the port, which the worker has. */
export interface AdoptMessage {
  kind: 'adopt'
  data: unknown
  signal: SharedArrayBuffer
}

interface EarlyWorker {
  href: string
  worker: Worker
  port: MessagePort
  wake: SharedArrayBuffer
}

const REGISTRY = Symbol.for('sstkit.earlyWorkers')
const registry = (): EarlyWorker[] => ((globalThis as Record<symbol, EarlyWorker[]>)[REGISTRY] ??= [])

/**
 * A worker's young generation as the pool gives it (worker-pool.ts DEFAULT_LIMITS): 1 MiB
 * semi-spaces. Here so that this module imports no other.
 */
export const EARLY_WORKER_LIMITS = { maxYoungGenerationSizeMb: 3 }

/** Start a worker of `url` now, for a pool to adopt later. */
export function startEarlyWorker(url: URL): void {
  const { port1, port2 } = new MessageChannel()
  const wake = new SharedArrayBuffer(4)
  const workerData: EarlyWorkerData = { early: { port: port2, wake } }
  const worker = new Worker(url, { workerData, transferList: [port2], resourceLimits: EARLY_WORKER_LIMITS })
  worker.unref()
  // A pool that adopts it listens itself; until then a failure to start is only a worker less.
  worker.on('error', () => {})
  registry().push({ href: url.href, worker, port: port1, wake })
}

/**
 * An early worker of `url` still alive, handed its pool data (`data`, the pool's `signal`):
 * the caller's from now on. Null when none was started.
 */
export function adoptEarlyWorker(url: URL, data: unknown, signal: SharedArrayBuffer): { worker: Worker; port: MessagePort } | null {
  const list = registry()
  const i = list.findIndex((w) => w.href === url.href && w.worker.threadId !== -1)
  if (i < 0) return null
  const [w] = list.splice(i, 1)
  const message: AdoptMessage = { kind: 'adopt', data, signal }
  w.port.postMessage(message)
  const view = new Int32Array(w.wake)
  Atomics.store(view, 0, 1)
  Atomics.notify(view, 0)
  return { worker: w.worker, port: w.port }
}

/** Early workers started and not adopted (tests). */
export function earlyWorkersWaiting(): number {
  return registry().length
}

/**
 * Worker threads for sstkit's parallel work (scan's chunks, recompress's
 * tasks), driven by polling rather than by event-loop callbacks:
 *
 * - Each worker gets its own MessagePort and a shared Int32 counter it bumps
 *   (and notifies) after every message, so the main thread can collect answers
 *   with receiveMessageOnPort and sleep on the counter: a synchronous caller
 *   (scan, writing to stdout in order) never needs the event loop, and an
 *   asynchronous one (recompress, repainting progress) awaits the counter.
 * - Workers are closed with a handshake, never terminated while they may be
 *   inside a native call (koffi aborts the process then): the pool sends
 *   `close`, the worker closes its resources and answers `closed`. This also
 *   runs on process exit (e.g. stdout closed under a running scan).
 * - A worker that dies (its threadId becomes -1) is noticed by `exited()`, so
 *   its work can be done elsewhere.
 *
 * The worker side is `poolWorker()`. Messages with `kind` `ready`, `close` and
 * `closed` belong to the pool; everything else is the user's protocol.
 */
import { MessageChannel, receiveMessageOnPort, Worker, workerData, type MessagePort, type ResourceLimits, type Transferable } from 'node:worker_threads'
import { type AdoptMessage, adoptEarlyWorker, EARLY_WORKER_LIMITS, type EarlyWorkerData } from './early-workers.js'

/** What every pool worker is started with. */
export interface PoolWorkerData<D> {
  data: D
  port: MessagePort
  /** Int32 counter the worker bumps (and notifies) after each message it posts. */
  signal: SharedArrayBuffer
}

type FromWorker<Res> = Res | { kind: 'ready' } | { kind: 'closed' }

export interface PoolSlot {
  readonly index: number
  readonly worker: Worker
  readonly port: MessagePort
  /** Said `ready` (e.g. it has opened its file): the user may wait for this before giving it work. */
  ready: boolean
  /** Gone: exited, or acknowledged close. */
  dead: boolean
  /** Sent close. */
  closed: boolean
  /** The error the worker thread died of, if it did (seen only while the event loop runs). */
  error?: unknown
}

export interface WorkerPoolOptions {
  /** Let the process exit while workers run (a synchronous caller that closes them itself). Default false. */
  unref?: boolean
  /** V8 heap limits of each worker; default DEFAULT_LIMITS. */
  resourceLimits?: ResourceLimits
  /** How long close waits for workers to acknowledge (default 5 s: they are idle, booting or finishing a task). */
  shutdownWaitMs?: number
}

/**
 * A worker's default heap limits: a young generation of 3 MiB, i.e. 1 MiB semi-spaces (V8
 * sizes it as two semi-spaces and a large-object space of one), where V8 would let a worker's
 * grow to 16 MiB each: scan's and verify's workers make many short-lived objects per block.
 * A limit, not a V8 flag: any flag makes Node reject its built-in code cache (bin/run.js).
 */
export const DEFAULT_LIMITS: ResourceLimits = EARLY_WORKER_LIMITS

const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, t: number): { async: boolean; value: Promise<string> | string } })
  .waitAsync

export class WorkerPool<Req extends { kind: string }, Res extends { kind: string }> {
  readonly slots: PoolSlot[] = []
  private readonly signal = new SharedArrayBuffer(4)
  private readonly signalView = new Int32Array(this.signal)
  private readonly shutdownWaitMs: number

  constructor(url: URL, workers: number, data: unknown, options: WorkerPoolOptions = {}) {
    this.shutdownWaitMs = options.shutdownWaitMs ?? 5000
    for (let index = 0; index < workers; index++) {
      // One bin/run.js started before the command loaded (early-workers.ts), where its settings are this pool's.
      const early = options.unref && !options.resourceLimits ? adoptEarlyWorker(url, data, this.signal) : null
      let worker: Worker
      let port: MessagePort
      if (early) ({ worker, port } = early)
      else {
        const { port1, port2 } = new MessageChannel()
        const workerData: PoolWorkerData<unknown> = { data, port: port2, signal: this.signal }
        worker = new Worker(url, { workerData, transferList: [port2], resourceLimits: options.resourceLimits ?? DEFAULT_LIMITS })
        port = port1
      }
      const slot: PoolSlot = { index, worker, port, ready: false, dead: false, closed: false }
      // Without a listener a worker's error would be thrown here; exited() reports the death.
      worker.on('error', (e) => {
        slot.error = e
      })
      if (options.unref) worker.unref()
      this.slots.push(slot)
    }
    process.on('exit', this.close)
  }

  send(slot: PoolSlot, m: Req, transfer: readonly Transferable[] = []): void {
    if (!slot.dead && !slot.closed) slot.port.postMessage(m, transfer)
  }

  /** Hand every message already posted to `handle` (the pool's own kinds are handled here); true if any of the user's arrived. */
  poll(handle: (slot: PoolSlot, m: Res) => void): boolean {
    let got = false
    for (const s of this.slots) {
      for (let r = receiveMessageOnPort(s.port); r; r = receiveMessageOnPort(s.port)) {
        const m = r.message as FromWorker<Res>
        if (m.kind === 'ready') s.ready = true
        else if (m.kind === 'closed') s.dead = true
        else {
          handle(s, m as Res)
          got = true
        }
      }
    }
    return got
  }

  /** Block this thread until a worker posts or `timeoutMs` pass, then poll. */
  wait(handle: (slot: PoolSlot, m: Res) => void, timeoutMs: number): boolean {
    const seen = Atomics.load(this.signalView, 0)
    if (this.poll(handle)) return true
    Atomics.wait(this.signalView, 0, seen, timeoutMs)
    return this.poll(handle)
  }

  /** As wait(), letting the event loop run meanwhile. */
  async waitAsync(handle: (slot: PoolSlot, m: Res) => void, timeoutMs: number): Promise<boolean> {
    const seen = Atomics.load(this.signalView, 0)
    if (this.poll(handle)) return true
    const w = waitAsync(this.signalView, 0, seen, timeoutMs)
    if (w.async) {
      // A pending Atomics.waitAsync does not keep the process alive: a timer does.
      let timer: NodeJS.Timeout | undefined
      await Promise.race([w.value, new Promise((r) => (timer = setTimeout(r, timeoutMs + 1)))])
      clearTimeout(timer)
    }
    return this.poll(handle)
  }

  /**
   * Workers that died since the last call (marked dead). Poll first: their
   * last answers may have arrived just before they went.
   */
  exited(): PoolSlot[] {
    const gone = this.slots.filter((s) => !s.dead && s.worker.threadId === -1)
    for (const s of gone) s.dead = true
    return gone
  }

  /** The threadIds of the workers not known to be dead (what a shared queue records as a chunk's owner). */
  liveThreadIds(): Set<number> {
    return new Set(this.slots.filter((s) => !s.dead).map((s) => s.worker.threadId))
  }

  /** Close every worker and wait (up to shutdownWaitMs) until each has said so. Safe to call again. */
  readonly close = (): void => {
    process.off('exit', this.close)
    const open = this.slots.filter((s) => !s.closed)
    for (const s of open) {
      s.closed = true
      s.port.postMessage({ kind: 'close' })
    }
    const deadline = Date.now() + this.shutdownWaitMs
    let pending = open.filter((s) => !s.dead)
    while (pending.length > 0 && Date.now() < deadline) {
      const seen = Atomics.load(this.signalView, 0)
      for (const s of pending) {
        for (let r = receiveMessageOnPort(s.port); r; r = receiveMessageOnPort(s.port)) {
          if ((r.message as FromWorker<Res>).kind === 'closed') s.dead = true
        }
        if (s.worker.threadId === -1) s.dead = true
      }
      pending = pending.filter((s) => !s.dead)
      if (pending.length > 0) Atomics.wait(this.signalView, 0, seen, 20)
    }
    for (const s of open) s.port.close()
  }

  /** Workers that did not acknowledge close in time (still busy): the caller may terminate them. */
  get stragglers(): PoolSlot[] {
    return this.slots.filter((s) => !s.dead)
  }
}

/** How long a pool's calling thread, with no task of its own left, sleeps between looks at its workers (the event loop runs meanwhile; ms). */
const BESIDE_POLL_MS = 50

/** A pool whose calling thread works too: what `workBeside` needs of it. */
export interface WorkBeside<Res> {
  /** This thread's next task, run when called (null: none left). */
  ownTask: () => (() => void) | null
  /** A worker's answer. */
  received: (slot: PoolSlot, m: Res) => void
  /** Looks for workers that died (their tasks fail the run). */
  noticeExits: () => void
  /** Every task answered. */
  settled: () => boolean
  /** The run's first failure: it ends the run. */
  failure: FirstFailure
}

/** A pooled run's first failure (a task's error, a worker's death): the one the run throws. */
export class FirstFailure {
  failed = false
  error: unknown = undefined
  set(error: unknown): void {
    if (this.failed) return
    this.failed = true
    this.error = error
  }
}

/**
 * This thread runs its own tasks one at a time, reading the workers' answers and yielding to the
 * event loop between them; then it waits for the workers' last answers. Throws the first failure.
 */
export async function workBeside<Req extends { kind: string }, Res extends { kind: string }>(pool: WorkerPool<Req, Res>, w: WorkBeside<Res>): Promise<void> {
  for (let task = w.ownTask(); task && !w.failure.failed; task = w.ownTask()) {
    try {
      task()
    } catch (e) {
      w.failure.set(e)
    }
    pool.poll(w.received)
    w.noticeExits()
    await new Promise((r) => setImmediate(r))
  }
  while (!w.failure.failed && !w.settled()) {
    await pool.waitAsync(w.received, BESIDE_POLL_MS)
    w.noticeExits()
  }
  if (w.failure.failed) throw w.failure.error
}

/** This worker's PoolWorkerData: its workerData, or for one started early the pool's first message, waited for. */
function startUpData<D>(): PoolWorkerData<D> {
  const given = workerData as PoolWorkerData<D> | EarlyWorkerData
  if (!('early' in given)) return given
  const { port, wake } = given.early
  const view = new Int32Array(wake)
  for (;;) {
    const r = receiveMessageOnPort(port)
    if (r) {
      const m = r.message as AdoptMessage
      return { data: m.data as D, port, signal: m.signal }
    }
    Atomics.wait(view, 0, 0, 1000)
  }
}

/** The worker side of a pool: its start-up data, posting, and the close handshake. */
export interface PoolWorkerSide<D, Req, Res> {
  readonly data: D
  post(m: Res, transfer?: readonly Transferable[]): void
  /** Tell the pool this worker can take work. */
  ready(): void
  /** Handle the user's messages; `onClose` releases resources before the worker says `closed`. */
  listen(handle: (m: Req) => void, onClose?: () => void): void
}

export function poolWorker<D, Req extends { kind: string }, Res extends { kind: string }>(): PoolWorkerSide<D, Req, Res> {
  const w = startUpData<D>()
  const signal = new Int32Array(w.signal)
  const send = (m: unknown, transfer: readonly Transferable[] = []) => {
    w.port.postMessage(m, transfer)
    Atomics.add(signal, 0, 1)
    Atomics.notify(signal, 0)
  }
  return {
    data: w.data,
    post: send,
    ready: () => send({ kind: 'ready' }),
    listen(handle, onClose) {
      w.port.on('message', (m: Req | { kind: 'close' }) => {
        if (m.kind !== 'close') return handle(m as Req)
        onClose?.()
        send({ kind: 'closed' })
        w.port.close()
      })
    },
  }
}

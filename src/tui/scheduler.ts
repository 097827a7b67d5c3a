/**
 * The browser's background work: a queue of tasks run in time slices of a few
 * milliseconds with `setImmediate` between them, so the UI never waits long.
 */

/** One step of a task; true when the task is finished. */
export type Task = () => boolean

export class SliceScheduler {
  private timer: NodeJS.Immediate | null = null
  private closed = false

  constructor(
    private readonly tasks: Task[],
    private readonly sliceMs: number,
    /** Called after a slice (or runAll) did some work. */
    private readonly changed: () => void,
  ) {}

  /** Keep running slices until the queue is empty (or close()). */
  start(): void {
    if (this.closed || this.timer || this.tasks.length === 0) return
    this.timer = setImmediate(() => {
      this.timer = null
      this.step()
      this.start()
    })
  }

  /** Run background work for one time slice. Returns false when nothing is left. */
  step(): boolean {
    const end = performance.now() + this.sliceMs
    let progressed = false
    while (this.tasks.length > 0 && performance.now() < end) {
      progressed = true
      if (this.tasks[0]()) this.tasks.shift()
    }
    if (progressed) this.changed()
    return this.tasks.length > 0
  }

  /** Finish all background work synchronously. */
  runAll(): void {
    while (this.tasks.length > 0) if (this.tasks[0]()) this.tasks.shift()
    this.changed()
  }

  get idle(): boolean {
    return this.tasks.length === 0
  }

  get isClosed(): boolean {
    return this.closed
  }

  close(): void {
    this.closed = true
    if (this.timer) clearImmediate(this.timer)
    this.timer = null
  }
}

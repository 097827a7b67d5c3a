/**
 * Chunks of data blocks shared between threads through memory, which each
 * thread (the main one included) claims for itself with an atomic counter.
 *
 * Measured on scan: handing each chunk to a worker in a message left the
 * worker idle a third of the time (a chunk is ~1 ms of work, about what the
 * round trip through the main thread's loop takes on a loaded machine) while
 * the main thread waited for the worker's answer. Here a worker that finishes
 * a chunk takes the next one at once, without a message or the main thread.
 *
 * The main thread publishes chunk handles into a ring of `slots` chunks and
 * never more than `slots` ahead of the oldest chunk not yet consumed (`retire`),
 * so a slot is rewritten only after its chunk is done with, and the work in
 * flight (scan's output, say) stays bounded by the ring, not by the file.
 */

/** Int32 words of the control block. */
const PUBLISHED = 0
const CLAIMED = 1
const CLOSED = 2
/** Bumped by every publish and by close: what waiting threads sleep on. */
const EPOCH = 3
const CONTROL_INTS = 4

const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, t: number): { async: boolean; value: Promise<string> | string } })
  .waitAsync

/** Handles per chunk at most (a chunk of many tiny blocks ends here, before its byte budget). */
export const MAX_CHUNK_HANDLES = 2048

export class ChunkQueue {
  private readonly control: Int32Array
  /** Per slot: who claimed its chunk (thread index + 1; 0 not yet known). */
  private readonly owners: Int32Array
  /** Per slot: handles in its chunk. */
  private readonly counts: Int32Array
  /** Per slot: MAX_CHUNK_HANDLES [offset, size] pairs. */
  private readonly handles: Float64Array
  readonly slots: number

  /** A queue of `slots` chunks in flight (main thread); pass `buffer` to the workers' attach(). */
  static create(slots: number): ChunkQueue {
    const bytes = 8 * (CONTROL_INTS + 2 * slots) + 16 * slots * MAX_CHUNK_HANDLES
    return new ChunkQueue(new SharedArrayBuffer(bytes), slots)
  }

  static attach(buffer: SharedArrayBuffer, slots: number): ChunkQueue {
    return new ChunkQueue(buffer, slots)
  }

  private constructor(
    readonly buffer: SharedArrayBuffer,
    slots: number,
  ) {
    this.slots = slots
    this.control = new Int32Array(buffer, 0, CONTROL_INTS)
    this.owners = new Int32Array(buffer, 4 * CONTROL_INTS, slots)
    this.counts = new Int32Array(buffer, 4 * (CONTROL_INTS + slots), slots)
    this.handles = new Float64Array(buffer, 8 * (CONTROL_INTS + 2 * slots), 2 * slots * MAX_CHUNK_HANDLES)
  }

  /** Chunks published so far (ids 0 .. published-1). */
  get published(): number {
    return Atomics.load(this.control, PUBLISHED)
  }

  /** Chunks claimed so far. */
  get claimed(): number {
    return Atomics.load(this.control, CLAIMED)
  }

  get closed(): boolean {
    return Atomics.load(this.control, CLOSED) !== 0
  }

  /** Whether chunk `id` can be published: its slot's previous chunk (id - slots) is consumed. */
  hasRoom(consumed: number): boolean {
    return this.published < consumed + this.slots
  }

  /** Where the next chunk's handles go (MAX_CHUNK_HANDLES pairs), for publishWritten: written in place. */
  nextHandles(): Float64Array {
    const slot = this.published % this.slots
    return this.handles.subarray(slot * 2 * MAX_CHUNK_HANDLES, (slot + 1) * 2 * MAX_CHUNK_HANDLES)
  }

  /** Publish the next chunk, whose `blocks` handles are in nextHandles() (main thread only; check hasRoom first). */
  publishWritten(blocks: number): number {
    const id = this.published
    const slot = id % this.slots
    this.counts[slot] = blocks
    this.owners[slot] = 0
    Atomics.store(this.control, PUBLISHED, id + 1)
    this.wake()
    return id
  }

  /** Publish the next chunk (main thread only; check hasRoom first). `pairs`: [offset, size, ...]. */
  publish(pairs: readonly number[]): number {
    this.nextHandles().set(pairs)
    return this.publishWritten(pairs.length / 2)
  }

  /** Take the next published chunk for thread `owner` (0: main); -1 when none is waiting. */
  claim(owner: number): number {
    for (;;) {
      const id = Atomics.load(this.control, CLAIMED)
      if (id >= Atomics.load(this.control, PUBLISHED) || this.closed) return -1
      if (Atomics.compareExchange(this.control, CLAIMED, id, id + 1) === id) {
        Atomics.store(this.owners, id % this.slots, owner + 1)
        return id
      }
    }
  }

  /** Who claimed chunk `id` (thread index; -1 not yet known). Valid until the chunk is retired. */
  ownerOf(id: number): number {
    return Atomics.load(this.owners, id % this.slots) - 1
  }

  /** The handles of chunk `id` as [offset, size, ...]; valid until the chunk is retired. */
  handlesOf(id: number): Float64Array {
    const slot = id % this.slots
    const start = slot * 2 * MAX_CHUNK_HANDLES
    return this.handles.subarray(start, start + 2 * this.counts[slot])
  }

  /** What waitForWork() compares against: read it before looking for work. */
  get epoch(): number {
    return Atomics.load(this.control, EPOCH)
  }

  /**
   * Sleep until something is published or the queue closes after `epoch` was read, or `timeoutMs`
   * pass. False when it slept the whole `timeoutMs`.
   */
  waitForWork(epoch: number, timeoutMs: number): boolean {
    return Atomics.wait(this.control, EPOCH, epoch, timeoutMs) !== 'timed-out'
  }

  /** As waitForWork(), letting the event loop run meanwhile. */
  async waitForWorkAsync(epoch: number, timeoutMs: number): Promise<void> {
    const w = waitAsync(this.control, EPOCH, epoch, timeoutMs)
    if (w.async) await w.value
  }

  /** No more claims: waiting workers wake and stop. */
  close(): void {
    Atomics.store(this.control, CLOSED, 1)
    this.wake()
  }

  private wake(): void {
    Atomics.add(this.control, EPOCH, 1)
    Atomics.notify(this.control, EPOCH)
  }
}

/** How long an idle worker sleeps before looking again (it is woken as soon as a chunk is published). */
const IDLE_WAIT_MS = 50

/**
 * A worker's side: claim chunks (as `owner`, its threadId) and hand each to `handle` until the
 * queue closes or `stopped()`. One chunk per turn of the event loop: it delivers the returned
 * buffers and the close message, and runs V8's tasks (a loop that never yields let dead buffers
 * pile up: 200 MB on scan).
 */
export async function serveChunks(queue: ChunkQueue, owner: number, stopped: () => boolean, handle: (id: number) => void): Promise<void> {
  while (!stopped() && !queue.closed) {
    const epoch = queue.epoch
    const id = queue.claim(owner)
    if (id >= 0) {
      handle(id)
      await new Promise(setImmediate)
    } else await queue.waitForWorkAsync(epoch, IDLE_WAIT_MS)
  }
}

/**
 * The chunks from `from` on that were claimed by a thread no longer alive (not in `live`):
 * the main thread does them itself when a worker has died.
 */
export function orphanedChunks(queue: ChunkQueue, from: number, live: ReadonlySet<number>): number[] {
  const ids: number[] = []
  for (let id = from; id < queue.claimed; id++) if (!live.has(queue.ownerOf(id))) ids.push(id)
  return ids
}

/**
 * The bytes a chunk's blocks span, trailers included, to read in one go
 * (ReadWindow.fill); null when its handles are not in file order, leave the
 * file or span more than `maxBytes` (a damaged index: its blocks are then read
 * one by one, and the reads meet the damage as a serial run does).
 */
export function chunkExtent(pairs: Float64Array, trailerBytes: number, fileSize: number, maxBytes: number): { offset: number; length: number } | null {
  if (pairs.length < 2) return null
  let end = pairs[0]
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i] < end) return null
    end = pairs[i] + pairs[i + 1] + trailerBytes
  }
  const length = end - pairs[0]
  return end <= fileSize && length <= maxBytes ? { offset: pairs[0], length } : null
}

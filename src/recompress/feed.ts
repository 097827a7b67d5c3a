/**
 * One source pass shared by every lane of a run: the lane on the main thread
 * reads, decodes and cuts the data blocks once and hands each batch of them
 * to the worker lanes, which only compress. Every lane evaluates the same
 * blocks in the same order as if it had read them itself, so results do not
 * change; what is saved is the other lanes' own passes (on the 224 MB bench
 * file re-cut to 16 KiB, about one zstd 1 configuration's CPU per lane).
 *
 * Batches travel as messages (each block in its own transferred buffer:
 * under 128 KiB, malloc serves it from its arenas instead of mmap), read by
 * the consumer with receiveMessageOnPort while its task runs. Flow control is
 * a shared Int32Array, per consumer i: [2i] the batches posted to it, [2i + 1]
 * those it has finished (GONE once it left, by error or at the end). Each side
 * wakes the other only at a mark (the consumer once WAKE_AT batches wait, the
 * producer once the window is half free), not for every batch: a wake-up per
 * batch measured 0.85 ms a post on a loaded machine (the woken thread
 * preempting the producer), 2.3 s over the bench file's 2,700 batches.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads'
import type { BlockEntryStats } from '../table/writer.js'
import { SstkitError, type SstkitErrorOptions, transferable } from '../errors.js'
import type { BuiltDictionary } from './dictionary.js'

/** A data block as a table writer takes it (addDataBlock). */
export interface FedBlock {
  raw: Uint8Array
  firstKey: Uint8Array
  lastKey: Uint8Array
  stats: BlockEntryStats
}

/** Batches in flight per consumer: 32 of 128 KiB, 4 MiB. */
const WINDOW = 32
/** A waiting consumer is woken once this many batches wait for it. */
const WAKE_AT = 4
const GONE = 0x7fffffff
/** A consumer whose count has not moved for this long is taken for dead (its thread died without leaving). */
const STALL_MS = 30_000

/** The consumer's end of a feed, sent with its task. */
export interface FeedIn {
  port: MessagePort
  control: SharedArrayBuffer
  index: number
}

/** The producer's end: one port per consumer. */
export interface FeedOut {
  ports: MessagePort[]
  control: SharedArrayBuffer
}

type FeedMessage =
  | { kind: 'dictionaries'; built: [number, BuiltDictionary][] }
  | { kind: 'blocks'; lengths: number[]; stats: BlockEntryStats[]; blocks: ArrayBuffer[] }
  | { kind: 'end' }
  | { kind: 'abort' }

export class FeedAborted extends SstkitError {
  override name = 'FeedAborted'
  constructor(message: string, options?: SstkitErrorOptions) {
    super('internal', message, options)
  }
}
transferable(FeedAborted)

/** A feed from one producer to `consumers` consumers. */
export function makeFeed(consumers: number): { out: FeedOut; ins: FeedIn[] } {
  const control = new SharedArrayBuffer(8 * consumers)
  const channels = Array.from({ length: consumers }, () => new MessageChannel())
  return {
    out: { ports: channels.map((c) => c.port1), control },
    ins: channels.map((c, index) => ({ port: c.port2, control, index })),
  }
}

/** The producer's side: post the dictionaries, then batches, then end (or abort on failure). */
export class FeedWriter {
  private readonly control: Int32Array
  private readonly live: boolean[]

  constructor(private readonly out: FeedOut) {
    this.control = new Int32Array(out.control)
    this.live = out.ports.map(() => true)
  }

  /** Every lane's dictionaries, built once by the producer from the samples they share (before any batch). */
  dictionaries(built: ReadonlyMap<number, BuiltDictionary>): void {
    for (let i = 0; i < this.live.length; i++) if (this.live[i]) this.send(i, { kind: 'dictionaries', built: [...built] }, [], true)
  }

  post(batch: readonly FedBlock[]): void {
    const lengths: number[] = []
    const blocks: ArrayBuffer[] = []
    for (const b of batch) {
      const packed = new Uint8Array(b.raw.length + b.firstKey.length + b.lastKey.length)
      packed.set(b.raw)
      packed.set(b.firstKey, b.raw.length)
      packed.set(b.lastKey, b.raw.length + b.firstKey.length)
      blocks.push(packed.buffer)
      lengths.push(b.raw.length, b.firstKey.length)
    }
    const stats = batch.map((b) => b.stats)
    const last = this.live.lastIndexOf(true)
    for (let i = 0; i < this.live.length; i++) {
      if (!this.live[i] || !this.roomFor(i)) continue
      // Each consumer owns its buffers: the last takes these, the others copies.
      const own = i === last ? blocks : blocks.map((x) => x.slice(0))
      this.send(i, { kind: 'blocks', lengths, stats, blocks: own }, own)
    }
  }

  end(): void {
    this.finish({ kind: 'end' })
  }

  abort(): void {
    this.finish({ kind: 'abort' })
  }

  private finish(m: FeedMessage): void {
    for (let i = 0; i < this.live.length; i++) if (this.live[i]) this.send(i, m, [], true)
    this.live.fill(false)
  }

  private send(i: number, m: FeedMessage, transfer: ArrayBuffer[] = [], wake = false): void {
    this.out.ports[i].postMessage(m, transfer)
    const posted = Atomics.add(this.control, 2 * i, 1) + 1
    const done = Atomics.load(this.control, 2 * i + 1)
    if (wake || done === GONE || posted - done >= WAKE_AT) Atomics.notify(this.control, 2 * i)
  }

  /** Wait until consumer i has room for one more batch; false if it left (or stalled). */
  private roomFor(i: number): boolean {
    const posted = Atomics.load(this.control, 2 * i)
    let seen = Atomics.load(this.control, 2 * i + 1)
    let since = Date.now()
    while (seen !== GONE && posted - seen >= WINDOW) {
      Atomics.wait(this.control, 2 * i + 1, seen, 50)
      const now = Atomics.load(this.control, 2 * i + 1)
      if (now !== seen) {
        seen = now
        since = Date.now()
      } else if (Date.now() - since > STALL_MS) break
    }
    if (seen === GONE) this.live[i] = false
    else if (posted - seen >= WINDOW) {
      // Stalled: tell it to stop, in case it still reads.
      this.send(i, { kind: 'abort' }, [], true)
      this.live[i] = false
    }
    return this.live[i]
  }
}

/**
 * The consumer's side: the dictionaries, then the batches in order, each
 * acknowledged when the caller asks for the next. Throws FeedAborted if the
 * producer failed. leave() (also at the end of batches()) frees the producer
 * from waiting for it: call it however the task ends.
 */
export class FeedReader {
  private readonly control: Int32Array
  private readonly posted: number
  private left = false

  constructor(private readonly feed: FeedIn) {
    this.control = new Int32Array(feed.control)
    this.posted = 2 * feed.index
  }

  dictionaries(): Map<number, BuiltDictionary> {
    const m = this.next()
    if (m.kind !== 'dictionaries') throw new FeedAborted(`the lane reading the file sent ${m.kind} before the dictionaries`)
    return new Map(m.built)
  }

  *batches(): Generator<FedBlock[]> {
    const done = this.posted + 1
    try {
      for (;;) {
        const m = this.next()
        if (m.kind === 'end') return
        if (m.kind !== 'blocks') throw new FeedAborted(`the lane reading the file sent ${m.kind} among the blocks`)
        const batch: FedBlock[] = []
        for (let k = 0; k < m.blocks.length; k++) {
          const bytes = new Uint8Array(m.blocks[k])
          const rawLength = m.lengths[2 * k]
          const keyEnd = rawLength + m.lengths[2 * k + 1]
          batch.push({ raw: bytes.subarray(0, rawLength), firstKey: bytes.subarray(rawLength, keyEnd), lastKey: bytes.subarray(keyEnd), stats: m.stats[k] })
        }
        yield batch
        // The producer waits only with a full window: wake it once half of it is free.
        const finished = Atomics.add(this.control, done, 1) + 1
        if (Atomics.load(this.control, this.posted) - finished === WINDOW / 2) Atomics.notify(this.control, done)
      }
    } finally {
      this.leave()
    }
  }

  leave(): void {
    if (this.left) return
    this.left = true
    Atomics.store(this.control, this.posted + 1, GONE)
    Atomics.notify(this.control, this.posted + 1)
    this.feed.port.close()
  }

  /** The next message, waiting for it; an abort throws. */
  private next(): FeedMessage {
    for (;;) {
      const seen = Atomics.load(this.control, this.posted)
      const r = receiveMessageOnPort(this.feed.port)
      if (!r) {
        Atomics.wait(this.control, this.posted, seen, 1000)
        continue
      }
      const m = r.message as FeedMessage
      if (m.kind === 'abort') throw new FeedAborted('the lane reading the file stopped')
      return m
    }
  }
}

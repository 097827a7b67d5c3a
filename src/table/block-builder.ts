/**
 * Building generic blocks the way RocksDB's BlockBuilder does
 * (`table/block_based/block_builder.cc`), and cutting data blocks the way
 * FlushBlockBySizePolicy does (`table/block_based/flush_block_policy.cc`).
 *
 *   entry := varint32 shared | varint32 non_shared | varint32 value_len | key_delta | value
 *   block := entries | restarts: u32[] | footer: u32 (num_restarts)
 */
import { encodeVarint } from '../format/coding.js'

/** Default data block restart interval (`block_restart_interval`). */
export const DEFAULT_RESTART_INTERVAL = 16
/** Default `block_size_deviation` (percent). */
export const DEFAULT_BLOCK_SIZE_DEVIATION = 10

function varintLength(n: number): number {
  let len = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    len++
  }
  return len
}

export class BlockBuilder {
  private chunks: Uint8Array[] = []
  private size = 0
  private restarts: number[] = [0]
  private counter = 0
  private lastKey: Uint8Array = new Uint8Array(0)
  /** RocksDB's running estimate: entry bytes + restart array + footer. */
  private estimate = 8

  constructor(
    readonly restartInterval = DEFAULT_RESTART_INTERVAL,
    readonly useDeltaEncoding = true,
    /** Index blocks of format_version >= 4: no value_len; values after a shared key are deltas. */
    readonly useValueDeltaEncoding = false,
  ) {}

  get empty(): boolean {
    return this.size === 0
  }

  get entries(): number {
    return this.counter + (this.restarts.length - 1) * this.restartInterval
  }

  currentSizeEstimate(): number {
    return this.estimate
  }

  /** RocksDB's EstimateSizeAfterKV (deliberately imprecise: whole key, 4 bytes for `shared`). */
  estimateSizeAfter(keyLength: number, valueLength: number): number {
    const fullValue = !this.useValueDeltaEncoding || this.counter >= this.restartInterval
    let e = this.estimate + keyLength + (fullValue ? valueLength : Math.floor(valueLength / 2))
    if (this.counter >= this.restartInterval) e += 4
    e += 4 + varintLength(keyLength)
    if (fullValue) e += varintLength(valueLength)
    return e
  }

  add(key: Uint8Array, value: Uint8Array, deltaValue?: Uint8Array): void {
    let shared = 0
    if (this.counter >= this.restartInterval) {
      this.restarts.push(this.size)
      this.estimate += 4
      this.counter = 0
    } else if (this.useDeltaEncoding) {
      const n = Math.min(key.length, this.lastKey.length)
      while (shared < n && key[shared] === this.lastKey[shared]) shared++
    }
    const before = this.size
    this.push(encodeVarint(shared))
    this.push(encodeVarint(key.length - shared))
    if (!this.useValueDeltaEncoding) this.push(encodeVarint(value.length))
    this.push(key.subarray(shared))
    this.push(shared !== 0 && this.useValueDeltaEncoding && deltaValue ? deltaValue : value)
    this.lastKey = key.slice()
    this.counter++
    this.estimate += this.size - before
  }

  private push(b: Uint8Array): void {
    if (b.length === 0) return
    // Copy: callers pass views into iterator buffers that change on the next entry.
    this.chunks.push(b.slice())
    this.size += b.length
  }

  /** The finished block; the builder is reset for the next one. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.size + 4 * this.restarts.length + 4)
    let p = 0
    for (const c of this.chunks) {
      out.set(c, p)
      p += c.length
    }
    const view = new DataView(out.buffer)
    for (const r of this.restarts) {
      view.setUint32(p, r, true)
      p += 4
    }
    view.setUint32(p, this.restarts.length, true)
    this.reset()
    return out
  }

  reset(): void {
    this.chunks = []
    this.size = 0
    this.restarts = [0]
    this.counter = 0
    this.lastKey = new Uint8Array(0)
    this.estimate = 8
  }
}

/** FlushBlockBySizePolicy: should the block be cut before adding this entry? */
export class FlushBySizePolicy {
  private readonly deviationLimit: number

  constructor(
    readonly blockSize: number,
    deviation = DEFAULT_BLOCK_SIZE_DEVIATION,
  ) {
    this.deviationLimit = Math.floor((blockSize * (100 - deviation) + 99) / 100)
  }

  shouldFlush(builder: BlockBuilder, keyLength: number, valueLength: number): boolean {
    if (builder.empty) return false
    const current = builder.currentSizeEstimate()
    if (current >= this.blockSize) return true
    if (this.deviationLimit === 0) return false
    return builder.estimateSizeAfter(keyLength, valueLength) > this.blockSize && current > this.deviationLimit
  }
}

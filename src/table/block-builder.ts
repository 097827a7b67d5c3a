/**
 * Building generic blocks the way RocksDB's BlockBuilder does
 * (`table/block_based/block_builder.cc`), and cutting data blocks the way
 * FlushBlockBySizePolicy does (`table/block_based/flush_block_policy.cc`).
 *
 *   entry := varint32 shared | varint32 non_shared | varint32 value_len | key_delta | value
 *   block := entries | restarts: u32[] | footer: u32 (num_restarts)
 */

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
  /** Entry bytes, grown by doubling; written in place (no per-entry allocation). */
  private buf = new Uint8Array(4096)
  private size = 0
  private restarts: number[] = [0]
  private counter = 0
  private lastKey = new Uint8Array(64)
  private lastKeyLength = 0
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
      const n = Math.min(key.length, this.lastKeyLength)
      const last = this.lastKey
      while (shared < n && key[shared] === last[shared]) shared++
    }
    const before = this.size
    const v = shared !== 0 && this.useValueDeltaEncoding && deltaValue ? deltaValue : value
    this.reserve(15 + key.length - shared + v.length)
    this.putVarint(shared)
    this.putVarint(key.length - shared)
    if (!this.useValueDeltaEncoding) this.putVarint(value.length)
    this.buf.set(key.subarray(shared), this.size)
    this.size += key.length - shared
    this.buf.set(v, this.size)
    this.size += v.length
    if (this.lastKey.length < key.length) this.lastKey = new Uint8Array(key.length * 2)
    this.lastKey.set(key)
    this.lastKeyLength = key.length
    this.counter++
    this.estimate += this.size - before
  }

  private reserve(n: number): void {
    if (this.size + n <= this.buf.length) return
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.size + n))
    grown.set(this.buf.subarray(0, this.size))
    this.buf = grown
  }

  private putVarint(v: number): void {
    const b = this.buf
    let p = this.size
    while (v >= 0x80) {
      b[p++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    b[p++] = v
    this.size = p
  }

  /** The finished block; the builder is reset for the next one. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.size + 4 * this.restarts.length + 4)
    out.set(this.buf.subarray(0, this.size))
    let p = this.size
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
    this.size = 0
    this.restarts = [0]
    this.counter = 0
    this.lastKeyLength = 0
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

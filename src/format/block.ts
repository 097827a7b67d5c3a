/**
 * The generic block format shared by data, index, metaindex, properties and
 * range-deletion blocks (RocksDB `table/block_based/block_builder.cc`, `block.cc`).
 *
 *   entries | restarts: u32[num_restarts] | [hash index] | [values_section_offset: u32] | packed footer: u32
 *
 *   entry := varint32 shared | varint32 non_shared | varint32 value_len | key_delta | value
 *
 * Packed footer: bits 0..27 num_restarts, bit 28 separated key/value layout,
 * bit 29 "uniform keys" hint, bit 30 reserved, bit 31 data-block hash index.
 *
 * Variants: index blocks with delta-encoded values omit value_len (the value is
 * self-delimiting; see index-block.ts); separated key/value data blocks keep
 * values in a section after the keys and store a value offset at restart points.
 *
 * The decoder (decodeBlockLayout, BlockIter) and the encoder (BlockBuilder,
 * as RocksDB's BlockBuilder writes: no hash index; values inline or separated) live here.
 */
import { readFixed32, varintLength } from './coding.js'
import { CorruptionError } from './errors.js'

export const BLOCK_FOOTER_BYTES = 4
const NUM_RESTARTS_MASK = 0x0fffffff
const SEPARATED_KV_BIT = 1 << 28
const UNIFORM_BIT = 1 << 29
const RESERVED_BIT = 1 << 30
const HASH_INDEX_BIT = 0x80000000
/** The hash index is only written into blocks up to 64 KiB; larger blocks predate the flag bits. */
const MAX_BLOCK_SIZE_WITH_HASH_INDEX = 1 << 16

export interface BlockLayout {
  readonly numRestarts: number
  /** Offset of the restart array within the block (= end of the entries / keys section). */
  readonly restartsOffset: number
  /** End of the key entries: restartsOffset, or values_section_offset for separated blocks. */
  readonly entriesEnd: number
  readonly separatedKV: boolean
  readonly uniform: boolean
  readonly hashIndex: { readonly bucketsOffset: number; readonly numBuckets: number } | null
  /** Separated key/value blocks: where the values section starts and ends. */
  readonly valuesStart: number
  readonly valuesEnd: number
}

/**
 * Contents decompressed from a stored block (marked by codec/compression.ts): a position in them is
 * not a file offset, so their errors point at the block itself.
 */
const decompressedContents = new WeakSet<Uint8Array>()

/** Mark `contents` as decompressed from a stored block (see errorOffset); returns them. */
export function markDecompressed(contents: Uint8Array): Uint8Array {
  decompressedContents.add(contents)
  return contents
}

/** The file offset an error at byte `at` of a block's contents names: the block's own where they were decompressed. */
function errorOffset(block: Uint8Array, base: number, at: number): number {
  return decompressedContents.has(block) ? base : base + at
}

/**
 * Decode the tail of a block.
 * @param block uncompressed block contents (no trailer)
 * @param base file offset of the block, for error messages
 */
export function decodeBlockLayout(block: Uint8Array, base: number, what = 'block'): BlockLayout {
  const size = block.length
  if (size < BLOCK_FOOTER_BYTES) {
    throw new CorruptionError(`${what} is too short (${size} bytes) to hold a block footer`, base)
  }
  let packed = readFixed32(block, size - BLOCK_FOOTER_BYTES)
  let tail = size - BLOCK_FOOTER_BYTES
  let separatedKV = false
  let uniform = false
  let hashIndex: BlockLayout['hashIndex'] = null
  let numRestarts: number
  if (size > MAX_BLOCK_SIZE_WITH_HASH_INDEX && packed >= HASH_INDEX_BIT && (packed & SEPARATED_KV_BIT) === 0) {
    // Legacy compatibility, as RocksDB: a block over 64 KiB cannot carry a hash index.
    packed = packed & 0x7fffffff
  }
  numRestarts = packed & NUM_RESTARTS_MASK
  if (packed & RESERVED_BIT) {
    throw new CorruptionError(`${what} footer has the reserved bit 30 set (0x${packed.toString(16)})`, errorOffset(block, base, tail))
  }
  uniform = (packed & UNIFORM_BIT) !== 0
  let valuesStart = 0
  let valuesEnd = 0
  if (packed & SEPARATED_KV_BIT) {
    separatedKV = true
    if (tail < 4) throw new CorruptionError(`${what} is too short for its values-section offset`, base)
    tail -= 4
    valuesStart = readFixed32(block, tail)
    valuesEnd = tail
  }
  if (packed >= HASH_INDEX_BIT) {
    if (tail < 2) throw new CorruptionError(`${what} is too short for its hash index`, base)
    const numBuckets = block[tail - 2] | (block[tail - 1] << 8)
    tail -= 2
    if (numBuckets > tail) {
      throw new CorruptionError(`${what} hash index claims ${numBuckets} buckets but only ${tail} bytes precede it`, errorOffset(block, base, tail))
    }
    tail -= numBuckets
    hashIndex = { bucketsOffset: tail, numBuckets }
  }
  if (numRestarts * 4 > tail) {
    throw new CorruptionError(
      `${what} claims ${numRestarts} restart points, more than its ${size} bytes can hold`,
      errorOffset(block, base, size - BLOCK_FOOTER_BYTES),
    )
  }
  const restartsOffset = tail - numRestarts * 4
  let entriesEnd = restartsOffset
  if (separatedKV) {
    if (valuesStart > restartsOffset) {
      throw new CorruptionError(`${what} values section offset ${valuesStart} lies past the restart array`, errorOffset(block, base, valuesEnd))
    }
    // keys section is [0, valuesStart); values section is [valuesStart, restartsOffset)
    entriesEnd = valuesStart
    valuesEnd = restartsOffset
  }
  checkRestartPoints(block, base, what, numRestarts, restartsOffset, entriesEnd)
  return { numRestarts, restartsOffset, entriesEnd, separatedKV, uniform, hashIndex, valuesStart, valuesEnd }
}

/**
 * Every restart point as RocksDB's BlockBuilder writes them: the first at 0, each after the one
 * before, all inside the entries; a block with entries has at least one. A block that breaks this
 * would otherwise read as shorter (or empty) than it is.
 */
function checkRestartPoints(block: Uint8Array, base: number, what: string, numRestarts: number, restartsOffset: number, entriesEnd: number): void {
  if (numRestarts === 0) {
    if (entriesEnd > 0) throw new CorruptionError(`${what} holds ${entriesEnd} bytes of entries but no restart point`, errorOffset(block, base, restartsOffset))
    return
  }
  let previous = -1
  for (let i = 0; i < numRestarts; i++) {
    const at = restartsOffset + 4 * i
    const point = readFixed32(block, at)
    if (i === 0 && point !== 0) throw new CorruptionError(`${what} restart point 0 is ${point}, not 0`, errorOffset(block, base, at))
    if (point <= previous)
      throw new CorruptionError(`${what} restart point ${i} (${point}) does not follow restart point ${i - 1} (${previous})`, errorOffset(block, base, at))
    if (point >= entriesEnd && i > 0)
      throw new CorruptionError(`${what} restart point ${i} (${point}) lies past its ${entriesEnd} bytes of entries`, errorOffset(block, base, at))
    previous = point
  }
}

/**
 * Iterates the entries of one block. `key` is a view into a reused buffer and
 * is valid until the iterator moves (as in RocksDB); copy it to keep it.
 */
export class BlockIter {
  readonly layout: BlockLayout
  /** Current key; valid while `valid`. */
  key: Uint8Array = new Uint8Array(0)
  valueStart = 0
  valueEnd = 0
  /** Offset (within the block) of the current entry. */
  entryOffset = 0
  /** Index of the restart interval holding the current entry. */
  restartIndex = 0
  valid = false
  /** True when the current entry starts a restart interval (shared = 0 by construction). */
  atRestart = false
  /** Key bytes shared with the previous entry (index blocks: 0 means a full, not delta, handle). */
  shared = 0
  /**
   * Check each restart point as the walk meets it (RocksDB's BinarySeek rule): it is the offset of
   * an entry, that entry shares no key bytes, and (separated key/value layout) it begins an interval of
   * `restartInterval` entries. false reads entries as RocksDB's linear iteration does, which never
   * looks (the sst_dump drop-in, which prints what sst_dump prints).
   */
  checkRestarts = true

  protected pos = 0
  private keyBuf = new Uint8Array(64)
  private keyLen = 0
  private nextValueOffset = 0

  constructor(
    readonly block: Uint8Array,
    /** File offset of the block, for error messages. */
    readonly base: number,
    readonly what = 'block',
    /** Restart interval; needed only for separated key/value blocks. */
    readonly restartInterval = 0,
    /** Index blocks with delta-encoded values omit value_len. */
    readonly valueLengthOmitted = false,
    layout?: BlockLayout,
  ) {
    this.layout = layout ?? decodeBlockLayout(block, base, what)
    if (this.layout.separatedKV && restartInterval <= 0) {
      throw new CorruptionError(`${what} uses the separated key/value layout but the table has no restart interval property`, base)
    }
  }

  get value(): Uint8Array {
    return this.block.subarray(this.valueStart, this.valueEnd)
  }

  /** Offset of the i-th restart point. */
  restartPoint(i: number): number {
    const off = readFixed32(this.block, this.layout.restartsOffset + 4 * i)
    if (off >= this.layout.entriesEnd && !(off === 0 && this.layout.entriesEnd === 0)) {
      throw new CorruptionError(
        `${this.what} restart point ${i} (${off}) lies outside the entries`,
        errorOffset(this.block, this.base, this.layout.restartsOffset + 4 * i),
      )
    }
    return off
  }

  seekToFirst(): void {
    if (this.layout.numRestarts === 0 || this.layout.entriesEnd === 0) {
      this.valid = false
      return
    }
    this.seekToRestart(0)
    this.next()
  }

  /** Position before the first entry of restart interval `i`; call next() to read it. */
  seekToRestart(i: number): void {
    this.restartIndex = i
    this.pos = this.restartPoint(i)
    this.keyLen = 0
    this.pendingRestart = true
    this.entriesSinceRestart = 0
  }

  private pendingRestart = false
  private entriesSinceRestart = 0

  /** Advance to the next entry; `valid` becomes false at the end of the block. */
  next(): boolean {
    const b = this.block
    const end = this.layout.entriesEnd
    const numRestarts = this.layout.numRestarts
    if (this.pos >= end) {
      // Every restart point lies before the end of the entries (decodeBlockLayout): one not met lies inside the last entry.
      if (this.checkRestarts && this.restartIndex + 1 < numRestarts && this.valid) this.restartInsideEntry(this.restartIndex + 1)
      this.valid = false
      return false
    }
    const previousEntry = this.entryOffset
    this.entryOffset = this.pos
    // Track restart intervals: the entry at the next restart offset starts a new interval.
    if (this.pendingRestart) {
      this.pendingRestart = false
      this.atRestart = true
      this.entriesSinceRestart = 0
    } else if (this.restartIndex + 1 < numRestarts && this.pos >= this.restartPointUnchecked(this.restartIndex + 1)) {
      if (this.pos === this.restartPointUnchecked(this.restartIndex + 1)) {
        if (this.checkRestarts && this.layout.separatedKV && this.entriesSinceRestart + 1 !== this.restartInterval) {
          this.restartNotAtInterval(this.restartIndex + 1)
        }
        this.restartIndex++
        this.atRestart = true
        this.entriesSinceRestart = 0
      } else {
        if (this.checkRestarts) {
          this.entryOffset = previousEntry
          this.restartInsideEntry(this.restartIndex + 1)
        }
        this.atRestart = false
        this.entriesSinceRestart++
      }
    } else {
      this.atRestart = false
      this.entriesSinceRestart++
      if (this.checkRestarts && this.layout.separatedKV && this.entriesSinceRestart === this.restartInterval) {
        this.corrupt(`restart interval ${this.restartIndex} runs past ${this.restartInterval} entries with no restart point`)
      }
    }
    let p = this.pos
    // Inline varint32 decoding: this is the hot loop of every scan.
    let shared: number,
      nonShared: number,
      valueLen = 0
    if (b[p] < 0x80) shared = b[p++]
    else {
      shared = this.slowVarint32(p, end)
      p = this.varintEnd
    }
    if (p >= end) this.corrupt('entry header runs past the end of the entries')
    if (b[p] < 0x80) nonShared = b[p++]
    else {
      nonShared = this.slowVarint32(p, end)
      p = this.varintEnd
    }
    if (!this.valueLengthOmitted) {
      if (p >= end) this.corrupt('entry header runs past the end of the entries')
      if (b[p] < 0x80) valueLen = b[p++]
      else if (p + 1 < end && b[p + 1] < 0x80) {
        // two-byte varint: every value of 128 B to 16 KiB
        valueLen = (b[p] & 0x7f) | (b[p + 1] << 7)
        p += 2
      } else {
        valueLen = this.slowVarint32(p, end)
        p = this.varintEnd
      }
    }
    let valueOffsetAtRestart = -1
    if (this.layout.separatedKV && this.entriesSinceRestart % this.restartInterval === 0) {
      valueOffsetAtRestart = this.slowVarint32(p, end)
      p = this.varintEnd
    }
    if (this.atRestart && shared !== 0 && this.checkRestarts) this.corrupt(`entry at restart point ${this.restartIndex} has shared length ${shared}, not 0`)
    if (shared > this.keyLen) this.corrupt(`entry shares ${shared} key bytes but the previous key has only ${this.keyLen}`)
    if (nonShared > end - p) this.corrupt(`entry key length ${nonShared} runs past the end of the entries`)
    const keyLen = shared + nonShared
    if (keyLen > this.keyBuf.length) {
      const grown = new Uint8Array(Math.max(keyLen, this.keyBuf.length * 2))
      grown.set(this.keyBuf.subarray(0, shared))
      this.keyBuf = grown
    }
    // A short key delta byte by byte: a view and set() per entry cost more than the copy.
    const kb = this.keyBuf
    if (nonShared <= 32) for (let i = 0; i < nonShared; i++) kb[shared + i] = b[p + i]
    else kb.set(b.subarray(p, p + nonShared), shared)
    this.keyLen = keyLen
    this.shared = shared
    this.key = this.keyBuf.subarray(0, keyLen)
    p += nonShared
    if (this.valueLengthOmitted) {
      // The caller (index iterator) parses the self-delimiting value and calls endValue().
      this.valueStart = p
      this.valueEnd = p
      this.pos = p
    } else if (this.layout.separatedKV) {
      const vStart = valueOffsetAtRestart >= 0 ? this.layout.valuesStart + valueOffsetAtRestart : this.nextValueOffset
      if (vStart < this.layout.valuesStart || valueLen > this.layout.valuesEnd - vStart) {
        this.corrupt(`value of ${valueLen} bytes at ${vStart} lies outside the values section`)
      }
      this.valueStart = vStart
      this.valueEnd = vStart + valueLen
      this.nextValueOffset = this.valueEnd
      this.pos = p
    } else {
      if (valueLen > end - p) this.corrupt(`entry value length ${valueLen} runs past the end of the entries`)
      this.valueStart = p
      this.valueEnd = p + valueLen
      this.pos = p + valueLen
    }
    this.valid = true
    return true
  }

  /** For value-length-omitted blocks: the value ended at `offset` (within the block). */
  endValue(offset: number): void {
    if (offset > this.layout.entriesEnd) this.corrupt('index value runs past the end of the entries')
    this.valueEnd = offset
    this.pos = offset
  }

  /** The key at restart point i, without disturbing the current position's semantics. */
  keyAtRestart(i: number): Uint8Array {
    this.seekToRestart(i)
    this.next()
    return this.key
  }

  /**
   * Position at the first entry whose key is >= target under `compare`.
   * Binary search over restart points, then a linear scan, as RocksDB's BlockIter::Seek.
   */
  seek(target: Uint8Array, compare: (a: Uint8Array, b: Uint8Array) => number, onEntry?: () => void): void {
    const n = this.layout.numRestarts
    if (n === 0 || this.layout.entriesEnd === 0) {
      this.valid = false
      return
    }
    // Find the last restart whose key is < target.
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      const k = this.keyAtRestart(mid)
      onEntry?.()
      if (compare(k, target) < 0) lo = mid
      else hi = mid - 1
    }
    this.seekToRestart(lo)
    while (this.next()) {
      onEntry?.()
      if (compare(this.key, target) >= 0) return
    }
  }

  /** Restart point i lies inside the entry at entryOffset (or the last one), not at an entry's start. */
  private restartInsideEntry(i: number): never {
    const at = this.layout.restartsOffset + 4 * i
    throw new CorruptionError(
      `${this.what} restart point ${i} (${this.restartPointUnchecked(i)}) is not the start of an entry: it falls inside the entry at ${this.entryOffset}`,
      errorOffset(this.block, this.base, at),
    )
  }

  /** Separated key/value layout: restart point i does not come after a whole interval of entries. */
  private restartNotAtInterval(i: number): never {
    const at = this.layout.restartsOffset + 4 * i
    throw new CorruptionError(
      `${this.what} restart point ${i} (${this.restartPointUnchecked(i)}) ends restart interval ${i - 1} after ${this.entriesSinceRestart + 1} entries, not ${this.restartInterval}`,
      errorOffset(this.block, this.base, at),
    )
  }

  private restartPointUnchecked(i: number): number {
    return readFixed32(this.block, this.layout.restartsOffset + 4 * i)
  }

  /** Where the last slowVarint32 ended (returned through a field: no tuple allocated per entry). */
  private varintEnd = 0

  private slowVarint32(p: number, end: number): number {
    const b = this.block
    let result = 0
    let scale = 1 // not 2 ** shift: Math.pow is a runtime call
    for (let shift = 0; shift <= 28; shift += 7) {
      if (p >= end) this.corrupt('truncated varint in entry header')
      const byte = b[p++]
      result += (byte & 0x7f) * scale
      scale *= 128
      if (byte < 0x80) {
        this.varintEnd = p
        return result
      }
    }
    return this.corrupt('malformed varint in entry header')
  }

  protected corrupt(message: string): never {
    throw new CorruptionError(`${this.what}: ${message}`, errorOffset(this.block, this.base, this.entryOffset))
  }
}

/** Default data block restart interval (`block_restart_interval`). */
export const DEFAULT_RESTART_INTERVAL = 16

export class BlockBuilder {
  /** Entry bytes (keys only, in the separated layout), grown by doubling; written in place (no per-entry allocation). */
  private buf = new Uint8Array(4096)
  private size = 0
  /** The separated key/value layout's values section, grown the same way. */
  private values = new Uint8Array(0)
  private valuesSize = 0
  private restarts: number[] = [0]
  private counter = 0
  private lastKey = new Uint8Array(64)
  private lastKeyLength = 0
  /** RocksDB's running estimate: entry bytes + restart array + footer (+ values-section offset). */
  private estimate: number

  constructor(
    readonly restartInterval = DEFAULT_RESTART_INTERVAL,
    readonly useDeltaEncoding = true,
    /** Index blocks of format_version >= 4: no value_len; values after a shared key are deltas. */
    readonly useValueDeltaEncoding = false,
    /** Data blocks of separate_key_value_in_data_block (RocksDB 11): values in a section after the keys. */
    readonly separateValues = false,
  ) {
    if (separateValues && useValueDeltaEncoding) throw new RangeError('BlockBuilder: the separated key/value layout is for data blocks')
    this.estimate = this.emptyEstimate()
    if (separateValues) this.values = new Uint8Array(4096)
  }

  private emptyEstimate(): number {
    return this.separateValues ? 12 : 8
  }

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
    // The separated layout stores the value offset at each restart point.
    if (this.separateValues && (this.counter === 0 || this.counter >= this.restartInterval)) e += varintLength(this.valuesSize)
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
    const valuesBefore = this.valuesSize
    const v = shared !== 0 && this.useValueDeltaEncoding && deltaValue ? deltaValue : value
    this.reserve(20 + key.length - shared + (this.separateValues ? 0 : v.length))
    this.putVarint(shared)
    this.putVarint(key.length - shared)
    if (!this.useValueDeltaEncoding) this.putVarint(value.length)
    if (this.separateValues && this.counter === 0) this.putVarint(this.valuesSize)
    this.buf.set(key.subarray(shared), this.size)
    this.size += key.length - shared
    if (this.separateValues) {
      if (this.valuesSize + v.length > this.values.length) {
        const grown = new Uint8Array(Math.max(this.values.length * 2, this.valuesSize + v.length))
        grown.set(this.values.subarray(0, this.valuesSize))
        this.values = grown
      }
      this.values.set(v, this.valuesSize)
      this.valuesSize += v.length
    } else {
      this.buf.set(v, this.size)
      this.size += v.length
    }
    if (this.lastKey.length < key.length) this.lastKey = new Uint8Array(key.length * 2)
    this.lastKey.set(key)
    this.lastKeyLength = key.length
    this.counter++
    this.estimate += this.size - before + this.valuesSize - valuesBefore
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
    const sep = this.separateValues
    const out = new Uint8Array(this.size + this.valuesSize + 4 * this.restarts.length + (sep ? 8 : 4))
    out.set(this.buf.subarray(0, this.size))
    let p = this.size
    if (sep) {
      out.set(this.values.subarray(0, this.valuesSize), p)
      p += this.valuesSize
    }
    const view = new DataView(out.buffer)
    for (const r of this.restarts) {
      view.setUint32(p, r, true)
      p += 4
    }
    if (sep) {
      view.setUint32(p, this.size, true)
      p += 4
    }
    view.setUint32(p, (this.restarts.length | (sep ? SEPARATED_KV_BIT : 0)) >>> 0, true)
    this.reset()
    return out
  }

  reset(): void {
    this.size = 0
    this.valuesSize = 0
    this.restarts = [0]
    this.counter = 0
    this.lastKeyLength = 0
    this.estimate = this.emptyEstimate()
  }
}

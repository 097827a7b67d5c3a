/**
 * Index blocks (RocksDB `table/block_based/index_builder.cc`, `table/format.cc` IndexValue).
 *
 * A generic block whose entries map a separator key to the BlockHandle of a data
 * block (or of an index partition, for the top level of a partitioned index).
 * How entries are encoded depends on table properties, not on format_version:
 *
 *   rocksdb.index.key.is.user.key        keys are user keys (no 8-byte trailer)
 *   rocksdb.index.value.is.delta.encoded entries omit value_len; handle at a restart
 *                                         (shared = 0) is full, else
 *                                         zigzag-varint64(size - prev_size) and
 *                                         offset = prev_offset + prev_size + 5
 *   index type kBinarySearchWithFirstKey  value is followed by varint32 len + first internal key
 *
 * Decoding: IndexBlockIter. Encoding: ShortenedIndexBuilder, as RocksDB's
 * (`index_builder.{h,cc}`, default kShortenSeparators): each data block is
 * indexed by the shortest key S with last_key(block) <= S < first_key(next
 * block); the last block by its last key.
 */
import { BlockBuilder, BlockIter, type BlockLayout } from './block.js'
import { compareBytes, encodeVarint } from './coding.js'
import { INTERNAL_KEY_TRAILER_BYTES, MAX_SEQUENCE_NUMBER, packTrailer } from './internal-key.js'
import { type BlockHandle, encodeBlockHandle } from './block-handle.js'
import { CorruptionError } from './errors.js'
import { BLOCK_TRAILER_BYTES } from './block-trailer.js'

/** `rocksdb.block.based.table.index.type` values (`BlockBasedTableOptions::IndexType`). */
export const IndexType = {
  BinarySearch: 0,
  HashSearch: 1,
  TwoLevelIndexSearch: 2,
  BinarySearchWithFirstKey: 3,
} as const

export function indexTypeName(t: number): string {
  switch (t) {
    case IndexType.BinarySearch:
      return 'kBinarySearch'
    case IndexType.HashSearch:
      return 'kHashSearch'
    case IndexType.TwoLevelIndexSearch:
      return 'kTwoLevelIndexSearch'
    case IndexType.BinarySearchWithFirstKey:
      return 'kBinarySearchWithFirstKey'
    default:
      return `unknown(${t})`
  }
}

export interface IndexEncoding {
  /** Keys are user keys without the internal-key trailer. */
  keyIsUserKey: boolean
  /** Values are delta encoded and value_len is omitted. */
  valueIsDeltaEncoded: boolean
  /** Each value carries the first internal key of its block. */
  hasFirstKey: boolean
}

/** Iterates an index block, decoding each value into a BlockHandle. */
export class IndexBlockIter {
  readonly iter: BlockIter
  handle: BlockHandle = { offset: 0, size: 0 }
  firstKey: Uint8Array | null = null

  constructor(
    block: Uint8Array,
    base: number,
    readonly encoding: IndexEncoding,
    what = 'index block',
    layout?: BlockLayout,
  ) {
    this.iter = new BlockIter(block, base, what, 0, encoding.valueIsDeltaEncoded, layout)
  }

  get valid(): boolean {
    return this.iter.valid
  }

  get key(): Uint8Array {
    return this.iter.key
  }

  seekToFirst(): void {
    this.iter.seekToFirst()
    if (this.iter.valid) this.decodeValue()
  }

  next(): boolean {
    if (!this.iter.next()) return false
    this.decodeValue()
    return true
  }

  /** First entry whose key >= target (keys compared with `compare`, in this block's key form). */
  seek(target: Uint8Array, compare: (a: Uint8Array, b: Uint8Array) => number): void {
    // Delta-encoded values can only be decoded in order from a restart point, so
    // decode on every entry the search visits.
    this.iter.seek(target, compare, () => this.decodeValue())
  }

  /** decodeValue's read position (a field, not a closure: this runs once per index entry). */
  private p = 0

  private decodeValue(): void {
    const it = this.iter
    const b = it.block
    const end = it.layout.entriesEnd
    this.p = it.valueStart
    if (this.encoding.valueIsDeltaEncoded && it.shared > 0) {
      const z = this.readVarint(b, end, 'size delta')
      const delta = z % 2 === 0 ? z / 2 : -(z + 1) / 2
      const prev = this.handle
      const size = prev.size + delta
      if (size < 0) throw new CorruptionError(`${it.what}: delta-encoded block size is negative`, it.base + it.entryOffset)
      this.handle = { offset: prev.offset + prev.size + BLOCK_TRAILER_BYTES, size }
    } else {
      const offset = this.readVarint(b, end, 'block offset')
      const size = this.readVarint(b, end, 'block size')
      this.handle = { offset, size }
    }
    if (this.encoding.hasFirstKey) {
      const len = this.readVarint(b, end, 'first key length')
      if (len > end - this.p) throw new CorruptionError(`${it.what}: first key length ${len} runs past the block`, it.base + it.entryOffset)
      this.firstKey = b.subarray(this.p, this.p + len)
      this.p += len
    }
    if (this.encoding.valueIsDeltaEncoded) it.endValue(this.p)
    else if (this.p > it.valueEnd) {
      throw new CorruptionError(`${it.what}: index value overruns its declared length`, it.base + it.entryOffset)
    }
  }

  /** A varint64 at this.p that fits in a JS number (a scale, not 2 ** (7 * i): Math.pow costs here). */
  private readVarint(b: Uint8Array, end: number, what: string): number {
    const it = this.iter
    let result = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      if (this.p >= end) throw new CorruptionError(`${it.what}: truncated ${what} in index value`, it.base + it.entryOffset)
      const byte = b[this.p++]
      result += (byte & 0x7f) * scale
      scale *= 128
      if (byte < 0x80) {
        if (result > Number.MAX_SAFE_INTEGER) break
        return result
      }
    }
    throw new CorruptionError(`${it.what}: malformed ${what} in index value`, it.base + it.entryOffset)
  }
}

/** kMaxSequenceNumber << 8 | kValueTypeForSeek, packed little-endian. */
function maxSeekTrailer(valueTypeForSeek: number): Uint8Array {
  const t = new Uint8Array(INTERNAL_KEY_TRAILER_BYTES)
  new DataView(t.buffer).setBigUint64(0, packTrailer(MAX_SEQUENCE_NUMBER, valueTypeForSeek), true)
  return t
}

/** BytewiseComparator::FindShortestSeparator. */
export function shortestSeparator(start: Uint8Array, limit: Uint8Array): Uint8Array {
  const min = Math.min(start.length, limit.length)
  let i = 0
  while (i < min && start[i] === limit[i]) i++
  if (i >= min) return start // one is a prefix of the other
  const s = start[i]
  const l = limit[i]
  if (s >= l) return start
  if (i < limit.length - 1 || s + 1 < l) {
    const out = start.slice(0, i + 1)
    out[i]++
    return out
  }
  // Incrementing would pass limit: bump the first non-0xff byte after it.
  for (let j = i + 1; j < start.length; j++) {
    if (start[j] < 0xff) {
      const out = start.slice(0, j + 1)
      out[j]++
      return out
    }
  }
  return start
}

export interface IndexBuilderOptions {
  /** format_version >= 3: index keys may be user keys. */
  userKeys: boolean
  /** format_version >= 4: delta-encoded values, no value_len. */
  deltaValues: boolean
  /** `index_block_restart_interval` (default 1). */
  restartInterval?: number
  /** kValueTypeForSeek of the writing RocksDB: 0x18 since 9.1, 0x11 before. */
  valueTypeForSeek?: number
  /**
   * Shorten separators (BytewiseComparator's FindShortestSeparator). Other
   * comparators (timestamp-aware, custom) keep the last key as is, like the
   * base Comparator's no-op.
   */
  shorten?: boolean
}

/** A data block's index separator: the key ShortenedIndexBuilder indexes it under. */
export interface IndexSeparator {
  /** The shortened (or last) internal key. */
  key: Uint8Array
  /** The boundary falls inside one user key: the index must keep sequence numbers. */
  splitsUserKey: boolean
}

/** The separator for a block whose last internal key is `lastKey` (`nextFirstKey` null for the last block). */
export function indexSeparator(lastKey: Uint8Array, nextFirstKey: Uint8Array | null, shorten: boolean, seekTrailer: Uint8Array): IndexSeparator {
  if (!nextFirstKey || !shorten) return { key: lastKey, splitsUserKey: false }
  const userStart = lastKey.subarray(0, lastKey.length - INTERNAL_KEY_TRAILER_BYTES)
  const userLimit = nextFirstKey.subarray(0, nextFirstKey.length - INTERNAL_KEY_TRAILER_BYTES)
  const tmp = shortestSeparator(userStart, userLimit)
  let key = lastKey
  if (tmp.length <= userStart.length && compareBytes(userStart, tmp) < 0) {
    key = new Uint8Array(tmp.length + INTERNAL_KEY_TRAILER_BYTES)
    key.set(tmp)
    key.set(seekTrailer, tmp.length)
  }
  return { key, splitsUserKey: compareBytes(userStart, userLimit) === 0 }
}

export class ShortenedIndexBuilder {
  private readonly withSeq: BlockBuilder | null
  private readonly withoutSeq: BlockBuilder | null
  private separatorIsKeyPlusSeq = false
  private lastHandle: BlockHandle | null = null
  readonly trailer: Uint8Array
  entries = 0

  /**
   * `keyPlusSeq`, when the caller already knows whether the finished index keeps sequence numbers
   * (a replay of recorded separators, see SeparatorLog): only that variant is built, half the memory.
   */
  constructor(
    readonly opts: IndexBuilderOptions,
    keyPlusSeq?: boolean,
  ) {
    const interval = opts.restartInterval ?? 1
    if (!opts.userKeys) this.separatorIsKeyPlusSeq = true
    if (keyPlusSeq !== undefined) this.separatorIsKeyPlusSeq = keyPlusSeq || !opts.userKeys
    this.withSeq = keyPlusSeq === false && opts.userKeys ? null : new BlockBuilder(interval, true, opts.deltaValues)
    this.withoutSeq = keyPlusSeq === true || !opts.userKeys ? null : new BlockBuilder(interval, true, opts.deltaValues)
    this.trailer = maxSeekTrailer(opts.valueTypeForSeek ?? 0x18)
  }

  /** Index the block whose last internal key is `lastKey`; `nextFirstKey` is null for the last block. */
  add(lastKey: Uint8Array, nextFirstKey: Uint8Array | null, handle: BlockHandle): void {
    const sep = indexSeparator(lastKey, nextFirstKey, this.opts.shorten !== false, this.trailer)
    this.addSeparator(sep.key, sep.splitsUserKey, handle)
  }

  /** Index a block under a separator already computed (indexSeparator). */
  addSeparator(sep: Uint8Array, splitsUserKey: boolean, handle: BlockHandle): void {
    if (splitsUserKey && !this.separatorIsKeyPlusSeq) {
      if (!this.withSeq) throw new Error('ShortenedIndexBuilder: a boundary splits a user key, but the index was built without sequence numbers')
      this.separatorIsKeyPlusSeq = true
    }
    const full = encodeBlockHandle(handle)
    let delta: Uint8Array | undefined
    if (this.opts.deltaValues && this.lastHandle) {
      const d = handle.size - this.lastHandle.size
      delta = encodeVarint(d >= 0 ? d * 2 : -d * 2 - 1)
    }
    this.lastHandle = handle
    this.withSeq?.add(sep, full, delta)
    if (!this.separatorIsKeyPlusSeq) this.withoutSeq?.add(sep.subarray(0, sep.length - INTERNAL_KEY_TRAILER_BYTES), full, delta)
    this.entries++
  }

  /** Whether the finished index uses user keys (property rocksdb.index.key.is.user.key). */
  get keysAreUserKeys(): boolean {
    return !this.separatorIsKeyPlusSeq
  }

  finish(): Uint8Array {
    return this.separatorIsKeyPlusSeq ? this.withSeq!.finish() : this.withoutSeq!.finish()
  }
}

/**
 * The separators of a sequence of data blocks, recorded once for several
 * table writers fed the same blocks (recompress: one writer per setting).
 * Separators depend only on the keys, which every writer shares; what differs
 * is each block's compressed size, which each writer keeps (4 bytes a block)
 * to replay its index at the end. Without it, every writer held a whole index
 * of its own (two variants, ~70 bytes a block: ~12 MB per setting on a file
 * of 88,000 blocks).
 */
export class SeparatorLog {
  private bytes = new Uint8Array(64 << 10)
  private ends = new Uint32Array(1024)
  private size = 0
  /** Separators recorded. */
  count = 0
  /** Some boundary splits one user key (the index keeps sequence numbers). */
  splitsUserKey = false
  private readonly trailer: Uint8Array

  constructor(readonly opts: IndexBuilderOptions) {
    this.trailer = maxSeekTrailer(opts.valueTypeForSeek ?? 0x18)
  }

  /** Record block `i`'s separator, unless another writer already did (blocks come in order). */
  note(i: number, lastKey: Uint8Array, nextFirstKey: Uint8Array | null): void {
    if (i < this.count) return
    if (i !== this.count) throw new Error(`SeparatorLog: block ${i} recorded before block ${this.count}`)
    const sep = indexSeparator(lastKey, nextFirstKey, this.opts.shorten !== false, this.trailer)
    if (sep.splitsUserKey) this.splitsUserKey = true
    if (this.size + sep.key.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.size + sep.key.length))
      grown.set(this.bytes.subarray(0, this.size))
      this.bytes = grown
    }
    this.bytes.set(sep.key, this.size)
    this.size += sep.key.length
    if (this.count === this.ends.length) {
      const grown = new Uint32Array(this.ends.length * 2)
      grown.set(this.ends)
      this.ends = grown
    }
    this.ends[this.count++] = this.size
  }

  /** The finished index block of the first `n` blocks, given each block's handle (recorded by the writer). */
  build(n: number, handleOf: (i: number) => BlockHandle): { block: Uint8Array; keysAreUserKeys: boolean } {
    if (n > this.count) throw new Error(`SeparatorLog: ${n} blocks indexed, ${this.count} recorded`)
    const builder = new ShortenedIndexBuilder(this.opts, !this.opts.userKeys || this.splitsUserKey)
    for (let i = 0; i < n; i++) builder.addSeparator(this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1], this.ends[i]), false, handleOf(i))
    return { block: builder.finish(), keysAreUserKeys: builder.keysAreUserKeys }
  }
}

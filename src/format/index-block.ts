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

  private decodeValue(): void {
    const it = this.iter
    const b = it.block
    const end = it.layout.entriesEnd
    let p = it.valueStart
    // No closure for the varints: this runs once per data block of every walk of the index.
    if (this.encoding.valueIsDeltaEncoded && it.shared > 0) {
      const z = indexVarint(it, p, end, 'size delta')
      p = varintEnd
      const delta = z % 2 === 0 ? z / 2 : -(z + 1) / 2
      const prev = this.handle
      const size = prev.size + delta
      if (size < 0) throw new CorruptionError(`${it.what}: delta-encoded block size is negative`, it.base + it.entryOffset)
      this.handle = { offset: prev.offset + prev.size + BLOCK_TRAILER_BYTES, size }
    } else {
      const offset = indexVarint(it, p, end, 'block offset')
      const size = indexVarint(it, varintEnd, end, 'block size')
      p = varintEnd
      this.handle = { offset, size }
    }
    if (this.encoding.hasFirstKey) {
      const len = indexVarint(it, p, end, 'first key length')
      p = varintEnd
      if (len > end - p) throw new CorruptionError(`${it.what}: first key length ${len} runs past the block`, it.base + it.entryOffset)
      this.firstKey = b.subarray(p, p + len)
      p += len
    }
    if (this.encoding.valueIsDeltaEncoded) it.endValue(p)
    else if (p > it.valueEnd) {
      throw new CorruptionError(`${it.what}: index value overruns its declared length`, it.base + it.entryOffset)
    }
  }
}

/** Where the last indexVarint ended. */
let varintEnd = 0

/** A varint64 of an index value at `p` (up to 2^53), its end in `varintEnd`. */
function indexVarint(it: BlockIter, p: number, end: number, what: string): number {
  const b = it.block
  let result = 0
  // a multiplier, not 2 ** (7 * i): the power was most of the time of a walk of the index
  let scale = 1
  for (let i = 0; i < 10; i++, scale *= 128) {
    if (p >= end) throw new CorruptionError(`${it.what}: truncated ${what} in index value`, it.base + it.entryOffset)
    const byte = b[p++]
    result += (byte & 0x7f) * scale
    if (byte < 0x80) {
      if (result > Number.MAX_SAFE_INTEGER) break
      varintEnd = p
      return result
    }
  }
  throw new CorruptionError(`${it.what}: malformed ${what} in index value`, it.base + it.entryOffset)
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

export class ShortenedIndexBuilder {
  private readonly withSeq: BlockBuilder
  private readonly withoutSeq: BlockBuilder
  private separatorIsKeyPlusSeq = false
  private lastHandle: BlockHandle | null = null
  private readonly trailer: Uint8Array
  entries = 0

  constructor(readonly opts: IndexBuilderOptions) {
    const interval = opts.restartInterval ?? 1
    this.withSeq = new BlockBuilder(interval, true, opts.deltaValues)
    this.withoutSeq = new BlockBuilder(interval, true, opts.deltaValues)
    this.trailer = maxSeekTrailer(opts.valueTypeForSeek ?? 0x18)
    if (!opts.userKeys) this.separatorIsKeyPlusSeq = true
  }

  /** Index the block whose last internal key is `lastKey`; `nextFirstKey` is null for the last block. */
  add(lastKey: Uint8Array, nextFirstKey: Uint8Array | null, handle: BlockHandle): void {
    let sep = lastKey
    if (nextFirstKey && this.opts.shorten !== false) {
      const userStart = lastKey.subarray(0, lastKey.length - INTERNAL_KEY_TRAILER_BYTES)
      const userLimit = nextFirstKey.subarray(0, nextFirstKey.length - INTERNAL_KEY_TRAILER_BYTES)
      const tmp = shortestSeparator(userStart, userLimit)
      if (tmp.length <= userStart.length && compareBytes(userStart, tmp) < 0) {
        sep = new Uint8Array(tmp.length + 8)
        sep.set(tmp)
        sep.set(this.trailer, tmp.length)
      }
      if (!this.separatorIsKeyPlusSeq && compareBytes(userStart, userLimit) === 0) this.separatorIsKeyPlusSeq = true
    }
    const full = encodeBlockHandle(handle)
    let delta: Uint8Array | undefined
    if (this.opts.deltaValues && this.lastHandle) {
      const d = handle.size - this.lastHandle.size
      delta = encodeVarint(d >= 0 ? d * 2 : -d * 2 - 1)
    }
    this.lastHandle = handle
    this.withSeq.add(sep, full, delta)
    if (!this.separatorIsKeyPlusSeq) this.withoutSeq.add(sep.subarray(0, sep.length - INTERNAL_KEY_TRAILER_BYTES), full, delta)
    this.entries++
  }

  /** Whether the finished index uses user keys (property rocksdb.index.key.is.user.key). */
  get keysAreUserKeys(): boolean {
    return !this.separatorIsKeyPlusSeq
  }

  finish(): Uint8Array {
    return this.separatorIsKeyPlusSeq ? this.withSeq.finish() : this.withoutSeq.finish()
  }
}

/**
 * Building an index block as RocksDB's ShortenedIndexBuilder does
 * (`table/block_based/index_builder.{h,cc}`, default kShortenSeparators):
 * each data block is indexed by the shortest key S with
 * last_key(block) <= S < first_key(next block); the last block by its last key.
 */
import { BlockHandle } from '../format/block-handle.js'
import { encodeVarint } from '../format/coding.js'
import { INTERNAL_KEY_TRAILER_BYTES } from '../format/internal-key.js'
import { BlockBuilder } from './block-builder.js'

/** kMaxSequenceNumber << 8 | kValueTypeForSeek, packed little-endian. */
function maxSeekTrailer(valueTypeForSeek: number): Uint8Array {
  const t = new Uint8Array(8)
  new DataView(t.buffer).setBigUint64(0, (((1n << 56n) - 1n) << 8n) | BigInt(valueTypeForSeek), true)
  return t
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return a.length - b.length
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
    const full = new Uint8Array([...encodeVarint(handle.offset), ...encodeVarint(handle.size)])
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

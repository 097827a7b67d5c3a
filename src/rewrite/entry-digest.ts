/**
 * A digest of an entry stream (point entries, then range tombstones), so that
 * a rewrite can check the file it wrote against what it fed the writer
 * without reading (and decompressing) its input a second time. Entries are
 * framed (a tag and lengths) into a reused buffer hashed in large pieces by
 * streaming XXH3-64 (~10 GB/s here, against ~0.5 GB/s for SHA-256: the check
 * is against accidents, not an adversary).
 */
import { createRequire } from 'node:module'
import type { EntrySink } from './ingestible.js'

// Loaded by the first digest, not with the module: recompress and advise import rewrite's writer
// options and never digest (@node-rs/xxhash's native load: ~9 ms of each of their starts).
const require = createRequire(import.meta.url)
let xxhash: typeof import('@node-rs/xxhash') | undefined
const xxh3 = () => (xxhash ??= require('@node-rs/xxhash') as typeof import('@node-rs/xxhash')).xxh3

const BUFFER_BYTES = 1 << 20
const POINT = 1
const TOMBSTONE = 2

export class EntryDigest implements EntrySink {
  private readonly hash = xxh3().Xxh3.withSeed()
  private readonly buffer = new Uint8Array(BUFFER_BYTES)
  private readonly view = new DataView(this.buffer.buffer)
  private used = 0
  points = 0
  tombstones = 0

  add(key: Uint8Array, value: Uint8Array): void {
    this.record(POINT, key, value)
    this.points++
  }

  addRangeTombstone(internalStartKey: Uint8Array, endUserKey: Uint8Array): void {
    this.record(TOMBSTONE, internalStartKey, endUserKey)
    this.tombstones++
  }

  /** The digest (once: the hash is finished). */
  finish(): string {
    this.flush()
    return this.hash.digest().toString(16)
  }

  private record(tag: number, a: Uint8Array, b: Uint8Array): void {
    if (this.used + 9 > BUFFER_BYTES) this.flush()
    this.buffer[this.used] = tag
    this.view.setUint32(this.used + 1, a.length, true)
    this.view.setUint32(this.used + 5, b.length, true)
    this.used += 9
    this.bytes(a)
    this.bytes(b)
  }

  private bytes(b: Uint8Array): void {
    if (this.used + b.length > BUFFER_BYTES) {
      this.flush()
      if (b.length > BUFFER_BYTES) {
        this.hash.update(b)
        return
      }
    }
    this.buffer.set(b, this.used)
    this.used += b.length
  }

  private flush(): void {
    if (this.used > 0) this.hash.update(this.buffer.subarray(0, this.used))
    this.used = 0
  }
}

/** Both sinks get every entry. */
export function tee(a: EntrySink, b: EntrySink): EntrySink {
  return {
    add: (key, value) => {
      a.add(key, value)
      b.add(key, value)
    },
    addRangeTombstone: (start, end) => {
      a.addRangeTombstone(start, end)
      b.addRangeTombstone(start, end)
    },
  }
}

/**
 * The entries of data blocks, read one block at a time when shown and kept in
 * a small LRU cache. A block is reached through the index (seek to the
 * previous block's separator); a block that cannot be read gives one problem
 * row instead of its entries.
 */
import { parseInternalKey } from '../format/internal-key.js'
import type { DataBlockRef, SequenceNumber, Table, TableIterator } from '../reader.js'
import { messageOf } from '../table/layout.js'

/** One point entry, copied out of its block. */
export interface EntryRow {
  readonly internalKey: Uint8Array
  readonly userKey: Uint8Array
  readonly seq: SequenceNumber
  readonly type: number
  readonly value: Uint8Array
}

export type BlockEntries = { readonly ok: true; readonly entries: EntryRow[] } | { readonly ok: false; readonly problem: string }

export class EntryCache {
  private readonly cache = new Map<number, BlockEntries>()
  /** A table iterator standing on the first entry of block `ordinal`: reading on from there needs no seek. */
  private cont: { it: TableIterator; ordinal: number; offset: number } | null = null
  private readonly bytewise: boolean

  constructor(
    private readonly table: Table,
    /** The data blocks found so far by the index walk (grows while it runs). */
    private readonly refs: readonly DataBlockRef[],
    private readonly capacity: number,
    /** Told when a block's entries cannot be read. */
    private readonly onProblem: (ordinal: number, problem: string) => void,
  ) {
    this.bytewise = table.comparatorName.startsWith('leveldb.BytewiseComparator')
  }

  /** Entries of data block `ordinal` (read on first use, then cached). */
  get(ordinal: number): BlockEntries {
    const hit = this.cache.get(ordinal)
    if (hit) {
      this.cache.delete(ordinal)
      this.cache.set(ordinal, hit)
      return hit
    }
    const r = this.load(ordinal)
    this.cache.set(ordinal, r)
    while (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value as number)
    if (!r.ok) this.onProblem(ordinal, r.problem)
    return r
  }

  has(ordinal: number): boolean {
    return this.cache.has(ordinal)
  }

  private userKeyOfIndexKey(k: Uint8Array): Uint8Array {
    return this.table.indexEncoding.keyIsUserKey ? k : parseInternalKey(k).userKey
  }

  /** Why block `ordinal` cannot be read, or null if it reads fine. */
  private probe(ordinal: number): string | null {
    try {
      this.table.readBlock(this.refs[ordinal].handle, 'data block', true)
      return null
    } catch (e) {
      return messageOf(e)
    }
  }

  private load(ordinal: number): BlockEntries {
    const ref = this.refs[ordinal]
    if (!ref) return { ok: false, problem: `no data block #${ordinal}` }
    const c = this.cont
    if (c && c.ordinal === ordinal && c.offset === ref.handle.offset) {
      this.cont = null
      return this.collect(c.it, ordinal)
    }
    // Position a table iterator on the block through the index: seek to the
    // previous block's separator, then step to this block's first entry.
    const it = this.table.iterator()
    // Without a known comparator there is no seek: walk from the first block.
    const walk = this.table.userComparator === null
    try {
      if (ordinal === 0 || walk) it.seekToFirst()
      else it.seek(this.userKeyOfIndexKey(this.refs[ordinal - 1].indexKey))
    } catch (e) {
      const own = this.probe(ordinal)
      if (own) return { ok: false, problem: own }
      if (ordinal === 0 || !this.bytewise) return { ok: false, problem: `cannot reach this block: ${messageOf(e)}` }
      // The previous block is unreadable: seek just past its separator instead.
      try {
        it.seek(successor(this.userKeyOfIndexKey(this.refs[ordinal - 1].indexKey)))
      } catch (e2) {
        return { ok: false, problem: messageOf(e2) }
      }
    }
    const next = walk ? undefined : this.refs[ordinal + 1]?.handle.offset
    try {
      while (it.valid && it.blockHandle && it.blockHandle.offset !== ref.handle.offset) {
        if (it.blockHandle.offset === next) break
        it.next()
      }
    } catch (e) {
      return { ok: false, problem: this.probe(ordinal) ?? messageOf(e) }
    }
    if (!it.valid || it.blockHandle?.offset !== ref.handle.offset) {
      const own = this.probe(ordinal)
      return own ? { ok: false, problem: own } : { ok: true, entries: [] }
    }
    return this.collect(it, ordinal)
  }

  /** Copy entries while the iterator stays in block `ordinal`; keep it for the next block. */
  private collect(it: TableIterator, ordinal: number): BlockEntries {
    const offset = this.refs[ordinal].handle.offset
    const entries: EntryRow[] = []
    try {
      while (it.valid && it.blockHandle?.offset === offset) {
        const internalKey = it.key.slice()
        const p = parseInternalKey(internalKey)
        entries.push({ internalKey, userKey: p.userKey, seq: p.seq, type: p.type, value: it.value.slice() })
        it.next()
      }
    } catch {
      // reading on failed in the *next* block; this one is complete
      return { ok: true, entries }
    }
    if (it.valid && it.blockHandle) this.cont = { it, ordinal: ordinal + 1, offset: it.blockHandle.offset }
    return { ok: true, entries }
  }
}

/** The smallest key after `k` in bytewise order. */
function successor(k: Uint8Array): Uint8Array {
  const out = new Uint8Array(k.length + 1)
  out.set(k)
  return out
}

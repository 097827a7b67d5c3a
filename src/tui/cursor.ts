/**
 * The Entries cursor: positions (data block ordinal, entry within it) moved
 * over blocks whose rows are read on demand. A corrupt block shows as one row.
 */
import type { Table } from '../index.js'
import { messageOf } from '../table/layout.js'
import { equalBytes } from '../format/coding.js'
import type { BlockEntries, EntryRow } from './entry-cache.js'

/** Where the Entries cursor is: data block ordinal and entry within it (0 for a corrupt block's row). */
export interface EntryPos {
  readonly block: number
  readonly entry: number
}

/** What the cursor moves over (the browse model). */
export interface EntryRows {
  /** Whether data block `ordinal` exists (walking the index on to find out). */
  has(ordinal: number): boolean
  entries(ordinal: number): BlockEntries
  /** Walk the whole index now. */
  finishIndex(): void
  /** Data blocks found so far. */
  readonly knownBlocks: number
  ordinalOfOffset(offset: number): number | undefined
}

/** Rows shown for a block: its entries, or one row saying why it cannot be read. */
export function rowCount(rows: EntryRows, ordinal: number): number {
  const e = rows.entries(ordinal)
  return e.ok ? e.entries.length : 1
}

/** First position with a row at or after block `ordinal` (null if none). */
export function firstFrom(rows: EntryRows, ordinal: number): EntryPos | null {
  for (let b = ordinal; rows.has(b); b++) if (rowCount(rows, b) > 0) return { block: b, entry: 0 }
  return null
}

export function last(rows: EntryRows): EntryPos | null {
  rows.finishIndex()
  for (let b = rows.knownBlocks - 1; b >= 0; b--) {
    const n = rowCount(rows, b)
    if (n > 0) return { block: b, entry: n - 1 }
  }
  return null
}

/** Move `delta` rows (negative: back), stopping at the ends of what is known. */
export function move(rows: EntryRows, pos: EntryPos, delta: number): EntryPos {
  let { block, entry } = pos
  while (delta > 0) {
    const n = rowCount(rows, block)
    if (entry + delta < n) return { block, entry: entry + delta }
    // next block with rows
    let b = block + 1
    while (rows.has(b) && rowCount(rows, b) === 0) b++
    if (!rows.has(b)) return { block, entry: Math.max(0, n - 1) }
    delta -= n - entry
    block = b
    entry = 0
  }
  while (delta < 0) {
    if (entry + delta >= 0) return { block, entry: entry + delta }
    let b = block - 1
    while (b >= 0 && rowCount(rows, b) === 0) b--
    if (b < 0) return { block, entry: 0 }
    delta += entry + 1
    block = b
    entry = rowCount(rows, b) - 1
  }
  return { block, entry }
}

/** Rows from `pos` on, at most `count`. */
export function window(rows: EntryRows, pos: EntryPos, count: number): { pos: EntryPos; row: EntryRow | { problem: string } }[] {
  const out: { pos: EntryPos; row: EntryRow | { problem: string } }[] = []
  let { block, entry } = pos
  while (out.length < count && rows.has(block)) {
    const e = rows.entries(block)
    if (!e.ok) {
      if (entry === 0) out.push({ pos: { block, entry: 0 }, row: { problem: e.problem } })
    } else {
      for (let i = entry; i < e.entries.length && out.length < count; i++) out.push({ pos: { block, entry: i }, row: e.entries[i] })
    }
    block++
    entry = 0
  }
  return out
}

/** The first entry whose user key is >= `userKey`, found through the index. */
export function seek(rows: EntryRows, table: Table, userKey: Uint8Array): { pos: EntryPos } | { end: true } | { error: string } {
  const it = table.iterator()
  try {
    it.seek(userKey)
  } catch (e) {
    return { error: messageOf(e) }
  }
  if (!it.valid || !it.blockHandle) return { end: true }
  const ordinal = rows.ordinalOfOffset(it.blockHandle.offset)
  if (ordinal === undefined) return { error: `data block at offset ${it.blockHandle.offset} is not in the index` }
  const found = it.key.slice()
  const e = rows.entries(ordinal)
  if (!e.ok) return { error: e.problem }
  const i = e.entries.findIndex((r) => equalBytes(r.internalKey, found))
  return { pos: { block: ordinal, entry: Math.max(0, i) } }
}

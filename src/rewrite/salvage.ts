/**
 * Reading what a damaged table still holds, for `rewrite --salvage`: whole
 * data blocks that read, decode and keep the key order, and the range
 * tombstones if their block reads. Everything left out is counted with its
 * file offset so that the caller can say what was dropped.
 */
import { BlockIter } from '../format/block.js'
import { newScratch } from '../codec/output.js'
import { ReadWindow } from '../io/byte-source.js'
import { messageOf } from '../table/layout.js'

/** A reason without the "(at offset N)" its error appends: the note gives the offset itself. */
const reasonOf = (e: unknown) => messageOf(e).replace(/ \(at offset \d+\)$/, '')
import type { Entry } from './ingestible.js'
import type { RangeTombstone } from '../format/range-del.js'
import type { Table } from '../table/reader.js'

/** What salvage left out. */
export interface SalvageLog {
  /** Data blocks dropped (unreadable, undecodable or out of order), by file offset. */
  droppedBlocks: { offset: number; reason: string }[]
  /** Why the index could not be read to its end (later blocks were not reached), or null. */
  indexProblem: string | null
  /** Why the range tombstones were dropped, or null. */
  tombstoneProblem: string | null
}

export function newSalvageLog(): SalvageLog {
  return { droppedBlocks: [], indexProblem: null, tombstoneProblem: null }
}

/**
 * Every point entry as stored, in order (an intact table). Blocks are read
 * through a private window into a reused buffer, so an entry's views are
 * valid only until the next block: consumers copy what they keep.
 */
export function* storedEntries(table: Table): Generator<Entry> {
  const reuse = { scratch: newScratch(), window: new ReadWindow(table.source) }
  const entry: Entry = { key: new Uint8Array(0), value: new Uint8Array(0) }
  for (const ref of table.dataBlocks()) {
    const it = new BlockIter(table.readDataBlock(ref.handle, reuse), ref.handle.offset, 'data block', table.dataRestartInterval)
    for (it.seekToFirst(); it.valid; it.next()) {
      entry.key = it.key
      entry.value = it.value
      yield entry
    }
  }
}

/**
 * The point entries of every data block that reads whole and sorts after
 * the last entry kept; one block's entries are held at a time.
 */
export function* salvagedEntries(table: Table, log: SalvageLog): Generator<Entry> {
  let last: Uint8Array | null = null
  const ordered = table.userComparator !== null
  const blocks = table.dataBlocks()
  for (;;) {
    let ref: IteratorResult<{ handle: { offset: number; size: number } }>
    try {
      ref = blocks.next()
    } catch (e) {
      log.indexProblem = reasonOf(e)
      return
    }
    if (ref.done) return
    const offset = ref.value.handle.offset
    const kept: Entry[] = []
    try {
      const raw = table.readBlock(ref.value.handle, 'data block', true)
      const it = new BlockIter(raw, offset, 'data block', table.dataRestartInterval)
      for (it.seekToFirst(); it.valid; it.next()) {
        const key = it.key.slice()
        const previous = kept.length > 0 ? kept[kept.length - 1].key : last
        // Order is checked only under a comparator known to be the file's (a custom one's order is not ours to judge).
        if (previous && ordered && table.compareInternal(previous, key) >= 0) throw new Error('keys out of order')
        kept.push({ key, value: it.value.slice() })
      }
    } catch (e) {
      log.droppedBlocks.push({ offset, reason: reasonOf(e) })
      continue
    }
    if (kept.length > 0) last = kept[kept.length - 1].key
    yield* kept
  }
}

/** The range tombstones as stored, or none (with the reason logged) when their block is damaged. */
export function salvagedTombstones(table: Table, log: SalvageLog): RangeTombstone[] {
  try {
    return table.rangeTombstones({ applyGlobalSeqno: false })
  } catch (e) {
    log.tombstoneProblem = reasonOf(e)
    return []
  }
}

/** What salvage dropped, one sentence each (none when nothing was). */
export function salvageNotes(log: SalvageLog): string[] {
  const notes: string[] = []
  const n = log.droppedBlocks.length
  if (n > 0) {
    const first = log.droppedBlocks[0]
    notes.push(`salvage: dropped ${n} damaged data block${n === 1 ? '' : 's'} with their entries (first at offset ${first.offset}: ${first.reason})`)
  }
  if (log.indexProblem) notes.push(`salvage: the index could not be read to its end; data blocks after that point were dropped (${log.indexProblem})`)
  if (log.tombstoneProblem) notes.push(`salvage: dropped the range tombstones (${log.tombstoneProblem})`)
  return notes
}

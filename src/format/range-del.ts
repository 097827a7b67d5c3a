/**
 * The range-deletion block, `rocksdb.range_del`: a generic block (restart
 * interval 1, uncompressed) whose entries are tombstones as added:
 *
 *   key   = internal key (start user key, seq, kTypeRangeDeletion)
 *   value = end user key (exclusive)
 *
 * Tombstones may overlap and are not fragmented on disk.
 */
import { BlockIter } from './block.js'
import { parseInternalKey, type SequenceNumber } from './internal-key.js'

export interface RangeTombstone {
  /** Start user key (inclusive). */
  readonly start: Uint8Array
  /** End user key (exclusive). */
  readonly end: Uint8Array
  readonly seq: SequenceNumber
  readonly type: number
  /** The whole stored internal key. */
  readonly internalKey: Uint8Array
}

export function decodeRangeDeletions(block: Uint8Array, base: number): RangeTombstone[] {
  const it = new BlockIter(block, base, 'range deletion block')
  const out: RangeTombstone[] = []
  for (it.seekToFirst(); it.valid; it.next()) {
    const internalKey = it.key.slice()
    const { userKey, seq, type } = parseInternalKey(internalKey, base + it.entryOffset)
    out.push({ start: userKey, end: it.value.slice(), seq, type, internalKey })
  }
  return out
}

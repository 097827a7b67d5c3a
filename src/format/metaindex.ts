/**
 * The metaindex block (RocksDB `table/meta_blocks.cc`): a generic block mapping
 * meta-block names (sorted bytewise) to BlockHandles. Always uncompressed.
 */
import { BLOCK_FOOTER_BYTES, BlockBuilder, BlockIter, decodeBlockLayout } from './block.js'
import { type BlockHandle, decodeBlockHandle, encodeBlockHandle } from './block-handle.js'
import { compareBytes, Cursor, escapeBytesShort, readFixed32, utf8 } from './coding.js'
import { CorruptionError } from './errors.js'

export const PROPERTIES_BLOCK = 'rocksdb.properties'
/** Very old name of the properties block. */
export const LEGACY_PROPERTIES_BLOCK = 'rocksdb.stats'
/** format_version >= 6: the top-level index handle. */
export const INDEX_BLOCK = 'rocksdb.index'
export const COMPRESSION_DICT_BLOCK = 'rocksdb.compression_dict'
export const RANGE_DEL_BLOCK = 'rocksdb.range_del'
export const HASH_INDEX_PREFIXES_BLOCK = 'rocksdb.hashindex.prefixes'
export const HASH_INDEX_METADATA_BLOCK = 'rocksdb.hashindex.metadata'
export const FULL_FILTER_PREFIX = 'fullfilter.'
export const PARTITIONED_FILTER_PREFIX = 'partitionedfilter.'
/** Obsolete per-2 KiB block-based filter. */
export const BLOCK_BASED_FILTER_PREFIX = 'filter.'

export interface MetaindexEntry {
  readonly name: string
  readonly handle: BlockHandle
}

/** Decode a metaindex block that starts at file offset `base`. */
export function decodeMetaindex(block: Uint8Array, base: number): MetaindexEntry[] {
  // Only data blocks carry a hash index (bit 31 of the block footer): the flag here is damage, whatever the rest would decode to.
  if (block.length >= BLOCK_FOOTER_BYTES && readFixed32(block, block.length - BLOCK_FOOTER_BYTES) >= 0x80000000) {
    const packed = readFixed32(block, block.length - BLOCK_FOOTER_BYTES)
    throw new CorruptionError(
      `metaindex block footer 0x${packed.toString(16)} has bit 31 (a data block's hash index) set`,
      base + block.length - BLOCK_FOOTER_BYTES,
    )
  }
  const layout = decodeBlockLayout(block, base, 'metaindex block')
  const it = new BlockIter(block, base, 'metaindex block', 0, false, layout)
  const out: MetaindexEntry[] = []
  for (it.seekToFirst(); it.valid; it.next()) {
    const c = new Cursor(block, it.valueStart, it.valueEnd, base, `metaindex entry '${escapeBytesShort(it.key)}'`)
    out.push({ name: utf8(it.key), handle: decodeBlockHandle(c) })
  }
  return out
}

const te = new TextEncoder()

/** The metaindex block for these entries: sorted bytewise by name, restart interval 1 (as RocksDB's MetaIndexBuilder). */
export function encodeMetaindex(entries: readonly MetaindexEntry[]): Uint8Array {
  const builder = new BlockBuilder(1)
  const named = entries.map((e) => ({ key: te.encode(e.name), handle: e.handle })).sort((a, b) => compareBytes(a.key, b.key))
  for (const e of named) builder.add(e.key, encodeBlockHandle(e.handle))
  return builder.finish()
}

/**
 * kHashSearch index meta blocks (RocksDB `table/block_based/index_builder.h`
 * `HashIndexBuilder`, read by `table/block_based/block_prefix_index.cc`
 * `BlockPrefixIndex::Create`):
 *
 *   rocksdb.hashindex.prefixes  = the distinct key prefixes, concatenated
 *   rocksdb.hashindex.metadata  = per prefix: varint32 prefix_len,
 *                                 varint32 first_index_entry, varint32 num_blocks
 *
 * A prefix's keys live in the `num_blocks` consecutive data blocks starting at
 * index entry `first_index_entry` (0-based; the index has restart interval 1).
 * Both blocks are written through the index compressor, so callers pass the
 * decompressed block contents.
 */
import { Cursor } from './coding.js'
import { CorruptionError } from './errors.js'

export { HASH_INDEX_PREFIXES_BLOCK, HASH_INDEX_METADATA_BLOCK } from './metaindex.js'

export interface HashIndexPrefix {
  /** A view into the prefixes block. */
  prefix: Uint8Array
  firstIndexEntry: number
  numBlocks: number
}

export interface DecodeHashIndexOptions {
  /** File offset of the prefixes block contents (for error messages). */
  prefixesBase?: number
  /** File offset of the metadata block contents (for error messages). */
  metadataBase?: number
  /** Number of entries in the index block; when given, every prefix's block range must lie within it. */
  numIndexEntries?: number
}

/** Decode the two kHashSearch meta blocks into one record per prefix, in file order. */
export function decodeHashIndex(prefixes: Uint8Array, metadata: Uint8Array, opts: DecodeHashIndexOptions = {}): HashIndexPrefix[] {
  const prefixesBase = opts.prefixesBase ?? 0
  const c = new Cursor(metadata, 0, metadata.length, opts.metadataBase ?? 0, 'hash index metadata')
  const out: HashIndexPrefix[] = []
  let pos = 0
  while (c.remaining > 0) {
    const recordAt = c.fileOffset
    const prefixLen = c.varint32()
    const firstIndexEntry = c.varint32()
    const numBlocks = c.varint32()
    const i = out.length
    if (prefixLen > prefixes.length - pos) {
      throw new CorruptionError(
        `hash index metadata: prefix ${i} is ${prefixLen} bytes but only ${prefixes.length - pos} of the ` +
          `${prefixes.length}-byte prefixes block remain (at prefixes offset ${prefixesBase + pos})`,
        recordAt,
      )
    }
    if (numBlocks === 0) {
      throw new CorruptionError(`hash index metadata: prefix ${i} covers 0 data blocks`, recordAt)
    }
    if (opts.numIndexEntries !== undefined && firstIndexEntry + numBlocks > opts.numIndexEntries) {
      throw new CorruptionError(
        `hash index metadata: prefix ${i} covers index entries ${firstIndexEntry}..${firstIndexEntry + numBlocks - 1} ` +
          `but the index has ${opts.numIndexEntries}`,
        recordAt,
      )
    }
    out.push({ prefix: prefixes.subarray(pos, pos + prefixLen), firstIndexEntry, numBlocks })
    pos += prefixLen
  }
  if (pos !== prefixes.length) {
    throw new CorruptionError(
      `hash index: metadata lists ${out.length} prefixes totalling ${pos} bytes but the prefixes block has ${prefixes.length}`,
      prefixesBase + pos,
    )
  }
  return out
}

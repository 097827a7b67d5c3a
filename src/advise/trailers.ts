/**
 * Today's compression of a table that does not record it (no properties block: LevelDB's tables,
 * RocksDB's before properties existed): read from the data blocks' own trailers, whose first byte
 * is the block's compression type. A writer stores a block raw when compressing it does not pay
 * (LevelDB and RocksDB before 8.2: it must save 1/8), so a table of snappy blocks and raw ones is a
 * snappy table; one with raw blocks only was written without compression.
 */
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import { compressionTypeName } from '../format/compression-type.js'
import type { Table } from '../table/reader.js'

/** Trailers read at most per table, spread over its data blocks. */
const TRAILERS_READ = 64

/** RocksDB's name of the compression the table's blocks use (e.g. "Snappy"), or null when it has no data block. */
export function compressionFromTrailers(table: Table): string | null {
  const handles: { offset: number; size: number }[] = []
  for (const h of table.dataHandles()) handles.push({ offset: h.offset, size: h.size })
  if (handles.length === 0) return null
  const step = Math.max(1, handles.length / TRAILERS_READ)
  const counts = new Map<number, number>()
  for (let i = 0; i < handles.length; i += step) {
    const h = handles[Math.floor(i)]
    const type = table.source.read(h.offset + h.size, BLOCK_TRAILER_BYTES)[0]
    counts.set(type, (counts.get(type) ?? 0) + 1)
  }
  // The most common compressed type; raw blocks are the ones it did not pay to compress.
  const compressed = [...counts].filter(([t]) => t !== 0).sort((a, b) => b[1] - a[1] || a[0] - b[0])
  return compressionTypeName(compressed.length > 0 ? compressed[0][0] : 0)
}

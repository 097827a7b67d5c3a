/**
 * sstkit as a library: typed access to RocksDB block-based SST files.
 *
 *   import { openTable } from 'sstkit'
 *   const table = openTable('000123.sst')
 *   table.footer.formatVersion; table.properties.known.get('rocksdb.num.entries')
 *   const it = table.iterator(); for (it.seek(key); it.valid; it.next()) ...
 */
export { openTable, Table, TableIterator } from './table/reader.js'
export type { OpenTableOptions, DataBlockRef } from './table/reader.js'
export { tableLayout } from './table/layout.js'
export type { TableLayout, LayoutBlock, LayoutTotals, BlockKind } from './table/layout.js'
export { verifyTable } from './table/verify.js'
export type { VerifyResult, VerifyProblem } from './table/verify.js'
export { ChecksumMismatchError } from './table/block-reader.js'
export { FileByteSource, BufferByteSource } from './io/byte-source.js'
export type { ByteSource } from './io/byte-source.js'
export { CorruptionError, NotSupportedError } from './format/errors.js'
export type { Footer } from './format/footer.js'
export { magicName } from './format/footer.js'
export type { BlockHandle } from './format/block-handle.js'
export type { TableProperties, PropertyValue } from './format/properties.js'
export { decodeWellKnownUserProperty } from './format/properties.js'
export { parseInternalKey } from './format/internal-key.js'
export type { ParsedInternalKey, SequenceNumber } from './format/internal-key.js'
export type { RangeTombstone } from './format/range-del.js'
export { indexTypeName } from './format/index-block.js'
export { checksumTypeName } from './codec/checksum.js'
export { compressionTypeName } from './codec/compression.js'
export { valueTypeName } from './format/value-type.js'

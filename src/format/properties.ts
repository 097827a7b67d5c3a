/**
 * The properties block, `rocksdb.properties` (RocksDB `table/meta_blocks.cc`,
 * `include/rocksdb/table_properties.h`).
 *
 * A generic block of name -> value entries sorted bytewise. Names RocksDB knows
 * are typed: varint64 numbers or raw strings. Every other name is a
 * user-collected property, kept as raw bytes (a few well-known ones decoded).
 */
import { BlockBuilder, BlockIter } from './block.js'
import { exactText } from './exact-text.js'
import { Cursor, compareBytes, encodeVarint, escapeBytesShort, readFixed32, readFixed64, utf8 } from './coding.js'
import { CorruptionError } from './errors.js'

/** Every property name sstkit knows, by a name that explains itself (the one place these strings are written). */
export const Property = {
  DataSize: 'rocksdb.data.size',
  IndexSize: 'rocksdb.index.size',
  IndexPartitions: 'rocksdb.index.partitions',
  TopLevelIndexSize: 'rocksdb.top-level.index.size',
  IndexKeyIsUserKey: 'rocksdb.index.key.is.user.key',
  IndexValueIsDeltaEncoded: 'rocksdb.index.value.is.delta.encoded',
  UdiIsPrimaryIndex: 'rocksdb.udi.is.primary.index',
  FilterSize: 'rocksdb.filter.size',
  RawKeySize: 'rocksdb.raw.key.size',
  RawValueSize: 'rocksdb.raw.value.size',
  NumDataBlocks: 'rocksdb.num.data.blocks',
  NumDataBlocksCompressionRejected: 'rocksdb.num.data.blocks.compression.rejected',
  NumDataBlocksCompressionBypassed: 'rocksdb.num.data.blocks.compression.bypassed',
  NumUniformBlocks: 'rocksdb.num.uniform.blocks',
  NumEntries: 'rocksdb.num.entries',
  NumFilterEntries: 'rocksdb.num.filter_entries',
  DeletedKeys: 'rocksdb.deleted.keys',
  MergeOperands: 'rocksdb.merge.operands',
  NumRangeDeletions: 'rocksdb.num.range-deletions',
  FormatVersion: 'rocksdb.format.version',
  FixedKeyLength: 'rocksdb.fixed.key.length',
  ColumnFamilyId: 'rocksdb.column.family.id',
  CreationTime: 'rocksdb.creation.time',
  OldestKeyTime: 'rocksdb.oldest.key.time',
  NewestKeyTime: 'rocksdb.newest.key.time',
  FileCreationTime: 'rocksdb.file.creation.time',
  SampleForCompressionSlowDataSize: 'rocksdb.sample_for_compression.slow.data.size',
  SampleForCompressionFastDataSize: 'rocksdb.sample_for_compression.fast.data.size',
  TailStartOffset: 'rocksdb.tail.start.offset',
  UserDefinedTimestampsPersisted: 'rocksdb.user.defined.timestamps.persisted',
  KeyLargestSeqno: 'rocksdb.key.largest.seqno',
  KeySmallestSeqno: 'rocksdb.key.smallest.seqno',
  DataBlockRestartInterval: 'rocksdb.data.block.restart.interval',
  IndexBlockRestartInterval: 'rocksdb.index.block.restart.interval',
  SeparateKeyValueInDataBlock: 'rocksdb.separate.key.value.in.data.block',
  OriginalFileNumber: 'rocksdb.original.file.number',
  CreatingDbIdentity: 'rocksdb.creating.db.identity',
  CreatingSessionIdentity: 'rocksdb.creating.session.identity',
  CreatingHostIdentity: 'rocksdb.creating.host.identity',
  FilterPolicy: 'rocksdb.filter.policy',
  Comparator: 'rocksdb.comparator',
  MergeOperator: 'rocksdb.merge.operator',
  PrefixExtractorName: 'rocksdb.prefix.extractor.name',
  PropertyCollectors: 'rocksdb.property.collectors',
  ColumnFamilyName: 'rocksdb.column.family.name',
  Compression: 'rocksdb.compression',
  CompressionOptions: 'rocksdb.compression_options',
  SeqnoTimeMap: 'rocksdb.seqno.time.map',
  BlockBasedTableIndexType: 'rocksdb.block.based.table.index.type',
  BlockBasedTableWholeKeyFiltering: 'rocksdb.block.based.table.whole.key.filtering',
  BlockBasedTablePrefixFiltering: 'rocksdb.block.based.table.prefix.filtering',
  ExternalSstFileGlobalSeqno: 'rocksdb.external_sst_file.global_seqno',
  ExternalSstFileVersion: 'rocksdb.external_sst_file.version',
  BlockBasedTableDecoupledPartitionedFilters: 'rocksdb.block.based.table.decoupled.partitioned.filters',
} as const
export type PropertyName = (typeof Property)[keyof typeof Property]

/** Properties stored as varint64. */
export const NUMERIC_PROPERTIES: readonly string[] = [
  Property.DataSize,
  Property.IndexSize,
  Property.IndexPartitions,
  Property.TopLevelIndexSize,
  Property.IndexKeyIsUserKey,
  Property.IndexValueIsDeltaEncoded,
  Property.UdiIsPrimaryIndex,
  Property.FilterSize,
  Property.RawKeySize,
  Property.RawValueSize,
  Property.NumDataBlocks,
  Property.NumDataBlocksCompressionRejected,
  Property.NumDataBlocksCompressionBypassed,
  Property.NumUniformBlocks,
  Property.NumEntries,
  Property.NumFilterEntries,
  Property.DeletedKeys,
  Property.MergeOperands,
  Property.NumRangeDeletions,
  Property.FormatVersion,
  Property.FixedKeyLength,
  Property.ColumnFamilyId,
  Property.CreationTime,
  Property.OldestKeyTime,
  Property.NewestKeyTime,
  Property.FileCreationTime,
  Property.SampleForCompressionSlowDataSize,
  Property.SampleForCompressionFastDataSize,
  Property.TailStartOffset,
  Property.UserDefinedTimestampsPersisted,
  Property.KeyLargestSeqno,
  Property.KeySmallestSeqno,
  Property.DataBlockRestartInterval,
  Property.IndexBlockRestartInterval,
  Property.SeparateKeyValueInDataBlock,
  Property.OriginalFileNumber,
]

/** Properties stored as raw strings. */
export const STRING_PROPERTIES: readonly string[] = [
  Property.CreatingDbIdentity,
  Property.CreatingSessionIdentity,
  Property.CreatingHostIdentity,
  Property.FilterPolicy,
  Property.Comparator,
  Property.MergeOperator,
  Property.PrefixExtractorName,
  Property.PropertyCollectors,
  Property.ColumnFamilyName,
  Property.Compression,
  Property.CompressionOptions,
]

/** Binary properties RocksDB knows; kept as bytes. */
export const BINARY_PROPERTIES: readonly string[] = [Property.SeqnoTimeMap]

const NUMERIC = new Set(NUMERIC_PROPERTIES)
const STRING = new Set(STRING_PROPERTIES)
const BINARY = new Set(BINARY_PROPERTIES)

/** Well-known user-collected properties with a fixed encoding. */
export const INDEX_TYPE_PROPERTY = Property.BlockBasedTableIndexType
export const WHOLE_KEY_FILTERING_PROPERTY = Property.BlockBasedTableWholeKeyFiltering
export const PREFIX_FILTERING_PROPERTY = Property.BlockBasedTablePrefixFiltering
export const GLOBAL_SEQNO_PROPERTY = Property.ExternalSstFileGlobalSeqno
export const EXTERNAL_SST_VERSION_PROPERTY = Property.ExternalSstFileVersion

export type PropertyValue = number | bigint | string

export interface RawProperty {
  readonly name: string
  readonly value: Uint8Array
  /** File offset of the entry, for error messages and for the global-seqno checksum rule. */
  readonly valueOffset: number
}

export interface TableProperties {
  /** Properties RocksDB knows, typed; in file order. */
  readonly known: Map<string, PropertyValue | Uint8Array>
  /** User-collected properties (everything else), raw bytes; in file order. */
  readonly user: Map<string, Uint8Array>
  /** Every entry as stored. */
  readonly raw: RawProperty[]
}

/** Decode a (decompressed) properties block that starts at file offset `base`. */
export function decodeProperties(block: Uint8Array, base: number): TableProperties {
  const it = new BlockIter(block, base, 'properties block')
  const known = new Map<string, PropertyValue | Uint8Array>()
  const user = new Map<string, Uint8Array>()
  const raw: RawProperty[] = []
  let prev: Uint8Array | null = null
  for (it.seekToFirst(); it.valid; it.next()) {
    const key = it.key
    if (prev && compareBytes(prev, key) >= 0) {
      throw new CorruptionError(`properties block: keys are not sorted or repeat ('${escapeBytesShort(key)}')`, base + it.entryOffset)
    }
    prev = key.slice()
    const name = exactText(key)
    const value = it.value.slice()
    raw.push({ name, value, valueOffset: base + it.valueStart })
    if (NUMERIC.has(name)) {
      const c = new Cursor(value, 0, value.length, base + it.valueStart, `property ${name}`)
      const v = c.varint64Big()
      known.set(name, v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v)
    } else if (STRING.has(name)) {
      known.set(name, exactText(value))
    } else if (BINARY.has(name)) {
      known.set(name, value)
    } else {
      user.set(name, value)
    }
  }
  return { known, user, raw }
}

/** Decode well-known user-collected properties; undefined when unknown or malformed. */
export function decodeWellKnownUserProperty(name: string, value: Uint8Array): PropertyValue | undefined {
  switch (name) {
    case INDEX_TYPE_PROPERTY:
    case EXTERNAL_SST_VERSION_PROPERTY:
      return value.length === 4 ? readFixed32(value, 0) : undefined
    case GLOBAL_SEQNO_PROPERTY: {
      if (value.length !== 8) return undefined
      const v = readFixed64(value, 0)
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
    }
    case WHOLE_KEY_FILTERING_PROPERTY:
    case PREFIX_FILTERING_PROPERTY:
    case Property.BlockBasedTableDecoupledPartitionedFilters:
      return utf8(value)
    default:
      return undefined
  }
}

export function propertyNumber(props: TableProperties, name: string): number | undefined {
  const v = props.known.get(name)
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  return undefined
}

export function propertyString(props: TableProperties, name: string): string | undefined {
  const v = props.known.get(name)
  return typeof v === 'string' ? v : undefined
}

const te = new TextEncoder()

/** A numeric property's stored value: varint64. */
export function encodePropertyNumber(v: number | bigint): Uint8Array {
  return encodeVarint(v)
}

/** A string property's stored value: the raw UTF-8 bytes. */
export function encodePropertyString(v: string): Uint8Array {
  return te.encode(v)
}

/** The properties block for name -> stored value: sorted bytewise by name, one restart point (RocksDB's PropertyBlockBuilder). */
export function encodeProperties(props: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const builder = new BlockBuilder(0x7fffffff)
  const named = [...props].map(([name, value]) => ({ key: te.encode(name), value })).sort((a, b) => compareBytes(a.key, b.key))
  for (const e of named) builder.add(e.key, e.value)
  return builder.finish()
}

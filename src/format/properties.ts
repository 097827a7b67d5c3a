/**
 * The properties block, `rocksdb.properties` (RocksDB `table/meta_blocks.cc`,
 * `include/rocksdb/table_properties.h`).
 *
 * A generic block of name -> value entries sorted bytewise. Names RocksDB knows
 * are typed: varint64 numbers or raw strings. Every other name is a
 * user-collected property, kept as raw bytes (a few well-known ones decoded).
 */
import { BlockIter } from './block.js'
import { Cursor, compareBytes, readFixed32, readFixed64, utf8 } from './coding.js'
import { CorruptionError } from './errors.js'

/** Properties stored as varint64. */
export const NUMERIC_PROPERTIES: readonly string[] = [
  'rocksdb.data.size',
  'rocksdb.index.size',
  'rocksdb.index.partitions',
  'rocksdb.top-level.index.size',
  'rocksdb.index.key.is.user.key',
  'rocksdb.index.value.is.delta.encoded',
  'rocksdb.udi.is.primary.index',
  'rocksdb.filter.size',
  'rocksdb.raw.key.size',
  'rocksdb.raw.value.size',
  'rocksdb.num.data.blocks',
  'rocksdb.num.data.blocks.compression.rejected',
  'rocksdb.num.data.blocks.compression.bypassed',
  'rocksdb.num.uniform.blocks',
  'rocksdb.num.entries',
  'rocksdb.num.filter_entries',
  'rocksdb.deleted.keys',
  'rocksdb.merge.operands',
  'rocksdb.num.range-deletions',
  'rocksdb.format.version',
  'rocksdb.fixed.key.length',
  'rocksdb.column.family.id',
  'rocksdb.creation.time',
  'rocksdb.oldest.key.time',
  'rocksdb.newest.key.time',
  'rocksdb.file.creation.time',
  'rocksdb.sample_for_compression.slow.data.size',
  'rocksdb.sample_for_compression.fast.data.size',
  'rocksdb.tail.start.offset',
  'rocksdb.user.defined.timestamps.persisted',
  'rocksdb.key.largest.seqno',
  'rocksdb.key.smallest.seqno',
  'rocksdb.data.block.restart.interval',
  'rocksdb.index.block.restart.interval',
  'rocksdb.separate.key.value.in.data.block',
  'rocksdb.original.file.number',
]

/** Properties stored as raw strings. */
export const STRING_PROPERTIES: readonly string[] = [
  'rocksdb.creating.db.identity',
  'rocksdb.creating.session.identity',
  'rocksdb.creating.host.identity',
  'rocksdb.filter.policy',
  'rocksdb.comparator',
  'rocksdb.merge.operator',
  'rocksdb.prefix.extractor.name',
  'rocksdb.property.collectors',
  'rocksdb.column.family.name',
  'rocksdb.compression',
  'rocksdb.compression_options',
]

/** Binary properties RocksDB knows; kept as bytes. */
export const BINARY_PROPERTIES: readonly string[] = ['rocksdb.seqno.time.map']

const NUMERIC = new Set(NUMERIC_PROPERTIES)
const STRING = new Set(STRING_PROPERTIES)
const BINARY = new Set(BINARY_PROPERTIES)

/** Well-known user-collected properties with a fixed encoding. */
export const INDEX_TYPE_PROPERTY = 'rocksdb.block.based.table.index.type'
export const WHOLE_KEY_FILTERING_PROPERTY = 'rocksdb.block.based.table.whole.key.filtering'
export const PREFIX_FILTERING_PROPERTY = 'rocksdb.block.based.table.prefix.filtering'
export const GLOBAL_SEQNO_PROPERTY = 'rocksdb.external_sst_file.global_seqno'
export const EXTERNAL_SST_VERSION_PROPERTY = 'rocksdb.external_sst_file.version'

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
      throw new CorruptionError(`properties block: keys are not sorted or repeat ("${utf8(key)}")`, base + it.entryOffset)
    }
    prev = key.slice()
    const name = utf8(key)
    const value = it.value.slice()
    raw.push({ name, value, valueOffset: base + it.valueStart })
    if (NUMERIC.has(name)) {
      const c = new Cursor(value, 0, value.length, base + it.valueStart, `property ${name}`)
      const v = c.varint64Big()
      known.set(name, v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v)
    } else if (STRING.has(name)) {
      known.set(name, utf8(value))
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
    case 'rocksdb.block.based.table.decoupled.partitioned.filters':
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


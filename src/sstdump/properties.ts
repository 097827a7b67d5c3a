/**
 * Table properties as sst_dump prints them: `TableProperties::ToString("\n  ", ": ")`
 * (RocksDB table/table_properties.cc) for 7.8.3 and, for files 7.8.3 cannot
 * read (format_version >= 6), for the newest RocksDB; plus the unique ID
 * (table/unique_id.cc) and the "Raw user collected properties" list.
 */
import { createRequire } from 'node:module'
import { type TableProperties, BINARY_PROPERTIES, NUMERIC_PROPERTIES, Property, STRING_PROPERTIES } from '../format/properties.js'
import { hexUpper } from './sink.js'
import { formatSeqnoTimeMapProperty } from '../report/sst-dump-text.js'

const M64 = (1n << 64n) - 1n
const UNKNOWN_CF = 2147483647n

/** The varint properties RocksDB 7.8.3 does not parse yet (it lists them as user collected). */
const NEWER_THAN_783 = new Set<string>([
  Property.UdiIsPrimaryIndex,
  Property.NumDataBlocksCompressionRejected,
  Property.NumDataBlocksCompressionBypassed,
  Property.NumUniformBlocks,
  Property.NewestKeyTime,
  Property.TailStartOffset,
  Property.UserDefinedTimestampsPersisted,
  Property.KeyLargestSeqno,
  Property.KeySmallestSeqno,
  Property.DataBlockRestartInterval,
  Property.IndexBlockRestartInterval,
  Property.SeparateKeyValueInDataBlock,
])
/** Property names each release parses into fields (everything else is "user collected"); the newest knows format/properties.ts's. */
const UINT64_LATEST = new Set<string>(NUMERIC_PROPERTIES)
const UINT64_783 = new Set<string>(NUMERIC_PROPERTIES.filter((name) => !NEWER_THAN_783.has(name)))
const STRINGS = new Set<string>([...STRING_PROPERTIES, ...BINARY_PROPERTIES])

/** `TableProperties` as RocksDB fills it from the properties block. */
export interface SstDumpProperties {
  readonly latest: boolean
  readonly num: ReadonlyMap<string, bigint>
  readonly str: ReadonlyMap<string, Uint8Array>
  /** User-collected properties, sorted by name (a std::map). */
  readonly user: readonly (readonly [string, Uint8Array])[]
}

function varint64(b: Uint8Array): bigint | null {
  let v = 0n
  for (let i = 0, shift = 0n; i < b.length && shift <= 63n; i++, shift += 7n) {
    v |= BigInt(b[i] & 0x7f) << shift
    if ((b[i] & 0x80) === 0) return v & M64
  }
  return null
}

function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

/** Classify the stored properties as the given release does. */
export function sstDumpProperties(props: TableProperties, latest: boolean): SstDumpProperties {
  const uints = latest ? UINT64_LATEST : UINT64_783
  const num = new Map<string, bigint>()
  const str = new Map<string, Uint8Array>()
  const user: [string, Uint8Array][] = []
  for (const p of props.raw) {
    if (uints.has(p.name)) {
      if (p.name === Property.DeletedKeys || p.name === Property.MergeOperands) user.push([p.name, p.value])
      const v = varint64(p.value)
      if (v !== null) num.set(p.name, v) // a malformed value is skipped, as RocksDB does
    } else if (STRINGS.has(p.name)) str.set(p.name, p.value)
    else user.push([p.name, p.value])
  }
  // std::map insert keeps the first of equal names
  user.sort((a, b) => compareNames(a[0], b[0]))
  const dedup = user.filter((e, i) => i === 0 || e[0] !== user[i - 1][0])
  return { latest, num, str, user: dedup }
}

const latin1 = (b: Uint8Array | undefined): string => (b ? Buffer.from(b).toString('latin1') : '')

/** `std::to_string(double)`: `%f`. */
export function toStringDouble(v: number): string {
  return v.toFixed(6)
}

// Required on first use (unique ids of --show_properties only): loading the addon costs every process and worker ~10–50 ms.
const require = createRequire(import.meta.url)
let xxhash: typeof import('@node-rs/xxhash') | undefined

function xxh3_128(data: Uint8Array, seed: bigint): { hi: bigint; lo: bigint } {
  xxhash ??= require('@node-rs/xxhash') as typeof import('@node-rs/xxhash')
  const h = xxhash.xxh3.xxh128(data, seed)
  return { hi: (h >> 64n) & M64, lo: h & M64 }
}

function mul128(a: bigint, b: bigint): { hi: bigint; lo: bigint } {
  const p = a * b
  return { hi: (p >> 64n) & M64, lo: p & M64 }
}

function avalanche(h: bigint): bigint {
  h ^= h >> 37n
  h = (h * 0x165667919e3779f9n) & M64
  h ^= h >> 32n
  return h
}

function swap64(v: bigint): bigint {
  let r = 0n
  for (let i = 0n; i < 8n; i++) r = (r << 8n) | ((v >> (8n * i)) & 0xffn)
  return r
}

/** `BijectiveHash2x64` with seed 0 (util/hash.cc). */
function bijectiveHash2x64(inHigh: bigint, inLow: bigint): { hi: bigint; lo: bigint } {
  const bitflipl = 0x59973f0033362349n
  const bitfliph = 0xc202797692d63d58n
  let t = mul128(inLow ^ inHigh ^ bitflipl, 0x9e3779b185ebca87n)
  let lo = t.lo
  let hi = t.hi
  lo = (lo + 0x3c0000000000000n) & M64
  const h2 = inHigh ^ bitfliph
  hi = (hi + h2 + (h2 & 0xffffffffn) * 0x85ebca76n) & M64
  lo ^= swap64(hi)
  t = mul128(lo, 0xc2b2ae3d27d4eb4fn)
  lo = t.lo
  hi = (t.hi + hi * 0xc2b2ae3d27d4eb4fn) & M64
  return { lo: avalanche(lo), hi: avalanche(hi) }
}

function parseBase36(s: string): bigint | null {
  let v = 0n
  for (const c of s) {
    const d = c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c >= 'A' && c <= 'Z' ? c.charCodeAt(0) - 55 : c >= 'a' && c <= 'z' ? c.charCodeAt(0) - 87 : -1
    if (d < 0) return null
    v = (v * 36n + BigInt(d)) & M64
  }
  return v
}

/** `GetUniqueIdFromTableProperties` + `UniqueIdToHumanString`, or "N/A". */
export function uniqueIdString(dbId: Uint8Array | undefined, sessionId: Uint8Array | undefined, fileNumber: bigint): string {
  if (!dbId || dbId.length === 0 || fileNumber === 0n || !sessionId || sessionId.length === 0) return 'N/A'
  // RocksDB's db_session_id: base-36 digits, the last 12 the lower part.
  const idText = latin1(sessionId)
  if (idText.length < 13 || idText.length > 24) return 'N/A'
  const a = parseBase36(idText.slice(0, idText.length - 12))
  const b = parseBase36(idText.slice(idText.length - 12))
  if (a === null || b === null) return 'N/A'
  const upper = a >> 2n
  const lower = ((b & (M64 >> 2n)) | (a << 62n)) & M64
  const db = xxh3_128(dbId, upper)
  const p0 = lower
  const p1 = db.hi ^ fileNumber // Hash2x64 returns (high, low): db_a is the high half
  // InternalUniqueIdToExternal
  const kHi = 17391078804906429400n
  const kLo = 6417269962128484497n
  const ext = bijectiveHash2x64((p1 + kHi) & M64, (p0 + kLo) & M64)
  const bytes = Buffer.alloc(16)
  bytes.writeBigUInt64LE(ext.lo, 0)
  bytes.writeBigUInt64LE(ext.hi, 8)
  const hex = hexUpper(bytes)
  return `${hex.slice(0, 16)}-${hex.slice(16)}`
}

/** `TableProperties::ToString("\n  ", ": ")`: every line ends with "\n  ". */
export function propertiesToString(p: SstDumpProperties): string {
  const n = (name: string): bigint => p.num.get(name) ?? 0n
  const s = (name: string): string => latin1(p.str.get(name))
  const orNA = (v: string): string => (v === '' ? 'N/A' : v)
  const lines: [string, string][] = []
  const add = (k: string, v: string | bigint): void => {
    lines.push([k, String(v)])
  }
  const entries = n(Property.NumEntries)
  add('# data blocks', n(Property.NumDataBlocks))
  if (p.latest) {
    add('# data blocks compression rejected', n(Property.NumDataBlocksCompressionRejected))
    add('# data blocks compression bypassed', n(Property.NumDataBlocksCompressionBypassed))
    add('# uniform blocks', n(Property.NumUniformBlocks))
  }
  add('# entries', entries)
  add('# deletions', n(Property.DeletedKeys))
  add('# merge operands', n(Property.MergeOperands))
  add('# range deletions', n(Property.NumRangeDeletions))
  add('raw key size', n(Property.RawKeySize))
  add('raw average key size', toStringDouble(entries !== 0n ? Number(n(Property.RawKeySize)) / Number(entries) : 0))
  add('raw value size', n(Property.RawValueSize))
  add('raw average value size', toStringDouble(entries !== 0n ? Number(n(Property.RawValueSize)) / Number(entries) : 0))
  add('data block size', n(Property.DataSize))
  if (p.latest) add('data uncompressed size', 0n) // not persisted: reads back as 0
  const i32 = (v: bigint): number => Number(BigInt.asIntN(32, v))
  add(`index block size (user-key? ${i32(n(Property.IndexKeyIsUserKey))}, delta-value? ${i32(n(Property.IndexValueIsDeltaEncoded))})`, n(Property.IndexSize))
  if (n(Property.IndexPartitions) !== 0n) {
    add('# index partitions', n(Property.IndexPartitions))
    add('top-level index size', n(Property.TopLevelIndexSize))
  }
  add('filter block size', n(Property.FilterSize))
  add('# entries for filter', n(Property.NumFilterEntries))
  add('(estimated) table size', (n(Property.DataSize) + n(Property.IndexSize) + n(Property.FilterSize)) & M64)
  add('filter policy name', orNA(s(Property.FilterPolicy)))
  add('prefix extractor name', orNA(s(Property.PrefixExtractorName)))
  const cf = p.num.get(Property.ColumnFamilyId) ?? UNKNOWN_CF
  add('column family ID', cf === UNKNOWN_CF ? 'N/A' : String(cf))
  add('column family name', orNA(s(Property.ColumnFamilyName)))
  add('comparator name', orNA(s(Property.Comparator)))
  if (p.latest) {
    add('user defined timestamps persisted', (p.num.get(Property.UserDefinedTimestampsPersisted) ?? 1n) !== 0n ? 'true' : 'false')
    add('largest sequence number in file', p.num.get(Property.KeyLargestSeqno) ?? M64)
    add('smallest sequence number in file', p.num.get(Property.KeySmallestSeqno) ?? M64)
  }
  add('merge operator name', orNA(s(Property.MergeOperator)))
  add('property collectors names', orNA(s(Property.PropertyCollectors)))
  add('SST file compression algo', orNA(s(Property.Compression)))
  add('SST file compression options', orNA(s(Property.CompressionOptions)))
  add('creation time', n(Property.CreationTime))
  add('time stamp of earliest key', n(Property.OldestKeyTime))
  if (p.latest) add('time stamp of newest key', n(Property.NewestKeyTime))
  add('file creation time', n(Property.FileCreationTime))
  add('slow compression estimated data size', n(Property.SampleForCompressionSlowDataSize))
  add('fast compression estimated data size', n(Property.SampleForCompressionFastDataSize))
  add('DB identity', s(Property.CreatingDbIdentity))
  add('DB session identity', s(Property.CreatingSessionIdentity))
  add('DB host id', s(Property.CreatingHostIdentity))
  add('original file number', n(Property.OriginalFileNumber))
  add('unique ID', uniqueIdString(p.str.get(Property.CreatingDbIdentity), p.str.get(Property.CreatingSessionIdentity), n(Property.OriginalFileNumber)))
  let mapping: string
  try {
    mapping = formatSeqnoTimeMapProperty(p.str.get(Property.SeqnoTimeMap) ?? new Uint8Array(0), { allowTrailingBytes: !p.latest })
  } catch {
    mapping = 'N/A'
  }
  add('Sequence number to time mapping', mapping)
  return lines.map(([k, v]) => `${k}: ${v}\n  `).join('')
}

/** The `Raw user collected properties` lines (`  # name: 0xHEX`). */
export function userPropertiesLines(p: SstDumpProperties): string {
  return p.user.map(([k, v]) => `  # ${k}: 0x${hexUpper(v)}\n`).join('')
}

/** Property values as latin1 strings (bytes preserved when the output is encoded back as latin1). */
export function propertyText(p: SstDumpProperties, name: string): string {
  return latin1(p.str.get(name))
}

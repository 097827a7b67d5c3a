/**
 * The `props` report: footer facts and every property, as a JSON document
 * (the documented contract) and as rows for people.
 */
import { checksumTypeName } from '../codec/checksum.js'
import { decodeWellKnownUserProperty } from '../format/properties.js'
import { describeFilter, filterInfo } from '../table/filter-info.js'
import { formatSeqnoTimeMapProperty } from './sst-dump-text.js'
import { indexTypeName } from '../format/index-block.js'
import { magicName } from '../format/footer.js'
import type { FilterDescription, FilterInfo, Table } from '../reader.js'
import { escapeText, toHex } from '../format/coding.js'
import { printableLine } from '../errors.js'
import { BLOCK_BASED_FILTER_PREFIX, FULL_FILTER_PREFIX, PARTITIONED_FILTER_PREFIX } from '../format/metaindex.js'
import { problemOf } from '../verify/verify.js'

const FILTER_PREFIXES = [FULL_FILTER_PREFIX, PARTITIONED_FILTER_PREFIX, BLOCK_BASED_FILTER_PREFIX]
import { formatBytes, jsonNumber, wrapWords } from './text.js'
import { Property } from '../format/properties.js'

export interface PropsJson {
  file: string
  format: {
    magic: string
    tableKind: string
    formatVersion: number
    checksumType: string
    footerOffset: number
    metaindex: { offset: number; size: number }
    index: { offset: number; size: number }
  }
  properties: Record<string, number | string>
  /** Identified from the filter block itself; null when the file has none. */
  filter: (Omit<FilterInfo, 'description'> & { description: FilterDescription | null; summary: string }) | null
  userProperties: Record<string, { hex: string; value?: number | string }>
  /** What could not be read while describing the file (a damaged filter block); absent when nothing. */
  problems?: { block: string; offset: number | null; message: string }[]
}

/**
 * The properties report. `identifyFilter: false` leaves the filter unread
 * (`filter` is then null): the browser's first screen shows only what opening
 * the table read.
 */
export function propsJson(file: string, t: Table, options: { identifyFilter?: boolean } = {}): PropsJson {
  const properties: Record<string, number | string> = {}
  // Text as its exact bytes (format/exact-text.ts): JSON escapes what needs it; propsText escapes for the terminal.
  for (const [name, v] of t.properties.known) {
    properties[name] = v instanceof Uint8Array ? knownBinaryText(name, v) : jsonNumber(v)
  }
  const userProperties: PropsJson['userProperties'] = {}
  for (const [name, v] of t.properties.user) {
    const decoded = decodeWellKnownUserProperty(name, v)
    const value = decoded === undefined ? undefined : jsonNumber(decoded)
    userProperties[name] = { hex: toHex(v), ...(value === undefined ? {} : { value }) }
  }
  const problems: NonNullable<PropsJson['problems']> = []
  const filter = (options.identifyFilter ?? true) ? filterJson(t, problems) : null
  return {
    file,
    format: {
      magic: `0x${t.footer.magic.toString(16).padStart(16, '0')}`,
      tableKind: magicName(t.footer.magic),
      formatVersion: t.formatVersion,
      checksumType: checksumTypeName(t.footer.checksumType),
      footerOffset: t.footer.offset,
      metaindex: { ...t.footer.metaindexHandle },
      index: { ...t.indexHandle },
    },
    properties,
    filter,
    userProperties,
    ...(problems.length > 0 ? { problems } : {}),
  }
}

/** The filter as read from its blocks; a filter that cannot be read is a problem of the file, and shows as none. */
function filterJson(t: Table, problems: NonNullable<PropsJson['problems']>): PropsJson['filter'] {
  try {
    const f = filterInfo(t)
    return f ? { ...f, summary: describeFilter(f) } : null
  } catch (e) {
    const entry = t.metaindexEntries.find((m) => FILTER_PREFIXES.some((p) => m.name.startsWith(p)))
    problems.push({ block: 'filter', ...problemOf(e, entry?.handle.offset ?? null) })
    return null
  }
}

function knownBinaryText(name: string, v: Uint8Array): string {
  if (name === Property.SeqnoTimeMap) return formatSeqnoTimeMapProperty(v)
  return toHex(v)
}

const TIME_PROPERTIES = new Set<string>([Property.CreationTime, Property.OldestKeyTime, Property.NewestKeyTime, Property.FileCreationTime])

const SIZE_PROPERTIES = new Set<string>([
  Property.DataSize,
  Property.IndexSize,
  Property.TopLevelIndexSize,
  Property.FilterSize,
  Property.RawKeySize,
  Property.RawValueSize,
  Property.TailStartOffset,
])

/** A short human gloss for a value (dates for times, KiB for sizes). */
function gloss(name: string, v: number | string): string {
  if (typeof v !== 'number') return ''
  if (TIME_PROPERTIES.has(name) && v > 0) return new Date(v * 1000).toISOString().replace('.000Z', 'Z')
  if (SIZE_PROPERTIES.has(name) && v >= 1024) return formatBytes(v)
  if (name === Property.ColumnFamilyId && v === 2147483647) return 'unknown'
  if (name === Property.FormatVersion && v === 0) return 'written as 0 before RocksDB 9.8; the footer is authoritative'
  return ''
}

/** Property groups for people, in display order; anything else goes under "Other". */
const GROUPS: [string, string[]][] = [
  [
    'Counts',
    [
      Property.NumEntries,
      Property.NumDataBlocks,
      Property.DeletedKeys,
      Property.MergeOperands,
      Property.NumRangeDeletions,
      Property.NumFilterEntries,
      Property.NumDataBlocksCompressionRejected,
      Property.NumDataBlocksCompressionBypassed,
      Property.NumUniformBlocks,
    ],
  ],
  [
    'Sizes',
    [
      Property.DataSize,
      Property.IndexSize,
      Property.IndexPartitions,
      Property.TopLevelIndexSize,
      Property.FilterSize,
      Property.RawKeySize,
      Property.RawValueSize,
      Property.TailStartOffset,
      Property.SampleForCompressionFastDataSize,
      Property.SampleForCompressionSlowDataSize,
    ],
  ],
  ['Compression', [Property.Compression, Property.CompressionOptions]],
  [
    'Index and filter',
    [
      Property.BlockBasedTableIndexType,
      Property.IndexKeyIsUserKey,
      Property.IndexValueIsDeltaEncoded,
      Property.IndexBlockRestartInterval,
      Property.DataBlockRestartInterval,
      Property.SeparateKeyValueInDataBlock,
      Property.FilterPolicy,
      Property.PrefixExtractorName,
      Property.BlockBasedTableWholeKeyFiltering,
      Property.BlockBasedTablePrefixFiltering,
    ],
  ],
  [
    'Keys',
    [
      Property.Comparator,
      Property.MergeOperator,
      Property.KeySmallestSeqno,
      Property.KeyLargestSeqno,
      Property.FixedKeyLength,
      Property.UserDefinedTimestampsPersisted,
      Property.ExternalSstFileVersion,
      Property.ExternalSstFileGlobalSeqno,
    ],
  ],
  [
    'Identity and times',
    [
      Property.ColumnFamilyId,
      Property.ColumnFamilyName,
      Property.CreationTime,
      Property.OldestKeyTime,
      Property.NewestKeyTime,
      Property.FileCreationTime,
      Property.CreatingDbIdentity,
      Property.CreatingSessionIdentity,
      Property.CreatingHostIdentity,
      Property.OriginalFileNumber,
      Property.FormatVersion,
      Property.PropertyCollectors,
      Property.SeqnoTimeMap,
    ],
  ],
]

/** Aligned, grouped text: footer facts, then properties by topic, with short glosses; long values wrap to `maxWidth` columns under themselves. */
export function propsText(j: PropsJson, maxWidth = 100): string {
  const rows = new Map<string, { value: string; note: string }>()
  for (const [name, v] of Object.entries(j.properties)) rows.set(escapeText(name), { value: escapeText(String(v)), note: gloss(name, v) })
  for (const [raw, u] of Object.entries(j.userProperties)) {
    const name = escapeText(raw)
    let note = u.value === undefined ? 'user property, raw bytes' : ''
    if (name === Property.BlockBasedTableIndexType && typeof u.value === 'number') note = indexTypeName(u.value)
    rows.set(name, { value: u.value !== undefined ? escapeText(String(u.value)) : `0x${u.hex}`, note })
  }
  const width = Math.max(24, ...[...rows.keys()].map((k) => k.length)) + 2
  const line = (k: string, v: string, note = '') => {
    const head = `  ${k.padEnd(width)}`
    const rest = `${v}${note ? `  (${note})` : ''}`
    if (head.length + rest.length <= maxWidth) return head + rest
    const indent = ' '.repeat(head.length)
    return wrapWords(rest, Math.max(20, maxWidth - head.length))
      .map((l, i) => (i === 0 ? head : indent) + l)
      .join('\n')
  }
  const out: string[] = [
    j.file,
    line('table', `${j.format.tableKind}, format_version ${j.format.formatVersion}, checksum ${j.format.checksumType}`),
    line('magic', j.format.magic),
    line('metaindex', `offset ${j.format.metaindex.offset}, size ${j.format.metaindex.size}`),
    line('index', `offset ${j.format.index.offset}, size ${j.format.index.size}`),
    line('footer', `offset ${j.format.footerOffset}`),
    line('filter', j.filter ? `${j.filter.summary} (${j.filter.metaName})` : j.problems?.some((p) => p.block === 'filter') ? 'unreadable' : 'none'),
    ...(j.problems ?? []).map((p) => printableLine(`  problem: ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`)),
  ]
  const shown = new Set<string>()
  for (const [title, names] of GROUPS) {
    const present = names.filter((n) => rows.has(n))
    if (present.length === 0) continue
    out.push('', title)
    for (const n of present) {
      const r = rows.get(n)!
      out.push(line(n, r.value, r.note))
      shown.add(n)
    }
  }
  const rest = [...rows.keys()].filter((n) => !shown.has(n))
  if (rest.length > 0) {
    out.push('', 'Other')
    for (const n of rest) out.push(line(n, rows.get(n)!.value, rows.get(n)!.note))
  }
  return out.join('\n')
}

/**
 * The `props` report: footer facts and every property, as a JSON document
 * (the documented contract) and as rows for people.
 */
import { checksumTypeName, decodeWellKnownUserProperty, indexTypeName, magicName, Table } from '../index.js'
import { formatSeqnoTimeMapProperty } from '../format/seqno-time-map.js'
import { formatBytes, jsonNumber } from './text.js'
import { TableModel } from './table.js'

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
  userProperties: Record<string, { hex: string; value?: number | string }>
}

export function propsJson(file: string, t: Table): PropsJson {
  const properties: Record<string, number | string> = {}
  for (const [name, v] of t.properties.known) {
    properties[name] = v instanceof Uint8Array ? knownBinaryText(name, v) : jsonNumber(v)
  }
  const userProperties: PropsJson['userProperties'] = {}
  for (const [name, v] of t.properties.user) {
    const decoded = decodeWellKnownUserProperty(name, v)
    userProperties[name] = { hex: Buffer.from(v).toString('hex'), ...(decoded === undefined ? {} : { value: jsonNumber(decoded) }) }
  }
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
    userProperties,
  }
}

function knownBinaryText(name: string, v: Uint8Array): string {
  if (name === 'rocksdb.seqno.time.map') return formatSeqnoTimeMapProperty(v)
  return Buffer.from(v).toString('hex')
}

const TIME_PROPERTIES = new Set([
  'rocksdb.creation.time',
  'rocksdb.oldest.key.time',
  'rocksdb.newest.key.time',
  'rocksdb.file.creation.time',
])

const SIZE_PROPERTIES = new Set([
  'rocksdb.data.size',
  'rocksdb.index.size',
  'rocksdb.top-level.index.size',
  'rocksdb.filter.size',
  'rocksdb.raw.key.size',
  'rocksdb.raw.value.size',
  'rocksdb.tail.start.offset',
])

/** A short human gloss for a value (dates for times, KiB for sizes). */
function gloss(name: string, v: number | string): string {
  if (typeof v !== 'number') return ''
  if (TIME_PROPERTIES.has(name) && v > 0) return new Date(v * 1000).toISOString().replace('.000Z', 'Z')
  if (SIZE_PROPERTIES.has(name) && v >= 1024) return formatBytes(v)
  if (name === 'rocksdb.column.family.id' && v === 2147483647) return 'unknown'
  return ''
}

export function footerModel(j: PropsJson): TableModel {
  return {
    columns: [{ header: 'Footer' }, { header: 'Value' }],
    rows: [
      ['table kind', `${j.format.tableKind} (magic ${j.format.magic})`],
      ['format_version', j.format.formatVersion],
      ['checksum type', j.format.checksumType],
      ['metaindex', `offset ${j.format.metaindex.offset}, size ${j.format.metaindex.size}`],
      ['index', `offset ${j.format.index.offset}, size ${j.format.index.size}`],
      ['footer', `offset ${j.format.footerOffset}`],
    ],
  }
}

export function propertiesModel(j: PropsJson): TableModel {
  const rows: (string | number)[][] = []
  for (const [name, v] of Object.entries(j.properties)) rows.push([name, v, gloss(name, v)])
  for (const [name, u] of Object.entries(j.userProperties)) {
    let note = 'user property'
    if (name === 'rocksdb.block.based.table.index.type' && typeof u.value === 'number') note = indexTypeName(u.value)
    rows.push([name, u.value !== undefined ? u.value : `0x${u.hex}`, note])
  }
  return { columns: [{ header: 'Property' }, { header: 'Value' }, { header: 'Note' }], rows }
}

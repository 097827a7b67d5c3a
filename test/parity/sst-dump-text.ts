/** Parsers for the real sst_dump's text output (the committed golden files). */

export interface ScanLine {
  key: string
  seq: string
  type: string
  value: string
}

/** `'<HEXKEY>' seq:N, type:T => <HEXVALUE>` lines of `--command=scan --output_hex`. */
export function parseSstDumpScan(text: string): ScanLine[] {
  const out: ScanLine[] = []
  for (const line of text.split('\n')) {
    const m = /^'([0-9A-F]*)' seq:(\d+), type:(\d+) => ([0-9A-F]*)$/.exec(line)
    if (m) out.push({ key: m[1], seq: m[2], type: m[3], value: m[4] })
    else if (line.startsWith("'")) throw new Error(`unparsed scan line: ${line}`)
  }
  return out
}

export interface SstDumpProps {
  table: Map<string, string>
  user: Map<string, string>
}

/** `Table Properties:` lines (`  label: value`) and raw user properties (`  # name: 0xHEX`). */
export function parseSstDumpProps(text: string): SstDumpProps {
  const table = new Map<string, string>()
  const user = new Map<string, string>()
  let section: 'none' | 'table' | 'user' = 'none'
  for (const line of text.split('\n')) {
    if (line.startsWith('Table Properties:')) section = 'table'
    else if (line.startsWith('  Raw user collected properties')) section = 'user'
    else if (section === 'user') {
      const m = /^ {2}# (.+?): 0x([0-9A-F]*)$/.exec(line)
      if (m) user.set(m[1], m[2])
    } else if (section === 'table') {
      const m = /^ {2}(.+?): (.*)$/.exec(line)
      if (m) table.set(m[1], m[2])
    }
  }
  return { table, user }
}

/** sst_dump 7.8.3 label -> RocksDB property name, for labels that print one stored property. */
const LABELS: Record<string, string> = {
  '# data blocks': 'rocksdb.num.data.blocks',
  '# entries': 'rocksdb.num.entries',
  '# deletions': 'rocksdb.deleted.keys',
  '# merge operands': 'rocksdb.merge.operands',
  '# range deletions': 'rocksdb.num.range-deletions',
  'raw key size': 'rocksdb.raw.key.size',
  'raw value size': 'rocksdb.raw.value.size',
  'data block size': 'rocksdb.data.size',
  '# index partitions': 'rocksdb.index.partitions',
  'top-level index size': 'rocksdb.top-level.index.size',
  'filter block size': 'rocksdb.filter.size',
  '# entries for filter': 'rocksdb.num.filter_entries',
  'filter policy name': 'rocksdb.filter.policy',
  'prefix extractor name': 'rocksdb.prefix.extractor.name',
  'column family ID': 'rocksdb.column.family.id',
  'column family name': 'rocksdb.column.family.name',
  'comparator name': 'rocksdb.comparator',
  'merge operator name': 'rocksdb.merge.operator',
  'property collectors names': 'rocksdb.property.collectors',
  'SST file compression algo': 'rocksdb.compression',
  'SST file compression options': 'rocksdb.compression_options',
  'creation time': 'rocksdb.creation.time',
  'time stamp of earliest key': 'rocksdb.oldest.key.time',
  'file creation time': 'rocksdb.file.creation.time',
  'slow compression estimated data size': 'rocksdb.sample_for_compression.slow.data.size',
  'fast compression estimated data size': 'rocksdb.sample_for_compression.fast.data.size',
  'DB identity': 'rocksdb.creating.db.identity',
  'DB session identity': 'rocksdb.creating.session.identity',
  'DB host id': 'rocksdb.creating.host.identity',
  'original file number': 'rocksdb.original.file.number',
}

/** Defaults sst_dump prints for properties absent from the file. */
function isDefault(label: string, value: string): boolean {
  return value === 'N/A' || ((label.startsWith('#') || /size|time|number/.test(label)) && value === '0') || value === ''
}

/**
 * What sstkit's `props --json` must contain for this sst_dump output:
 * property name -> value text, and `user:<name>` -> upper-case hex.
 */
export function expectedProperties(p: SstDumpProps): Record<string, string> {
  const want: Record<string, string> = {}
  for (const [label, value] of p.table) {
    const m = /^index block size \(user-key\? (\d), delta-value\? (\d)\)$/.exec(label)
    if (m) {
      want['rocksdb.index.size'] = value
      want['rocksdb.index.key.is.user.key'] = m[1]
      want['rocksdb.index.value.is.delta.encoded'] = m[2]
      continue
    }
    const name = LABELS[label]
    if (!name) continue
    if (isDefault(label, value)) continue // absent or zero: not a stored value to compare
    want[name] = value
  }
  for (const [name, hex] of p.user) want[`user:${name}`] = hex
  return want
}

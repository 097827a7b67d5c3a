/**
 * How `props`, `layout`, `verify` and `scan` show a blob file of the integrated BlobDB
 * (`blob/`, `format/blob-file.ts`): the same shapes as for SSTs where they overlap (a file per
 * report, `problems` with part, offset and message, scan's key/value lines), with the blob file's
 * own facts (header, footer, records) where an SST's would not fit.
 */
import { blobFileStats, type BlobProblem, verifyBlobFile } from '../blob/inspect.js'
import { type BlobFile, blobRecords, decompressBlobValue } from '../blob/reader.js'
import { printableLine } from '../errors.js'
import { BLOB_FOOTER_SIZE, BLOB_HEADER_SIZE, rangeText } from '../format/blob-file.js'
import { toHex } from '../format/coding.js'
import { compressionTypeName } from '../format/compression-type.js'
import type { LineWriter } from './line-writer.js'
import { escapeBytes, formatBytes } from './text.js'

/** What `rewrite` says of a blob file: it rebuilds tables; a blob file's records are kept by RocksDB's own compaction and GC. */
/** What `browse` says of a blob file: its screens are a table's; the commands that read blob files are named. */
export function blobNotBrowsed(file: string): string {
  return `a BlobDB blob file: browse shows SST files only; \`sstkit scan ${file}\` lists its records, \`sstkit props ${file}\` and \`sstkit layout ${file}\` its header, footer and sizes, \`sstkit verify ${file}\` checks it`
}
export const BLOB_NOT_REWRITTEN = 'a BlobDB blob file: rewrite rebuilds SST files only and does not rewrite blob files'

export interface BlobPropsJson {
  file: string
  kind: 'blob'
  fileSize: number
  header: { version: number; columnFamilyId: number; compression: string; compressionType: number; hasTtl: boolean; expirationRange: string }
  /** Null when the file has none (not closed). */
  footer: { offset: number; blobCount: number; expirationRange: string } | null
  records: number
  keyBytes: number
  /** Record headers, keys and stored values together. */
  recordBytes: number
  storedValueBytes: number
  /** As each value's framing declares it; null when some value's framing does not say. */
  rawValueBytes: number | null
  /** rawValueBytes / storedValueBytes (null without both). */
  compressionRatio: number | null
  smallestValue: number | null
  largestValue: number | null
  /** What stopped the walk of the records, or a damaged footer; absent when nothing. */
  problems?: BlobProblemJson[]
}

export interface BlobProblemJson {
  block: string
  offset: number | null
  message: string
}

function problemJson(p: BlobProblem): BlobProblemJson {
  return { block: p.part, offset: p.offset, message: p.message }
}

function footerJson(f: BlobFile): BlobPropsJson['footer'] {
  return f.footer ? { offset: f.recordsEnd, blobCount: Number(f.footer.blobCount), expirationRange: rangeText(f.footer.expirationRange) } : null
}

function headerJson(f: BlobFile): BlobPropsJson['header'] {
  const h = f.header
  return {
    version: h.version,
    columnFamilyId: h.columnFamilyId,
    compression: compressionTypeName(h.compression),
    compressionType: h.compression,
    hasTtl: h.hasTtl,
    expirationRange: rangeText(h.expirationRange),
  }
}

/** `props FILE.blob`: header, footer, counts and sizes from one walk of the records (no value decoded). */
export function blobPropsJson(file: string, f: BlobFile): BlobPropsJson {
  const s = blobFileStats(f)
  const problems: BlobProblemJson[] = []
  if (s.stopped) problems.push({ block: 'record', offset: s.stopped.offset, message: s.stopped.message })
  if (f.footerError) problems.push({ block: 'footer', offset: f.footerError.offset ?? null, message: f.footerError.message.replace(/ \(at offset \d+\)$/, '') })
  return {
    file,
    kind: 'blob',
    fileSize: f.fileSize,
    header: headerJson(f),
    footer: footerJson(f),
    records: s.records,
    keyBytes: s.keyBytes,
    recordBytes: s.recordBytes,
    storedValueBytes: s.storedValueBytes,
    rawValueBytes: s.rawValueBytes,
    compressionRatio: s.rawValueBytes !== null && s.storedValueBytes > 0 ? round2(s.rawValueBytes / s.storedValueBytes) : null,
    smallestValue: s.smallestValue,
    largestValue: s.largestValue,
    ...(problems.length > 0 ? { problems } : {}),
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100
}

/** Bytes with their KiB/MiB form when it says more. */
function bytesText(n: number | null): string {
  if (n === null) return 'unknown'
  const short = formatBytes(n)
  return short === `${n} B` ? String(n) : `${n}  (${short})`
}

export function blobPropsText(j: BlobPropsJson): string {
  const line = (k: string, v: string) => `  ${k.padEnd(26)}${v}`
  const out = [
    j.file,
    line('blob file', `BlobDB blob file, version ${j.header.version}, column family ${j.header.columnFamilyId}`),
    line('compression', `${j.header.compression} (each value compressed on its own, no dictionary)`),
    line('expiration range', j.header.expirationRange),
    line('footer', j.footer ? `offset ${j.footer.offset}, blob count ${j.footer.blobCount}` : 'none (the file was not closed)'),
    ...(j.problems ?? []).map((p) => printableLine(`  problem: ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`)),
    '',
    'Counts',
    line('records', String(j.records)),
    '',
    'Sizes',
    line('file', bytesText(j.fileSize)),
    line('keys', bytesText(j.keyBytes)),
    line('values stored', bytesText(j.storedValueBytes)),
    line('values uncompressed', bytesText(j.rawValueBytes)),
    line('compression ratio', j.compressionRatio === null ? 'unknown' : j.compressionRatio.toFixed(2)),
    line('smallest value', bytesText(j.smallestValue)),
    line('largest value', bytesText(j.largestValue)),
  ]
  return out.join('\n')
}

/** `layout FILE.blob`: header, records summary, footer, and bytes no part accounts for. */
export interface BlobLayoutJson {
  file: string
  kind: 'blob'
  fileSize: number
  parts: { kind: 'header' | 'records' | 'footer' | 'gap'; offset: number; size: number; count?: number; compression?: string; uncompressed?: number | null }[]
  problems: BlobProblemJson[]
}

export function blobLayoutJson(file: string, f: BlobFile): BlobLayoutJson {
  const s = blobFileStats(f)
  const parts: BlobLayoutJson['parts'] = [{ kind: 'header', offset: 0, size: BLOB_HEADER_SIZE }]
  parts.push({
    kind: 'records',
    offset: BLOB_HEADER_SIZE,
    size: s.recordBytes,
    count: s.records,
    compression: compressionTypeName(f.header.compression),
    uncompressed: s.rawValueBytes === null ? null : s.recordBytes - s.storedValueBytes + s.rawValueBytes,
  })
  const recordsEnd = BLOB_HEADER_SIZE + s.recordBytes
  const footerAt = f.footer || f.footerError ? f.fileSize - BLOB_FOOTER_SIZE : f.fileSize
  if (footerAt > recordsEnd) parts.push({ kind: 'gap', offset: recordsEnd, size: footerAt - recordsEnd })
  if (f.footer || f.footerError) parts.push({ kind: 'footer', offset: footerAt, size: BLOB_FOOTER_SIZE })
  const problems: BlobProblemJson[] = []
  if (s.stopped) problems.push({ block: 'record', offset: s.stopped.offset, message: s.stopped.message })
  if (f.footerError) problems.push({ block: 'footer', offset: f.footerError.offset ?? null, message: f.footerError.message.replace(/ \(at offset \d+\)$/, '') })
  return { file, kind: 'blob', fileSize: f.fileSize, parts, problems }
}

export function blobLayoutText(j: BlobLayoutJson): string {
  const rows = j.parts.map((p) => [
    p.kind,
    String(p.offset),
    formatBytes(p.size),
    p.count !== undefined ? `${p.count} records` : '',
    p.compression ?? '',
    p.uncompressed === undefined ? '' : p.uncompressed === null ? 'unknown' : formatBytes(p.uncompressed),
  ])
  const head = ['Kind', 'Offset', 'On disk', 'Count', 'Compression', 'Uncompressed']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const right = [false, true, true, true, false, true]
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  const out = [`${j.file}: blob file, ${j.fileSize} bytes`, fmt(head), ...rows.map(fmt)]
  for (const p of j.problems) out.push(printableLine(`problem: ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`))
  return out.join('\n')
}

/** `verify FILE.blob --json`. */
export interface BlobVerifyJson {
  file: string
  kind: 'blob'
  ok: boolean
  records: number
  valuesDecompressed: number
  footerBlobCount: number | null
  problems: BlobProblemJson[]
}

export function blobVerifyJson(file: string, f: BlobFile): BlobVerifyJson {
  const r = verifyBlobFile(f)
  return {
    file,
    kind: 'blob',
    ok: r.ok,
    records: r.records,
    valuesDecompressed: r.valuesDecompressed,
    footerBlobCount: r.footerBlobCount,
    problems: r.problems.map(problemJson),
  }
}

export function blobVerifyText(r: BlobVerifyJson): string {
  if (r.ok) return `${r.file}: OK (blob file, ${r.records} records, ${r.valuesDecompressed} values decompressed, footer blob count ${r.footerBlobCount})`
  const lines = [`${r.file}: CORRUPT (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'})`]
  for (const p of r.problems) lines.push(printableLine(`  ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`))
  return lines.join('\n')
}

export interface BlobScanSpec {
  format: 'text' | 'jsonl'
  hex?: boolean
  /** In JSON Lines, the file of each entry (several files). */
  file?: string
  /** Only records whose key passes (scan's --from, --to, --prefix, compared bytewise: a blob file's records are in the order its table's keys were). */
  keep?: (key: Uint8Array) => boolean
}

const TEXT_DECODER = new TextDecoder('utf-8')

/** As scan's entry JSON: `name` as UTF-8 text when valid (or hex under --hex), else `nameHex`. */
function bytesField(name: string, b: Uint8Array, asHex: boolean): Record<string, string> {
  if (asHex) return { [name]: toHex(b) }
  const text = TEXT_DECODER.decode(b)
  return Buffer.from(text, 'utf8').equals(b) ? { [name]: text } : { [`${name}Hex`]: toHex(b) }
}

/**
 * `scan FILE.blob`: each record's key and value (decompressed) in file order, at most `limit`;
 * returns how many were printed. Text lines are `'key' => 'value'` (hex with --hex), as scan
 * prints raw-key tables; JSON Lines objects have `key`/`keyHex`, `value`/`valueHex` and `offset`
 * (the record's file offset). A damaged record throws (CorruptionError naming its offset) after
 * the records before it were printed.
 */
export function scanBlobFile(f: BlobFile, spec: BlobScanSpec, out: LineWriter, limit = Infinity): number {
  let printed = 0
  const asHex = spec.hex ?? false
  const show = (b: Uint8Array) => (asHex ? `0x${toHex(b)}` : `'${escapeBytes(b)}'`)
  for (const r of blobRecords(f)) {
    if (printed >= limit) break
    if (spec.keep && !spec.keep(r.key)) continue
    if (r.blobCrcError) throw r.blobCrcError
    const value = decompressBlobValue(f.header.compression, r.value, r.valueOffset)
    if (spec.format === 'jsonl') {
      const o = {
        ...(spec.file !== undefined ? { file: spec.file } : {}),
        ...bytesField('key', r.key, asHex),
        offset: r.offset,
        ...bytesField('value', value, asHex),
      }
      out.text(`${JSON.stringify(o)}\n`)
    } else out.text(`${show(r.key)} => ${show(value)}\n`)
    printed++
  }
  return printed
}

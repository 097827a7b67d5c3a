/**
 * How `scan` shows entries: one text line per entry for people, or one JSON
 * object per line (the documented `--format jsonl` contract).
 */
// Direct module imports, not the ../reader.js barrel: scan workers load this file.
import { isUtf8 } from 'node:buffer'
import { decodeBlobIndex } from '../format/blob-index.js'
import { readFixed32, toHex } from '../format/coding.js'
import { parseInternalKey, sequenceFrom, type SequenceNumber } from '../format/internal-key.js'
import { splitValuePreferredSeqno } from '../format/preferred-seqno.js'
import { ValueType, valueTypeName } from '../format/value-type.js'
import { decodeWideColumns } from '../format/wide-columns.js'
import type { LineWriter } from './line-writer.js'
import { escapeBytes } from './text.js'
import { formatBlobIndex, formatWideColumns } from './sst-dump-text.js'

export interface EntryView {
  userKey: Uint8Array
  seq: SequenceNumber
  type: number
  value: Uint8Array
  /** Size of the user-defined timestamp at the end of the user key (0 = none). */
  timestampSize: number
  /** A blob index's value read from its blob file (scan with blob files), or why it could not be. */
  blob?: { value: Uint8Array } | { error: string }
}

const TEXT_DECODER = new TextDecoder('utf-8')

function keyText(b: Uint8Array, asHex: boolean): string {
  return asHex ? `0x${toHex(b)}` : `'${escapeBytes(b)}'`
}

function timestampOf(e: EntryView): { key: Uint8Array; ts: string | null } {
  if (e.timestampSize === 8 && e.userKey.length >= 8) {
    const n = e.userKey.length - 8
    const v = new DataView(e.userKey.buffer, e.userKey.byteOffset + n, 8).getBigUint64(0, true)
    return { key: e.userKey.subarray(0, n), ts: v.toString() }
  }
  return { key: e.userKey, ts: null }
}

/** A person-readable line: `'key' @seq kTypeValue => 'value'`. */
export function entryLine(e: EntryView, asHex: boolean): string {
  const { key, ts } = timestampOf(e)
  let head = `${keyText(key, asHex)}${ts !== null ? ` |ts:${ts}` : ''} @${e.seq} ${valueTypeName(e.type)}`
  switch (e.type) {
    case ValueType.Deletion:
    case ValueType.SingleDeletion:
    case ValueType.DeletionWithTimestamp:
      return e.value.length > 0 ? `${head} => ${keyText(e.value, asHex)}` : head
    case ValueType.RangeDeletion:
      return `[${keyText(key, asHex)}, ${keyText(e.value, asHex)}) @${e.seq} ${valueTypeName(e.type)}`
    case ValueType.BlobIndex:
      if (e.blob && 'value' in e.blob) return `${head} => ${keyText(e.blob.value, asHex)}`
      return `${head} => ${safe(() => formatBlobIndex(decodeBlobIndex(e.value), { hex: asHex }), e.value, asHex)}${e.blob ? ` (blob not read: ${e.blob.error})` : ''}`
    case ValueType.WideColumnEntity:
      return `${head} => {${safe(() => formatWideColumns(decodeWideColumns(e.value), { hex: asHex }), e.value, asHex)}}`
    case ValueType.ValuePreferredSeqno:
      return `${head} => ${safe(
        () => {
          const v = splitValuePreferredSeqno(e.value)
          return `${keyText(v.value, asHex)} (preferred seqno ${v.preferredSeqno})`
        },
        e.value,
        asHex,
      )}`
    default:
      head += ` => ${keyText(e.value, asHex)}`
      return head
  }
}

/** Value types whose line `writeEntryLine` builds byte by byte; the rest go through entryLine. */
const FAST_TYPES = new Uint8Array(256)
for (const t of [ValueType.Value, ValueType.Merge, ValueType.Deletion, ValueType.SingleDeletion, ValueType.DeletionWithTimestamp]) FAST_TYPES[t] = 1
const IS_DELETION = new Uint8Array(256)
for (const t of [ValueType.Deletion, ValueType.SingleDeletion, ValueType.DeletionWithTimestamp]) IS_DELETION[t] = 1
/** ` kTypeValue`, ... as bytes, per type code. */
const TYPE_LABELS: Uint8Array[] = []
const ARROW = Uint8Array.from(Buffer.from(' => ', 'latin1'))

/**
 * Writes exactly `entryLine(...)` plus a newline, for a point entry given as
 * its internal key and the bytes `block[valueStart, valueEnd)`. The common
 * types are formatted straight into the writer's buffer (no strings): this is
 * the inner loop of `scan`.
 */
export function writeEntryLine(
  w: LineWriter,
  internalKey: Uint8Array,
  block: Uint8Array,
  valueStart: number,
  valueEnd: number,
  asHex: boolean,
  timestampSize: number,
): void {
  const n = internalKey.length - 8
  const lo = n >= 0 ? readFixed32(internalKey, n) : 0
  const hi = n >= 0 ? readFixed32(internalKey, n + 4) : 0
  const type = lo & 0xff
  // Others (and seqnos from 2^53, which need a bigint) go through entryLine.
  if (n < 0 || FAST_TYPES[type] === 0 || timestampSize !== 0 || hi >= 0x200000) {
    const p = parseInternalKey(internalKey)
    w.text(entryLine({ userKey: p.userKey, seq: p.seq, type: p.type, value: block.subarray(valueStart, valueEnd), timestampSize }, asHex))
    w.byte(0x0a)
    return
  }
  writeBytes(w, internalKey, 0, n, asHex)
  w.byte(0x20)
  w.byte(0x40) // @
  w.decimal(sequenceFrom(lo, hi) as number)
  w.bytes((TYPE_LABELS[type] ??= Uint8Array.from(Buffer.from(` ${valueTypeName(type)}`, 'latin1'))))
  if (IS_DELETION[type] === 0 || valueEnd > valueStart) {
    w.bytes(ARROW)
    writeBytes(w, block, valueStart, valueEnd, asHex)
  }
  w.byte(0x0a)
}

/** As keyText, into the writer. */
function writeBytes(w: LineWriter, src: Uint8Array, start: number, end: number, asHex: boolean): void {
  if (asHex) {
    w.byte(0x30)
    w.byte(0x78)
    w.hex(src, start, end)
  } else {
    w.byte(0x27)
    w.escaped(src, start, end)
    w.byte(0x27)
  }
}

/** Decoding a special value failed: show it raw and say so, rather than stop the scan. */
function safe(f: () => string, raw: Uint8Array, asHex: boolean): string {
  try {
    return f()
  } catch (err) {
    return `${keyText(raw, asHex)} (undecodable: ${(err as Error).message})`
  }
}

/**
 * The `--format jsonl` object. Every byte field (key, value, column names and
 * values, blob-index bytes) is lossless: with `--hex` it holds the bytes in
 * lowercase hex; otherwise it holds UTF-8 text when the bytes are valid UTF-8,
 * and when they are not the field is left out and `<field>Hex` (`keyHex`,
 * `valueHex`, `nameHex`, ...) holds them in hex instead. Exactly one of the
 * two is present; a text field is never a lossy decoding.
 */
export interface EntryJson {
  file?: string
  key?: string
  keyHex?: string
  timestamp?: string
  seq: number | string
  type: string
  typeCode: number
  value?: string
  valueHex?: string
  blobIndex?: Record<string, unknown>
  /** Why the blob index's value could not be read from its blob file (scan with blob files). */
  blobError?: string
  columns?: Record<string, string>[]
  preferredSeqno?: number | string
}

/** `{ [name]: text }` for valid UTF-8 (or any bytes under --hex, as hex), else `{ [name + 'Hex']: hex }`. */
function bytesField(name: string, b: Uint8Array, asHex: boolean): Record<string, string> {
  if (asHex) return { [name]: toHex(b) }
  return isUtf8(b) ? { [name]: TEXT_DECODER.decode(b) } : { [`${name}Hex`]: toHex(b) }
}

function jsonSafe(v: number | bigint): number | string {
  return typeof v === 'bigint' ? v.toString() : v
}

/** The `--format jsonl` object for one entry. */
export function entryJson(e: EntryView, asHex: boolean, file?: string): EntryJson {
  const { key, ts } = timestampOf(e)
  const out: EntryJson = {
    ...(file !== undefined ? { file } : {}),
    ...bytesField('key', key, asHex),
    ...(ts !== null ? { timestamp: ts } : {}),
    seq: jsonSafe(e.seq),
    type: valueTypeName(e.type),
    typeCode: e.type,
    ...bytesField('value', e.value, asHex),
  }
  try {
    if (e.type === ValueType.BlobIndex) {
      if (e.blob && 'value' in e.blob) {
        // The value read from the blob file takes the place of the index's bytes; the index stays in blobIndex.
        delete out.value
        delete out.valueHex
        Object.assign(out, bytesField('value', e.blob.value, asHex))
      } else if (e.blob) out.blobError = e.blob.error
      const b = decodeBlobIndex(e.value)
      out.blobIndex = Object.fromEntries(
        Object.entries(b).flatMap(([k, v]) =>
          v instanceof Uint8Array ? Object.entries(bytesField(k, v, asHex)) : [[k, typeof v === 'bigint' ? v.toString() : v]],
        ),
      )
    } else if (e.type === ValueType.WideColumnEntity) {
      out.columns = decodeWideColumns(e.value).map((c) => ({ ...bytesField('name', c.name, asHex), ...bytesField('value', c.value, asHex) }))
    } else if (e.type === ValueType.ValuePreferredSeqno) {
      const v = splitValuePreferredSeqno(e.value)
      delete out.value
      delete out.valueHex
      Object.assign(out, bytesField('value', v.value, asHex))
      out.preferredSeqno = jsonSafe(v.preferredSeqno)
    }
  } catch {
    // leave the raw value; the text form says why it did not decode
  }
  return out
}

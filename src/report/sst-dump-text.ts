/**
 * The text forms sst_dump gives format values: internal keys, values of the
 * special entry types (blob indexes, wide-column entities, values with a
 * preferred seqno), the seqno-to-time property and compression names, each
 * as a given RocksDB release prints it (several changed between releases).
 * The decoders they print live in src/format/.
 */
import { readFixed32, toHex, utf8 } from '../format/coding.js'
import { CompressionType, compressionTypeName, isCustomCompressionType, isKnownCompressionType } from '../format/compression-type.js'
import { CorruptionError } from '../format/errors.js'
import { SAME_FILE_BLOB_FILE_NUMBER, type BlobIndex } from '../format/blob-index.js'
import type { ParsedInternalKey } from '../format/internal-key.js'
import type { ValueWithPreferredSeqno } from '../format/preferred-seqno.js'
import { decodeSeqnoTimeMap, type DecodeSeqnoTimeMapOptions, type SeqnoTimePair } from '../format/seqno-time-map.js'
import type { WideColumn } from '../format/wide-columns.js'

/** `[major, minor]` of a RocksDB release. */
export type RocksDbVersion = readonly [major: number, minor: number]

/** The RocksDB source the formatters were checked against (11.9 in development). */
export const LATEST_ROCKSDB: RocksDbVersion = [11, 9]
/** Debian 12's `rocksdb-tools` (the `sst_dump` the project compares against). */
export const DEBIAN_ROCKSDB: RocksDbVersion = [7, 8]

export function rocksDbAtLeast(v: RocksDbVersion, major: number, minor: number): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor)
}

/** Options shared by the sst_dump-compatible formatters. */
export interface SstDumpFormatOptions {
  /** `--output_hex`: bytes as upper-case hex (no `0x` unless RocksDB adds one). */
  hex?: boolean
  /** Release whose output to mirror where it changed; default {@link LATEST_ROCKSDB}. */
  rocksdb?: RocksDbVersion
}

/**
 * `Slice::ToString(hex)`: upper-case hex without a prefix, or the raw bytes.
 * Raw bytes are decoded as UTF-8 here (invalid sequences become U+FFFD);
 * sst_dump writes them to stdout unchanged.
 */
export function sliceToString(bytes: Uint8Array, hex: boolean): string {
  return hex ? toHex(bytes).toUpperCase() : utf8(bytes)
}

export interface FormatInternalKeyOptions extends SstDumpFormatOptions {
  /**
   * Size of the user-defined timestamp suffix (8 for the built-in `.u64ts`
   * comparators). Since 9.3 sst_dump prints it separately as
   * `|timestamp:<decimal u64>`; older releases print the key with its suffix.
   */
  timestampSize?: number
}

/**
 * `ParsedInternalKey::DebugString(log_err_key=true, hex)`: what sst_dump
 * prints before ` => ` in scan lines and for `--parse_internal_key`:
 * `'<user key>' seq:<decimal>, type:<decimal type code>`. The type is always
 * numeric (e.g. `type:1`, `type:22`), in every release.
 */
export function formatParsedInternalKey(ikey: ParsedInternalKey, opts: FormatInternalKeyOptions = {}): string {
  const hex = opts.hex ?? false
  const version = opts.rocksdb ?? LATEST_ROCKSDB
  const ts = opts.timestampSize ?? 0
  let key: string
  if (ts > 0 && rocksDbAtLeast(version, 9, 3) && ikey.userKey.length >= ts) {
    const n = ikey.userKey.length - ts
    key = `${sliceToString(ikey.userKey.subarray(0, n), hex)}|timestamp:${u64TimestampToString(ikey.userKey.subarray(n))}`
  } else {
    key = sliceToString(ikey.userKey, hex)
  }
  return `'${key}' seq:${ikey.seq}, type:${formatScanType(ikey.type)}`
}

/** The `type:N` part of a scan line: the decimal type code. */
export function formatScanType(code: number): string {
  return String(code)
}

/** The built-in u64ts comparators' `TimestampToString`: fixed64 LE in decimal; other sizes print nothing. */
function u64TimestampToString(ts: Uint8Array): string {
  if (ts.length !== 8) return ''
  return (BigInt(readFixed32(ts, 0)) | (BigInt(readFixed32(ts, 4)) << 32n)).toString()
}

/**
 * RocksDB `CompressionTypeToString` as used by `BlobIndex::DebugString`.
 * Since 10.4 unknown codes print as `CustomXX` (0x80–0xFE) or `ReservedXX`;
 * earlier (release builds) they print as the empty string, and before 10.0
 * 0x40 printed as `ZSTDNotFinal`.
 */
export function compressionTypeToString(code: number, opts: Pick<SstDumpFormatOptions, 'rocksdb'> = {}): string {
  const version = opts.rocksdb ?? LATEST_ROCKSDB
  if (code === CompressionType.ZSTDNotFinal) {
    if (!rocksDbAtLeast(version, 10, 0)) return compressionTypeName(code)
  } else if (isKnownCompressionType(code)) return compressionTypeName(code)
  if (!rocksDbAtLeast(version, 10, 4)) return ''
  const hex = (code & 0xff).toString(16).toUpperCase().padStart(2, '0')
  return (isCustomCompressionType(code) ? 'Custom' : 'Reserved') + hex
}

/**
 * `BlobIndex::DebugString(output_hex)`, what `sst_dump --decode_blob_index`
 * prints after ` => `:
 *
 *   `[inlined blob] value:<value> exp:<expiration>`
 *   `[blob ref] file:<n> offset:<o> size:<s> compression: <name>`   (note the space after `compression:`)
 *   `[blob ref] file:<n> offset:<o> size:<s> compression: <name> exp:<expiration>`
 *
 * Since 11.8 a file number of 0 prints as `file:same`.
 */
export function formatBlobIndex(idx: BlobIndex, opts: SstDumpFormatOptions = {}): string {
  const version = opts.rocksdb ?? LATEST_ROCKSDB
  let out: string
  if (idx.kind === 'inlinedTtl') {
    out = `[inlined blob] value:${sliceToString(idx.value, opts.hex ?? false)}`
  } else {
    const sameFile = rocksDbAtLeast(version, 11, 8) && Number(idx.fileNumber) === SAME_FILE_BLOB_FILE_NUMBER
    out =
      `[blob ref] file:${sameFile ? 'same' : String(idx.fileNumber)} offset:${idx.offset} size:${idx.size}` +
      ` compression: ${compressionTypeToString(idx.compression, { rocksdb: version })}`
  }
  if (idx.kind !== 'blob') out += ` exp:${idx.expiration}`
  return out
}

/**
 * What sst_dump (9.1+) prints after ` => ` for such an entry:
 * `<value.ToString(hex)>, <preferred seqno in decimal>`. Older sst_dump
 * releases do not know the type and print the packed value as is
 * (`sliceToString(packed, hex)`). Only `opts.hex` matters here.
 */
export function formatValuePreferredSeqno(v: ValueWithPreferredSeqno, opts: SstDumpFormatOptions = {}): string {
  return `${sliceToString(v.value, opts.hex ?? false)}, ${v.preferredSeqno}`
}

/**
 * `WideColumnsHelper::DumpWideColumns`, what sst_dump (8.7+) prints after
 * ` => ` for a kTypeWideColumnEntity entry: columns separated by one space,
 * each `name:value`; with `--output_hex` each non-empty name and value is
 * `0x` + upper-case hex (an empty name or value prints nothing, so the
 * default column is `:value`). No columns print as the empty string.
 *
 * sst_dump cannot print entities with blob columns (it reports
 * `error deserializing wide columns` on stderr and skips the entry); here such
 * a column's value prints as `{<BlobIndex::DebugString>}` instead, so the
 * output never passes a blob reference off as a value. Before 8.7 sst_dump printed
 * the serialized value as is (`sliceToString(value, hex)`).
 */
export function formatWideColumns(columns: readonly WideColumn[], opts: SstDumpFormatOptions = {}): string {
  const hex = opts.hex ?? false
  const part = (b: Uint8Array) => (b.length === 0 ? '' : hex ? `0x${sliceToString(b, true)}` : sliceToString(b, false))
  return columns.map((col) => `${part(col.name)}:${col.blobIndex ? `{${formatBlobIndex(col.blobIndex, opts)}}` : part(col.value)}`).join(' ')
}

/**
 * `SeqnoToTimeMapping::ToHumanString`: `seqno->time,` per pair, each
 * followed by a comma (so a non-empty mapping ends in `,`; an empty one is
 * the empty string).
 */
export function formatSeqnoTimeMap(pairs: readonly SeqnoTimePair[]): string {
  return pairs.map((p) => `${p.seqno}->${p.time},`).join('')
}

/**
 * The value `TableProperties::ToString` prints for
 * `Sequence number to time mapping`: the human string, or `N/A` when the
 * property does not decode. Set `allowTrailingBytes` to mirror RocksDB < 8.11.
 */
export function formatSeqnoTimeMapProperty(bytes: Uint8Array, opts: DecodeSeqnoTimeMapOptions = {}): string {
  try {
    return formatSeqnoTimeMap(decodeSeqnoTimeMap(bytes, 0, opts))
  } catch (e) {
    if (e instanceof CorruptionError) return 'N/A'
    throw e
  }
}

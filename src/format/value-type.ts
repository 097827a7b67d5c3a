/**
 * Internal-key value types (RocksDB `db/dbformat.h`, `enum ValueType`) and the
 * way `sst_dump` prints a parsed internal key (`ParsedInternalKey::DebugString`
 * in `db/dbformat.cc`).
 *
 * Also home of the small "which RocksDB release do we mirror" helper used by
 * the sst_dump-compatible formatters in this directory, because several of
 * their outputs changed between releases.
 */
import { readFixed32, toHex, utf8 } from './coding.js'
import type { ParsedInternalKey } from './internal-key.js'

/** Every code of `enum ValueType`, keyed by the RocksDB name without `kType`. */
export const ValueType = {
  Deletion: 0x00,
  Value: 0x01,
  Merge: 0x02,
  LogData: 0x03, // WAL only
  ColumnFamilyDeletion: 0x04, // WAL only
  ColumnFamilyValue: 0x05, // WAL only
  ColumnFamilyMerge: 0x06, // WAL only
  SingleDeletion: 0x07,
  ColumnFamilySingleDeletion: 0x08, // WAL only
  BeginPrepareXID: 0x09, // WAL only
  EndPrepareXID: 0x0a, // WAL only
  CommitXID: 0x0b, // WAL only
  RollbackXID: 0x0c, // WAL only
  Noop: 0x0d, // WAL only
  ColumnFamilyRangeDeletion: 0x0e, // WAL only
  RangeDeletion: 0x0f, // range-deletion meta block only
  ColumnFamilyBlobIndex: 0x10, // WAL only
  BlobIndex: 0x11, // BlobDB
  BeginPersistedPrepareXID: 0x12, // WAL only
  BeginUnprepareXID: 0x13, // WAL only
  DeletionWithTimestamp: 0x14,
  CommitXIDAndTimestamp: 0x15, // WAL only
  WideColumnEntity: 0x16, // 7.5+
  ColumnFamilyWideColumnEntity: 0x17, // WAL only
  ValuePreferredSeqno: 0x18, // 9.1+ (TimedPut)
  ColumnFamilyValuePreferredSeqno: 0x19, // WAL only
} as const

export type ValueTypeKey = keyof typeof ValueType
export type ValueTypeCode = (typeof ValueType)[ValueTypeKey]

/**
 * `kTypeMaxValid`: one past the last real type. It is 0x1A since 9.1; in
 * 7.5–9.0 it was 0x18 (so those releases' `ParseInternalKey` accepts 0x18 as
 * the sentinel, not as kTypeValuePreferredSeqno).
 */
export const MAX_VALID_VALUE_TYPE = 0x1a

const NAMES: string[] = []
for (const [key, code] of Object.entries(ValueType)) NAMES[code] = `kType${key}`

/** RocksDB's enum name, e.g. `kTypeValue`; unknown codes give `kTypeUnknown(0xNN)`. */
export function valueTypeName(code: number): string {
  const name = Number.isInteger(code) && code >= 0 ? NAMES[code] : undefined
  if (name !== undefined) return name
  if (code === MAX_VALID_VALUE_TYPE) return 'kTypeMaxValid'
  if (!Number.isInteger(code) || code < 0) return `kTypeUnknown(${code})`
  return `kTypeUnknown(0x${code.toString(16).toUpperCase().padStart(2, '0')})`
}

/**
 * Types that may be the type of a point entry in an SST data block
 * (RocksDB `IsValueType`): Deletion, Value, Merge, SingleDeletion, BlobIndex,
 * DeletionWithTimestamp, WideColumnEntity, ValuePreferredSeqno.
 */
export function isValidSstValueType(code: number): boolean {
  return (
    code === ValueType.Deletion ||
    code === ValueType.Value ||
    code === ValueType.Merge ||
    code === ValueType.SingleDeletion ||
    code === ValueType.BlobIndex ||
    code === ValueType.DeletionWithTimestamp ||
    code === ValueType.WideColumnEntity ||
    code === ValueType.ValuePreferredSeqno
  )
}

/**
 * Types RocksDB's `ParseInternalKey` accepts without reporting "Corrupted Key"
 * (`IsExtendedValueType`): the data-block types, kTypeRangeDeletion and the
 * kTypeMaxValid sentinel (0x1A today).
 */
export function isExtendedValueType(code: number): boolean {
  return isValidSstValueType(code) || code === ValueType.RangeDeletion || code === MAX_VALID_VALUE_TYPE
}

// ---------------------------------------------------------------------------
// Which RocksDB release an sst_dump-compatible formatter mirrors.

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

/**
 * Internal-key value types (RocksDB `db/dbformat.h`, `enum ValueType`). How
 * sst_dump prints them is src/report/sst-dump-text.ts's business.
 */

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

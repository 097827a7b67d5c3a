/**
 * Wide-column entities: the values of kTypeWideColumnEntity entries
 * (RocksDB `db/wide/wide_column_serialization.{h,cc}`).
 *
 * Version 1 (7.5+):
 *   varint32 version | varint32 N |
 *   N × (varint32 name_len, name, varint32 value_len) | values concatenated
 *
 * Version 2 (adds per-column blob references):
 *   varint32 version | varint32 N |
 *   varint32 name_sizes_bytes | varint32 value_sizes_bytes | varint32 names_bytes |
 *   N type bytes (0x01 kTypeValue = inline, 0x11 kTypeBlobIndex = the value is a BlobIndex) |
 *   N varint32 name sizes (exactly name_sizes_bytes) | N varint32 value sizes (exactly value_sizes_bytes) |
 *   names concatenated (exactly names_bytes) | values concatenated (to the end)
 *
 * Column names are strictly increasing (bytewise). The entity is the whole
 * value: trailing bytes are corruption. Version 0 decodes like version 1
 * (RocksDB dispatches on `version < 2`); versions above 2 are unknown.
 */
import { compareBytes, Cursor } from './coding.js'
import { CorruptionError, NotSupportedError } from './errors.js'
import { decodeBlobIndex, type BlobIndex } from './blob-index.js'
import { ValueType } from './value-type.js'

export interface WideColumn {
  name: Uint8Array
  /** The inline value, or for a blob column the serialized BlobIndex bytes. */
  value: Uint8Array
  /** Version 2 only: the column's value is a reference into a blob file. */
  blobIndex?: BlobIndex
}

export const WIDE_COLUMN_VERSION_1 = 1
export const WIDE_COLUMN_VERSION_2 = 2

const WHAT = 'wide-column entity'

/** The serialization version (the leading varint32). */
export function wideColumnsVersion(bytes: Uint8Array, base = 0): number {
  return new Cursor(bytes, 0, bytes.length, base, WHAT).varint32()
}

/**
 * Decode a kTypeWideColumnEntity value into its columns (views into `bytes`).
 * `base` is the file offset of `bytes[0]`, used in error messages.
 * Version 2 blob columns come back with `blobIndex` set.
 */
export function decodeWideColumns(bytes: Uint8Array, base = 0): WideColumn[] {
  const c = new Cursor(bytes, 0, bytes.length, base, WHAT)
  const version = c.varint32()
  if (version > WIDE_COLUMN_VERSION_2) {
    throw new NotSupportedError(`${WHAT}: unknown serialization version ${version} (known: 1, 2)`, base)
  }
  const numColumnsAt = c.fileOffset
  const numColumns = c.varint32()
  return version < WIDE_COLUMN_VERSION_2 ? decodeV1(c, numColumns, numColumnsAt) : decodeV2(c, numColumns, numColumnsAt)
}

function decodeV1(c: Cursor, numColumns: number, numColumnsAt: number): WideColumn[] {
  // Each column needs at least two bytes of index (two varints), so a count
  // larger than that is corrupt; this also bounds the allocations below.
  if (numColumns > c.remaining / 2) {
    throw new CorruptionError(`${WHAT}: ${numColumns} columns need at least ${numColumns * 2} index bytes but only ${c.remaining} remain`, numColumnsAt)
  }
  const columns: WideColumn[] = []
  const sizes: number[] = []
  for (let i = 0; i < numColumns; i++) {
    const nameAt = c.fileOffset
    const name = c.lengthPrefixed()
    checkOrder(columns, name, i, nameAt)
    sizes.push(c.varint32())
    columns.push({ name, value: name.subarray(0, 0) })
  }
  for (let i = 0; i < numColumns; i++) {
    if (sizes[i] > c.remaining) {
      throw new CorruptionError(`${WHAT}: value of column ${i} is ${sizes[i]} bytes but only ${c.remaining} remain`, c.fileOffset)
    }
    columns[i].value = c.bytesOf(sizes[i])
  }
  if (c.remaining !== 0) {
    throw new CorruptionError(`${WHAT}: ${c.remaining} unexpected trailing byte(s) after the last column value`, c.fileOffset)
  }
  return columns
}

function decodeV2(c: Cursor, numColumns: number, numColumnsAt: number): WideColumn[] {
  const nameSizesBytes = c.varint32()
  const valueSizesBytes = c.varint32()
  const namesBytes = c.varint32()
  if (numColumns > c.remaining) {
    throw new CorruptionError(`${WHAT}: ${numColumns} column type bytes expected but only ${c.remaining} bytes remain`, numColumnsAt)
  }
  const typesAt = c.pos
  const types = c.bytesOf(numColumns)
  for (let i = 0; i < numColumns; i++) {
    if (types[i] !== ValueType.Value && types[i] !== ValueType.BlobIndex) {
      throw new CorruptionError(
        `${WHAT}: column ${i} has type 0x${types[i].toString(16).padStart(2, '0')} (only 0x01 inline and 0x11 blob index are valid)`,
        c.base + typesAt + i,
      )
    }
  }
  const sectionsAt = c.fileOffset
  const metadata = nameSizesBytes + valueSizesBytes + namesBytes
  if (metadata > c.remaining) {
    throw new CorruptionError(`${WHAT}: name-size, value-size and name sections declare ${metadata} bytes but only ${c.remaining} remain`, sectionsAt)
  }
  const s4 = c.pos
  const s5 = s4 + nameSizesBytes
  const s6 = s5 + valueSizesBytes
  const s7 = s6 + namesBytes
  const nameSizes = new Cursor(c.bytes, s4, s5, c.base, `${WHAT} name-size section`)
  const valueSizes = new Cursor(c.bytes, s5, s6, c.base, `${WHAT} value-size section`)
  const end = c.end
  const columns: WideColumn[] = []
  let namePos = s6
  let valuePos = s7
  for (let i = 0; i < numColumns; i++) {
    const ns = nameSizes.varint32()
    const vs = valueSizes.varint32()
    if (ns > s7 - namePos) {
      throw new CorruptionError(
        `${WHAT}: name of column ${i} is ${ns} bytes but only ${s7 - namePos} remain in the ${namesBytes}-byte name section`,
        c.base + namePos,
      )
    }
    const name = c.bytes.subarray(namePos, namePos + ns)
    checkOrder(columns, name, i, c.base + namePos)
    if (vs > end - valuePos) {
      throw new CorruptionError(`${WHAT}: value of column ${i} is ${vs} bytes but only ${end - valuePos} remain`, c.base + valuePos)
    }
    columns.push({ name, value: c.bytes.subarray(valuePos, valuePos + vs) })
    namePos += ns
    valuePos += vs
  }
  if (nameSizes.remaining !== 0) {
    throw new CorruptionError(`${WHAT}: ${nameSizes.remaining} unused byte(s) in the name-size section`, nameSizes.fileOffset)
  }
  if (valueSizes.remaining !== 0) {
    throw new CorruptionError(`${WHAT}: ${valueSizes.remaining} unused byte(s) in the value-size section`, valueSizes.fileOffset)
  }
  if (namePos !== s7) {
    throw new CorruptionError(`${WHAT}: ${s7 - namePos} unused byte(s) in the name section`, c.base + namePos)
  }
  if (valuePos !== end) {
    throw new CorruptionError(`${WHAT}: ${end - valuePos} unexpected trailing byte(s) after the last column value`, c.base + valuePos)
  }
  for (let i = 0; i < numColumns; i++) {
    if (types[i] !== ValueType.BlobIndex) continue
    const col = columns[i]
    const at = c.base + (col.value.byteOffset - c.bytes.byteOffset)
    if (col.value.length === 0) throw new CorruptionError(`${WHAT}: column ${i} has an empty blob index`, at)
    col.blobIndex = decodeBlobIndex(col.value, at)
  }
  return columns
}

function checkOrder(columns: WideColumn[], name: Uint8Array, i: number, at: number): void {
  if (columns.length > 0 && compareBytes(columns[columns.length - 1].name, name) >= 0) {
    throw new CorruptionError(`${WHAT}: column ${i} name is not greater than column ${i - 1} name (columns out of order)`, at)
  }
}

/** True if any column is a version 2 blob reference. */
export function hasBlobColumns(columns: readonly WideColumn[]): boolean {
  return columns.some((col) => col.blobIndex !== undefined)
}

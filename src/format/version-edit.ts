/**
 * VersionEdit, the record of a MANIFEST (RocksDB `db/version_edit.h`, `db/version_edit.cc`,
 * `db/blob/blob_file_addition.cc`, `db/blob/blob_file_garbage.cc`, `db/wal_edit.cc`).
 *
 * A VersionEdit is a sequence of (varint32 tag, value) fields. Tags at or above
 * kTagSafeIgnoreMask (1 << 13) that this reader does not know are followed by a varint32 length
 * and skipped, as RocksDB does; an unknown tag below it is an error. kNewFile4 carries its own
 * list of (tag, length-prefixed value) custom fields ended by kTerminate: unknown custom tags
 * without kCustomTagNonSafeIgnoreMask (1 << 6) are skipped, unknown ones with it mean "do not
 * open this DB if you do not understand me": NotSupportedError.
 *
 * Numbers: sequence numbers are bigints (the full 56-bit range); file numbers, sizes, log
 * numbers, times and counts are JS numbers (a varint64 beyond 2^53 is a CorruptionError, from
 * `Cursor.varint64`). Keys are internal keys (user key + 8-byte trailer), as stored.
 *
 * The encoder writes fields in the order current RocksDB's `VersionEdit::EncodeTo` does, so a
 * record RocksDB wrote decodes and re-encodes to the same bytes (tested on real MANIFESTs).
 */
import { Cursor, encodeVarint } from './coding.js'
import { exactText, exactTextBytes } from './exact-text.js'
import { CorruptionError, NotSupportedError } from './errors.js'
import { INTERNAL_KEY_TRAILER_BYTES, MAX_SEQUENCE_NUMBER } from './internal-key.js'

export const VersionEditTag = {
  Comparator: 1,
  LogNumber: 2,
  NextFileNumber: 3,
  LastSequence: 4,
  CompactCursor: 5,
  DeletedFile: 6,
  NewFile: 7,
  PrevLogNumber: 9,
  MinLogNumberToKeep: 10,
  NewFile2: 100,
  NewFile3: 102,
  NewFile4: 103,
  ColumnFamily: 200,
  ColumnFamilyAdd: 201,
  ColumnFamilyDrop: 202,
  MaxColumnFamily: 203,
  InAtomicGroup: 300,
  BlobFileAddition: 400,
  BlobFileGarbage: 401,
  // Forward compatible (ignorable by older readers): kTagSafeIgnoreMask + 1, + 2, ...
  DbId: 8193,
  BlobFileAdditionDeprecated: 8194,
  BlobFileGarbageDeprecated: 8195,
  WalAddition: 8196,
  WalDeletion: 8197,
  FullHistoryTsLow: 8198,
  WalAddition2: 8199,
  WalDeletion2: 8200,
  PersistUserDefinedTimestamps: 8201,
  SubcompactionProgress: 8202,
  LastCompactedManifestFileSize: 8203,
} as const

/** Unknown tags with this bit are length-prefixed and may be skipped. */
export const TAG_SAFE_IGNORE_MASK = 1 << 13

export const NewFileCustomTag = {
  Terminate: 1,
  NeedCompaction: 2,
  MinLogNumberToKeepHack: 3,
  OldestBlobFileNumber: 4,
  OldestAncesterTime: 5,
  FileCreationTime: 6,
  FileChecksum: 7,
  FileChecksumFuncName: 8,
  Temperature: 9,
  MinTimestamp: 10,
  MaxTimestamp: 11,
  UniqueId: 12,
  EpochNumber: 13,
  CompensatedRangeDeletionSize: 14,
  TailSize: 15,
  UserDefinedTimestampsPersisted: 16,
  FileOpenMetadata: 17,
  PathId: 65,
} as const

/** NewFile4 custom tags with this bit must be understood (`kCustomTagNonSafeIgnoreMask`). */
export const CUSTOM_TAG_NON_SAFE_IGNORE_MASK = 1 << 6

/** Blob file addition/garbage custom fields with this bit must be understood. */
const BLOB_FORWARD_INCOMPATIBLE_MASK = 1 << 6

/** RocksDB's `kUnknownFileChecksumFuncName`: no checksum fields are written for it. */
export const UNKNOWN_FILE_CHECKSUM_FUNC_NAME = 'Unknown'

/** `Temperature` enum names (`include/rocksdb/advanced_options.h`, where they are written in hex: kHot = 0x04, ...). */
export const TEMPERATURE_NAMES: Record<number, string> = {
  0: 'kUnknown',
  4: 'kHot',
  8: 'kWarm',
  12: 'kCool',
  16: 'kCold',
  20: 'kIce',
}

export type NewFileTag = 7 | 100 | 102 | 103

/** A table file added to a level (`FileMetaData` as the MANIFEST stores it). */
export interface NewFileEntry {
  level: number
  fileNumber: number
  pathId: number
  fileSize: number
  smallestKey: Uint8Array
  largestKey: Uint8Array
  smallestSeqno: bigint
  largestSeqno: bigint
  /** Which record kind carried it (kNewFile4 = 103 for everything RocksDB writes today). */
  encoding: NewFileTag
  // kNewFile4 custom fields; absent = not written.
  markedForCompaction?: boolean
  /** The MinLogNumberToKeep that RocksDB duplicates into the first new file, when it did. */
  minLogNumberToKeepHack?: bigint
  oldestBlobFileNumber?: number
  oldestAncesterTime?: number
  fileCreationTime?: number
  fileChecksum?: Uint8Array
  fileChecksumFuncName?: string
  temperature?: number
  minTimestamp?: Uint8Array
  maxTimestamp?: Uint8Array
  /** The 16-byte internal unique id (two fixed64). */
  uniqueId?: Uint8Array
  epochNumber?: number
  compensatedRangeDeletionSize?: number
  tailSize?: number
  /** Written only when false. */
  userDefinedTimestampsPersisted?: boolean
  fileOpenMetadata?: Uint8Array
  /** Unknown safe-to-ignore custom fields, kept in order (not re-encoded). */
  ignoredCustomTags?: number[]
}

export interface BlobFileAddition {
  blobFileNumber: number
  totalBlobCount: number
  totalBlobBytes: number
  checksumMethod: string
  checksumValue: Uint8Array
}

export interface BlobFileGarbage {
  blobFileNumber: number
  garbageBlobCount: number
  garbageBlobBytes: number
}

export interface WalAddition {
  logNumber: number
  syncedSize?: number
}

export interface VersionEdit {
  dbId?: string
  comparator?: string
  logNumber?: number
  prevLogNumber?: number
  nextFileNumber?: number
  maxColumnFamily?: number
  minLogNumberToKeep?: number
  lastSequence?: bigint
  compactCursors: { level: number; key: Uint8Array }[]
  deletedFiles: { level: number; fileNumber: number }[]
  newFiles: NewFileEntry[]
  blobFileAdditions: BlobFileAddition[]
  blobFileGarbages: BlobFileGarbage[]
  walAdditions: WalAddition[]
  /** WALs below this number are gone. */
  walDeletion?: number
  /** Column family the edit applies to (0 = default when absent). */
  columnFamily: number
  /** Set: this edit creates the column family with that name. */
  columnFamilyAdd?: string
  columnFamilyDrop: boolean
  /** Set: the edit is part of an atomic group with this many edits still to follow. */
  atomicGroupRemaining?: number
  fullHistoryTsLow?: Uint8Array
  persistUserDefinedTimestamps?: boolean
  /** Resumable-compaction state (kSubcompactionProgress), kept as its raw bytes. */
  subcompactionProgress?: Uint8Array
  lastCompactedManifestFileSize?: number
  /** Unknown forward-compatible tags that were skipped, in order. */
  ignoredTags: number[]
}

export function emptyVersionEdit(): VersionEdit {
  return {
    compactCursors: [],
    deletedFiles: [],
    newFiles: [],
    blobFileAdditions: [],
    blobFileGarbages: [],
    walAdditions: [],
    columnFamily: 0,
    columnFamilyDrop: false,
    ignoredTags: [],
  }
}

const TEXT = new TextDecoder('utf-8', { fatal: false })

/**
 * Decode one VersionEdit. `base` is the file offset of `bytes[0]` (for messages), `what` names
 * the structure in messages.
 */
export function decodeVersionEdit(bytes: Uint8Array, base = 0, what = 'VersionEdit'): VersionEdit {
  const c = new Cursor(bytes, 0, bytes.length, base, what)
  const edit = emptyVersionEdit()
  while (c.remaining > 0) {
    const tagAt = c.fileOffset
    const tag = c.varint32()
    switch (tag) {
      case VersionEditTag.DbId:
        edit.dbId = TEXT.decode(c.lengthPrefixed())
        break
      case VersionEditTag.Comparator:
        edit.comparator = TEXT.decode(c.lengthPrefixed())
        break
      case VersionEditTag.LogNumber:
        edit.logNumber = c.varint64()
        break
      case VersionEditTag.PrevLogNumber:
        edit.prevLogNumber = c.varint64()
        break
      case VersionEditTag.NextFileNumber:
        edit.nextFileNumber = c.varint64()
        break
      case VersionEditTag.MaxColumnFamily:
        edit.maxColumnFamily = c.varint32()
        break
      case VersionEditTag.MinLogNumberToKeep:
        edit.minLogNumberToKeep = c.varint64()
        break
      case VersionEditTag.LastSequence:
        edit.lastSequence = c.varint64Big()
        break
      case VersionEditTag.CompactCursor:
        edit.compactCursors.push({ level: c.varint32(), key: internalKey(c, 'compact cursor') })
        break
      case VersionEditTag.DeletedFile:
        edit.deletedFiles.push({ level: c.varint32(), fileNumber: c.varint64() })
        break
      case VersionEditTag.NewFile:
      case VersionEditTag.NewFile2:
      case VersionEditTag.NewFile3:
      case VersionEditTag.NewFile4: {
        const f = decodeNewFile(c, tag)
        if (f.minLogNumberToKeepHack !== undefined && edit.minLogNumberToKeep === undefined) {
          edit.minLogNumberToKeep = Number(f.minLogNumberToKeepHack)
        }
        edit.newFiles.push(f)
        break
      }
      case VersionEditTag.BlobFileAddition:
      case VersionEditTag.BlobFileAdditionDeprecated:
        edit.blobFileAdditions.push(decodeBlobFileAddition(c))
        break
      case VersionEditTag.BlobFileGarbage:
      case VersionEditTag.BlobFileGarbageDeprecated:
        edit.blobFileGarbages.push(decodeBlobFileGarbage(c))
        break
      case VersionEditTag.WalAddition:
        edit.walAdditions.push(decodeWalAddition(c))
        break
      case VersionEditTag.WalAddition2:
        edit.walAdditions.push(decodeWalAddition(subCursor(c, 'WAL addition')))
        break
      case VersionEditTag.WalDeletion:
        edit.walDeletion = c.varint64()
        break
      case VersionEditTag.WalDeletion2:
        edit.walDeletion = subCursor(c, 'WAL deletion').varint64()
        break
      case VersionEditTag.ColumnFamily:
        edit.columnFamily = c.varint32()
        break
      case VersionEditTag.ColumnFamilyAdd:
        edit.columnFamilyAdd = exactText(c.lengthPrefixed())
        break
      case VersionEditTag.ColumnFamilyDrop:
        edit.columnFamilyDrop = true
        break
      case VersionEditTag.InAtomicGroup:
        edit.atomicGroupRemaining = c.varint32()
        break
      case VersionEditTag.FullHistoryTsLow: {
        const ts = c.lengthPrefixed()
        if (ts.length === 0) c.fail('empty full_history_ts_low')
        edit.fullHistoryTsLow = ts.slice()
        break
      }
      case VersionEditTag.PersistUserDefinedTimestamps: {
        const v = c.lengthPrefixed()
        if (v.length !== 1) c.fail(`persist_user_defined_timestamps field of ${v.length} bytes, not 1`)
        edit.persistUserDefinedTimestamps = v[0] === 1
        break
      }
      case VersionEditTag.SubcompactionProgress:
        edit.subcompactionProgress = c.lengthPrefixed().slice()
        break
      case VersionEditTag.LastCompactedManifestFileSize:
        edit.lastCompactedManifestFileSize = subCursor(c, 'last compacted manifest file size').varint64()
        break
      default:
        if ((tag & TAG_SAFE_IGNORE_MASK) === 0) {
          throw new CorruptionError(`${what}: unknown tag ${tag}`, tagAt)
        }
        c.lengthPrefixed() // a forward-compatible field from a newer RocksDB: skip it
        edit.ignoredTags.push(tag)
    }
  }
  return edit
}

function subCursor(c: Cursor, what: string): Cursor {
  const start = c.fileOffset
  const bytes = c.lengthPrefixed()
  return new Cursor(bytes, 0, bytes.length, start + (c.fileOffset - start - bytes.length), `${c.what}: ${what}`)
}

function internalKey(c: Cursor, what: string): Uint8Array {
  const at = c.fileOffset
  const key = c.lengthPrefixed()
  if (key.length < INTERNAL_KEY_TRAILER_BYTES) {
    throw new CorruptionError(`${c.what}: ${what} of ${key.length} bytes is not an internal key (shorter than its 8-byte trailer)`, at)
  }
  return key.slice()
}

function decodeNewFile(c: Cursor, tag: NewFileTag): NewFileEntry {
  const level = c.varint32()
  const fileNumber = c.varint64()
  const pathId = tag === VersionEditTag.NewFile3 ? c.varint32() : 0
  const fileSize = c.varint64()
  const smallestKey = internalKey(c, 'smallest key')
  const largestKey = internalKey(c, 'largest key')
  // kNewFile has no sequence numbers: RocksDB's FileDescriptor defaults (smallest = max, largest = 0).
  const hasSeqnos = tag !== VersionEditTag.NewFile
  const smallestSeqno = hasSeqnos ? c.varint64Big() : MAX_SEQUENCE_NUMBER
  const largestSeqno = hasSeqnos ? c.varint64Big() : 0n
  const f: NewFileEntry = { level, fileNumber, pathId, fileSize, smallestKey, largestKey, smallestSeqno, largestSeqno, encoding: tag }
  if (tag === VersionEditTag.NewFile4) decodeCustomFields(c, f)
  return f
}

function decodeCustomFields(c: Cursor, f: NewFileEntry): void {
  for (;;) {
    const tagAt = c.fileOffset
    const tag = c.varint32()
    if (tag === NewFileCustomTag.Terminate) return
    const fieldAt = c.fileOffset
    const v = c.lengthPrefixed()
    const field = new Cursor(v, 0, v.length, c.fileOffset - v.length, `${c.what}: new-file custom field ${tag}`)
    const oneByte = (name: string): number => {
      if (v.length !== 1) throw new CorruptionError(`${c.what}: ${name} field of ${v.length} bytes, not 1`, fieldAt)
      return v[0]
    }
    switch (tag) {
      case NewFileCustomTag.PathId:
        f.pathId = oneByte('path id')
        if (f.pathId > 3) throw new CorruptionError(`${c.what}: path id ${f.pathId} is out of range`, fieldAt)
        break
      case NewFileCustomTag.OldestAncesterTime:
        f.oldestAncesterTime = field.varint64()
        break
      case NewFileCustomTag.FileCreationTime:
        f.fileCreationTime = field.varint64()
        break
      case NewFileCustomTag.EpochNumber:
        f.epochNumber = field.varint64()
        break
      case NewFileCustomTag.FileChecksum:
        f.fileChecksum = v.slice()
        break
      case NewFileCustomTag.FileChecksumFuncName:
        f.fileChecksumFuncName = TEXT.decode(v)
        break
      case NewFileCustomTag.NeedCompaction:
        f.markedForCompaction = oneByte('need compaction') === 1
        break
      case NewFileCustomTag.MinLogNumberToKeepHack:
        f.minLogNumberToKeepHack = field.fixed64()
        break
      case NewFileCustomTag.OldestBlobFileNumber:
        f.oldestBlobFileNumber = field.varint64()
        break
      case NewFileCustomTag.Temperature:
        f.temperature = oneByte('temperature')
        break
      case NewFileCustomTag.UniqueId:
        if (v.length !== 16) throw new CorruptionError(`${c.what}: unique id of ${v.length} bytes, not 16`, fieldAt)
        f.uniqueId = v.slice()
        break
      case NewFileCustomTag.CompensatedRangeDeletionSize:
        f.compensatedRangeDeletionSize = field.varint64()
        break
      case NewFileCustomTag.TailSize:
        f.tailSize = field.varint64()
        break
      case NewFileCustomTag.UserDefinedTimestampsPersisted:
        f.userDefinedTimestampsPersisted = oneByte('user-defined timestamps persisted') === 1
        break
      case NewFileCustomTag.MinTimestamp:
        f.minTimestamp = v.slice()
        break
      case NewFileCustomTag.MaxTimestamp:
        f.maxTimestamp = v.slice()
        break
      case NewFileCustomTag.FileOpenMetadata:
        f.fileOpenMetadata = v.slice()
        break
      default:
        if ((tag & CUSTOM_TAG_NON_SAFE_IGNORE_MASK) !== 0) {
          throw new NotSupportedError(
            `${c.what}: new-file custom field ${tag} of file #${f.fileNumber} is not supported (a newer RocksDB feature that must be understood to open the DB)`,
            tagAt,
          )
        }
        ;(f.ignoredCustomTags ??= []).push(tag)
    }
  }
}

function blobCustomFields(c: Cursor, what: string): void {
  for (;;) {
    const at = c.fileOffset
    const tag = c.varint32()
    if (tag === 0) return
    if ((tag & BLOB_FORWARD_INCOMPATIBLE_MASK) !== 0) {
      throw new NotSupportedError(`${c.what}: ${what} custom field ${tag} is not supported (forward incompatible)`, at)
    }
    c.lengthPrefixed()
  }
}

function decodeBlobFileAddition(c: Cursor): BlobFileAddition {
  const a: BlobFileAddition = {
    blobFileNumber: c.varint64(),
    totalBlobCount: c.varint64(),
    totalBlobBytes: c.varint64(),
    checksumMethod: TEXT.decode(c.lengthPrefixed()),
    checksumValue: c.lengthPrefixed().slice(),
  }
  blobCustomFields(c, 'blob file addition')
  return a
}

function decodeBlobFileGarbage(c: Cursor): BlobFileGarbage {
  const g: BlobFileGarbage = { blobFileNumber: c.varint64(), garbageBlobCount: c.varint64(), garbageBlobBytes: c.varint64() }
  blobCustomFields(c, 'blob file garbage')
  return g
}

function decodeWalAddition(c: Cursor): WalAddition {
  const w: WalAddition = { logNumber: c.varint64() }
  for (;;) {
    const at = c.fileOffset
    const tag = c.varint32()
    if (tag === 1) return w // kTerminate
    if (tag === 2) w.syncedSize = c.varint64()
    else throw new CorruptionError(`${c.what}: unknown WAL addition tag ${tag}`, at)
  }
}

// ---------------------------------------------------------------------------------- encoder

class Out {
  private parts: Uint8Array[] = []
  private n = 0
  bytes(b: Uint8Array): this {
    this.parts.push(b)
    this.n += b.length
    return this
  }
  varint(v: number | bigint): this {
    return this.bytes(encodeVarint(v))
  }
  prefixed(b: Uint8Array | string): this {
    const bytes = typeof b === 'string' ? exactTextBytes(b) : b
    return this.varint(bytes.length).bytes(bytes)
  }
  fixed64(v: bigint): this {
    const b = new Uint8Array(8)
    new DataView(b.buffer).setBigUint64(0, v, true)
    return this.bytes(b)
  }
  finish(): Uint8Array {
    const out = new Uint8Array(this.n)
    let at = 0
    for (const p of this.parts) {
      out.set(p, at)
      at += p.length
    }
    return out
  }
}

/** Encode a VersionEdit (field order of RocksDB's `VersionEdit::EncodeTo`). */
export function encodeVersionEdit(edit: VersionEdit): Uint8Array {
  const o = new Out()
  const T = VersionEditTag
  if (edit.dbId !== undefined) o.varint(T.DbId).prefixed(edit.dbId)
  if (edit.comparator !== undefined) o.varint(T.Comparator).prefixed(edit.comparator)
  if (edit.logNumber !== undefined) o.varint(T.LogNumber).varint(edit.logNumber)
  if (edit.prevLogNumber !== undefined) o.varint(T.PrevLogNumber).varint(edit.prevLogNumber)
  if (edit.nextFileNumber !== undefined) o.varint(T.NextFileNumber).varint(edit.nextFileNumber)
  if (edit.maxColumnFamily !== undefined) o.varint(T.MaxColumnFamily).varint(edit.maxColumnFamily)
  if (edit.minLogNumberToKeep !== undefined) o.varint(T.MinLogNumberToKeep).varint(edit.minLogNumberToKeep)
  if (edit.lastSequence !== undefined) o.varint(T.LastSequence).varint(edit.lastSequence)
  for (const cc of edit.compactCursors) o.varint(T.CompactCursor).varint(cc.level).prefixed(cc.key)
  for (const d of edit.deletedFiles) o.varint(T.DeletedFile).varint(d.level).varint(d.fileNumber)
  for (const f of edit.newFiles) encodeNewFile(o, f)
  for (const a of edit.blobFileAdditions) {
    o.varint(T.BlobFileAddition).varint(a.blobFileNumber).varint(a.totalBlobCount).varint(a.totalBlobBytes)
    o.prefixed(a.checksumMethod).prefixed(a.checksumValue).varint(0)
  }
  for (const g of edit.blobFileGarbages) {
    o.varint(T.BlobFileGarbage).varint(g.blobFileNumber).varint(g.garbageBlobCount).varint(g.garbageBlobBytes).varint(0)
  }
  for (const w of edit.walAdditions) {
    const inner = new Out().varint(w.logNumber)
    if (w.syncedSize !== undefined) inner.varint(2).varint(w.syncedSize)
    o.varint(T.WalAddition2).prefixed(inner.varint(1).finish())
  }
  if (edit.walDeletion !== undefined) o.varint(T.WalDeletion2).prefixed(encodeVarint(edit.walDeletion))
  if (edit.columnFamily !== 0) o.varint(T.ColumnFamily).varint(edit.columnFamily)
  if (edit.columnFamilyAdd !== undefined) o.varint(T.ColumnFamilyAdd).prefixed(edit.columnFamilyAdd)
  if (edit.columnFamilyDrop) o.varint(T.ColumnFamilyDrop)
  if (edit.atomicGroupRemaining !== undefined) o.varint(T.InAtomicGroup).varint(edit.atomicGroupRemaining)
  if (edit.fullHistoryTsLow !== undefined) o.varint(T.FullHistoryTsLow).prefixed(edit.fullHistoryTsLow)
  if (edit.persistUserDefinedTimestamps !== undefined) {
    o.varint(T.PersistUserDefinedTimestamps).prefixed(Uint8Array.of(edit.persistUserDefinedTimestamps ? 1 : 0))
  }
  if (edit.subcompactionProgress !== undefined) o.varint(T.SubcompactionProgress).prefixed(edit.subcompactionProgress)
  if (edit.lastCompactedManifestFileSize !== undefined) {
    o.varint(T.LastCompactedManifestFileSize).prefixed(encodeVarint(edit.lastCompactedManifestFileSize))
  }
  return o.finish()
}

function encodeNewFile(o: Out, f: NewFileEntry): void {
  const C = NewFileCustomTag
  o.varint(f.encoding).varint(f.level).varint(f.fileNumber)
  if (f.encoding === VersionEditTag.NewFile3) o.varint(f.pathId)
  o.varint(f.fileSize).prefixed(f.smallestKey).prefixed(f.largestKey)
  if (f.encoding === VersionEditTag.NewFile) return
  o.varint(f.smallestSeqno).varint(f.largestSeqno)
  if (f.encoding !== VersionEditTag.NewFile4) return
  const field = (tag: number, value: Uint8Array | string) => o.varint(tag).prefixed(value)
  const byte = (v: number) => Uint8Array.of(v)
  if (f.oldestAncesterTime !== undefined) field(C.OldestAncesterTime, encodeVarint(f.oldestAncesterTime))
  if (f.fileCreationTime !== undefined) field(C.FileCreationTime, encodeVarint(f.fileCreationTime))
  if (f.epochNumber !== undefined) field(C.EpochNumber, encodeVarint(f.epochNumber))
  if (f.fileChecksum !== undefined) field(C.FileChecksum, f.fileChecksum)
  if (f.fileChecksumFuncName !== undefined) field(C.FileChecksumFuncName, f.fileChecksumFuncName)
  if (f.pathId !== 0) field(C.PathId, byte(f.pathId))
  if (f.temperature !== undefined) field(C.Temperature, byte(f.temperature))
  if (f.markedForCompaction !== undefined) field(C.NeedCompaction, byte(f.markedForCompaction ? 1 : 0))
  if (f.minLogNumberToKeepHack !== undefined) field(C.MinLogNumberToKeepHack, new Out().fixed64(f.minLogNumberToKeepHack).finish())
  if (f.oldestBlobFileNumber !== undefined) field(C.OldestBlobFileNumber, encodeVarint(f.oldestBlobFileNumber))
  if (f.uniqueId !== undefined) field(C.UniqueId, f.uniqueId)
  if (f.compensatedRangeDeletionSize !== undefined) field(C.CompensatedRangeDeletionSize, encodeVarint(f.compensatedRangeDeletionSize))
  if (f.tailSize !== undefined) field(C.TailSize, encodeVarint(f.tailSize))
  if (f.userDefinedTimestampsPersisted !== undefined) field(C.UserDefinedTimestampsPersisted, byte(f.userDefinedTimestampsPersisted ? 1 : 0))
  if (f.minTimestamp !== undefined) field(C.MinTimestamp, f.minTimestamp)
  if (f.maxTimestamp !== undefined) field(C.MaxTimestamp, f.maxTimestamp)
  if (f.fileOpenMetadata !== undefined) field(C.FileOpenMetadata, f.fileOpenMetadata)
  o.varint(C.Terminate)
}

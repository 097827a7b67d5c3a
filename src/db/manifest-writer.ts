/**
 * A MANIFEST written from scratch, as RocksDB writes the first records of a new MANIFEST
 * (`VersionSet::WriteCurrentStateToManifest`, `db/version_set.cc` of 11.8.1): the DB id; the WAL
 * deletion below min_log_number_to_keep; per column family one edit that creates it (name,
 * comparator, persist_user_defined_timestamps) and one that holds its state (every table file as
 * kNewFile4, its blob files, its log number, min_log_number_to_keep on the default column family,
 * the last sequence); the approximate size of that snapshot. A last edit carries what
 * `LogAndApply` adds to the edit that starts a MANIFEST: next file number, last sequence, previous
 * log number and max column family. Framing: log records in 32 KiB blocks with masked CRC32c
 * (format/log-record.ts).
 *
 * Every file carries what current RocksDB writes for it: oldest ancestor time, creation time,
 * epoch number (inferred where the source had none, as `VersionStorageInfo::RecoverEpochNumbers`
 * does: one per non-empty level from the bottom up, then each L0 file oldest first), the oldest
 * blob file it points into; no file checksum (kUnknownFileChecksumFuncName writes none), no
 * unique id (RocksDB then skips its check).
 */
import { randomUUID } from 'node:crypto'
import { blockChecksum, ChecksumType } from '../codec/checksum.js'
import { LogWriter } from '../format/log-record.js'
import type { DatabaseView } from './database.js'
import { emptyVersionEdit, encodeVersionEdit, type NewFileEntry, type VersionEdit, VersionEditTag } from '../format/version-edit.js'

export interface ManifestFile {
  level: number
  fileNumber: number
  fileSize: number
  /** Internal keys (user key + 8-byte trailer). */
  smallestKey: Uint8Array
  largestKey: Uint8Array
  smallestSeqno: bigint
  largestSeqno: bigint
  /** null: inferred as RocksDB does (see the file comment). */
  epochNumber: number | null
  oldestAncesterTime: number
  fileCreationTime: number
  oldestBlobFileNumber: number | null
  temperature: number | null
  markedForCompaction: boolean
}

export interface ManifestBlobFile {
  blobFileNumber: number
  totalBlobCount: number
  totalBlobBytes: number
  checksumMethod: string
  checksumValue: Uint8Array
  garbageBlobCount: number
  garbageBlobBytes: number
}

export interface ManifestColumnFamily {
  id: number
  name: string
  comparator: string
  logNumber: number
  /** L0 newest first, other levels in key order (as db/database.ts sorts them). */
  files: ManifestFile[]
  blobFiles: ManifestBlobFile[]
}

export interface ManifestSnapshot {
  dbId: string
  /** The default column family (id 0) first, then the others. */
  columnFamilies: ManifestColumnFamily[]
  nextFileNumber: number
  lastSequence: bigint
  prevLogNumber: number
  minLogNumberToKeep: number
  maxColumnFamily: number
}

export const crc32cMasked = (b: Uint8Array): number => blockChecksum(ChecksumType.CRC32c, b)

/** A DB id as RocksDB makes one (a UUID, the IDENTITY file's text). */
export function newDbId(): string {
  return randomUUID()
}

/** The epoch number of each file of a column family: its own where every file has one, else inferred. */
export function epochNumbers(files: readonly ManifestFile[]): Map<ManifestFile, number> {
  const out = new Map<ManifestFile, number>()
  if (files.every((f) => f.epochNumber !== null && f.epochNumber > 0)) {
    for (const f of files) out.set(f, f.epochNumber as number)
    return out
  }
  let next = 1
  const levels = [...new Set(files.map((f) => f.level))].filter((l) => l > 0).sort((a, b) => b - a)
  for (const level of levels) {
    for (const f of files) if (f.level === level) out.set(f, next)
    next++
  }
  const l0 = files.filter((f) => f.level === 0)
  for (let i = l0.length - 1; i >= 0; i--) out.set(l0[i], next++)
  return out
}

/** The VersionEdits of a new MANIFEST holding `s`, in the order RocksDB writes them. */
export function manifestEdits(s: ManifestSnapshot): VersionEdit[] {
  const edits: VersionEdit[] = []
  edits.push({ ...emptyVersionEdit(), dbId: s.dbId })
  const walDeletion = emptyVersionEdit()
  if (s.minLogNumberToKeep > 0) walDeletion.walDeletion = s.minLogNumberToKeep
  edits.push(walDeletion)
  for (const cf of s.columnFamilies) {
    const create = emptyVersionEdit()
    if (cf.id !== 0) {
      create.columnFamily = cf.id
      create.columnFamilyAdd = cf.name
    }
    create.comparator = cf.comparator
    create.persistUserDefinedTimestamps = true
    edits.push(create)
    const state = emptyVersionEdit()
    state.columnFamily = cf.id
    const epochs = epochNumbers(cf.files)
    state.newFiles = cf.files.map((f) => newFile(f, epochs.get(f) as number))
    for (const b of cf.blobFiles) {
      state.blobFileAdditions.push({
        blobFileNumber: b.blobFileNumber,
        totalBlobCount: b.totalBlobCount,
        totalBlobBytes: b.totalBlobBytes,
        checksumMethod: b.checksumMethod,
        checksumValue: b.checksumValue,
      })
      if (b.garbageBlobCount > 0) {
        state.blobFileGarbages.push({ blobFileNumber: b.blobFileNumber, garbageBlobCount: b.garbageBlobCount, garbageBlobBytes: b.garbageBlobBytes })
      }
    }
    state.logNumber = cf.logNumber
    if (cf.id === 0 && s.minLogNumberToKeep > 0) {
      state.minLogNumberToKeep = s.minLogNumberToKeep
      // RocksDB repeats it in the first new file, for readers older than the field (kMinLogNumberToKeepHack).
      if (state.newFiles.length > 0) state.newFiles[0].minLogNumberToKeepHack = BigInt(s.minLogNumberToKeep)
    }
    state.lastSequence = s.lastSequence
    edits.push(state)
  }
  return edits
}

function newFile(f: ManifestFile, epochNumber: number): NewFileEntry {
  const entry: NewFileEntry = {
    level: f.level,
    fileNumber: f.fileNumber,
    pathId: 0,
    fileSize: f.fileSize,
    smallestKey: f.smallestKey,
    largestKey: f.largestKey,
    smallestSeqno: f.smallestSeqno,
    largestSeqno: f.largestSeqno,
    encoding: VersionEditTag.NewFile4,
    oldestAncesterTime: f.oldestAncesterTime,
    fileCreationTime: f.fileCreationTime,
    epochNumber,
  }
  if (f.temperature !== null && f.temperature !== 0) entry.temperature = f.temperature
  if (f.markedForCompaction) entry.markedForCompaction = true
  if (f.oldestBlobFileNumber !== null) entry.oldestBlobFileNumber = f.oldestBlobFileNumber
  return entry
}

/** Estimated bytes of the record that states the snapshot's size (RocksDB's kEstimatedRecordOverhead). */
const SIZE_RECORD_OVERHEAD = 15

/** The MANIFEST's bytes: the snapshot's edits, its size, then next file number, last sequence and max column family. */
export function encodeManifest(s: ManifestSnapshot): Uint8Array {
  const log = new LogWriter({ crc: crc32cMasked })
  for (const edit of manifestEdits(s)) log.addRecord(encodeVersionEdit(edit))
  log.addRecord(encodeVersionEdit({ ...emptyVersionEdit(), lastCompactedManifestFileSize: log.size + SIZE_RECORD_OVERHEAD }))
  log.addRecord(
    encodeVersionEdit({
      ...emptyVersionEdit(),
      prevLogNumber: s.prevLogNumber,
      nextFileNumber: s.nextFileNumber,
      lastSequence: s.lastSequence,
      maxColumnFamily: s.maxColumnFamily,
    }),
  )
  return log.finish()
}

/** RocksDB's descriptor file name: MANIFEST-NNNNNN. */
export function manifestFileName(number: number): string {
  return `MANIFEST-${String(number).padStart(6, '0')}`
}

/** CURRENT's text: the MANIFEST's name and a newline. */
export function currentFileText(manifestNumber: number): string {
  return `${manifestFileName(manifestNumber)}\n`
}

/** What replaces a source file's metadata in the new MANIFEST (a rewritten table's size and seqnos). */
export interface WrittenFile {
  fileSize: number
  smallestSeqno?: bigint
  largestSeqno?: bigint
}

/**
 * The snapshot of an opened database (`view`) for a new MANIFEST: its column families, files,
 * blob files and numbers, each table's size (and seqnos, where the source records none, as
 * LevelDB's kNewFile does) from `written`, a new DB id. `nextFileNumber`: at least the source's.
 */
export function snapshotOf(
  view: DatabaseView,
  o: {
    dbId: string
    written?: ReadonlyMap<number, WrittenFile>
    /** Blob files written again: their new totals and garbage. */
    blobs?: ReadonlyMap<number, Pick<ManifestBlobFile, 'totalBlobBytes' | 'garbageBlobCount' | 'garbageBlobBytes'>>
    nextFileNumber?: number
    now?: number
  },
): ManifestSnapshot {
  const now = o.now ?? Math.floor(Date.now() / 1000)
  const columnFamilies = view.columnFamilies.map((cf) => ({
    id: cf.id,
    name: cf.name,
    comparator: cf.comparator ?? 'leveldb.BytewiseComparator',
    logNumber: cf.logNumber,
    files: cf.levels.flat().map((f) => {
      const w = o.written?.get(f.fileNumber)
      const known = f.smallestSeqno <= f.largestSeqno
      return {
        level: f.level,
        fileNumber: f.fileNumber,
        fileSize: w?.fileSize ?? f.fileSize,
        smallestKey: f.smallestKey,
        largestKey: f.largestKey,
        smallestSeqno: known ? f.smallestSeqno : (w?.smallestSeqno ?? 0n),
        largestSeqno: known ? f.largestSeqno : (w?.largestSeqno ?? 0n),
        epochNumber: f.epochNumber,
        oldestAncesterTime: f.oldestAncesterTime ?? f.fileCreationTime ?? now,
        fileCreationTime: w ? now : (f.fileCreationTime ?? 0),
        oldestBlobFileNumber: f.oldestBlobFileNumber,
        temperature: f.temperature,
        markedForCompaction: f.markedForCompaction,
      }
    }),
    blobFiles: cf.blobFiles.map((b) => ({ ...b, ...o.blobs?.get(b.blobFileNumber) })),
  }))
  return {
    dbId: o.dbId,
    columnFamilies,
    nextFileNumber: Math.max(view.nextFileNumber, o.nextFileNumber ?? 0),
    lastSequence: view.lastSequence,
    prevLogNumber: view.prevLogNumber,
    minLogNumberToKeep: view.minLogNumberToKeep,
    maxColumnFamily: view.maxColumnFamily,
  }
}

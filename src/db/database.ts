/**
 * A RocksDB database directory as RocksDB opens it: CURRENT names the MANIFEST, whose
 * VersionEdits are replayed the way `VersionSet::Recover` does (`db/version_set.cc`,
 * `db/version_edit_handler.cc`, `db/version_builder.cc`) into the live files per column family
 * and level; the directory listing then tells which table files are missing and which are on disk
 * but unlisted.
 *
 * Replay rules kept from RocksDB:
 * - the default column family (id 0) exists from the start; an edit with ColumnFamilyAdd creates
 *   one (adding an id twice is corruption), ColumnFamilyDrop removes it (dropping an unknown id is
 *   corruption), any other edit must name a live column family;
 * - within an edit, deleted files are removed before new files are added; deleting a file that is
 *   not on that level, or adding one already in the tree, is corruption;
 * - an atomic group (edits carrying InAtomicGroup with a count of edits still to come) is applied
 *   only once complete; a group cut short by the end of the MANIFEST is dropped, a normal edit
 *   inside a group or a wrong count is corruption;
 * - per column family, a log number only moves forward; last sequence, next file number and
 *   previous log number take the last value seen, min log number to keep the largest, max column
 *   family the largest recorded or created id; a MANIFEST without log number, next file number
 *   or last sequence is corrupt;
 * - WAL addition/deletion edits do not touch the column families;
 * - level order: L0 newest first (by epoch number when every file has one, else by largest then
 *   smallest sequence number, then file number); other levels by smallest internal key (the
 *   column family's comparator), then file number.
 * The MANIFEST is read one 32 KiB block at a time (src/format/log-record.ts), so memory stays
 * bounded by the live file set, not by the MANIFEST's length. Nothing in the directory is written.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { blockChecksum, ChecksumType } from '../codec/checksum.js'
import { CorruptionError } from '../format/errors.js'
import { internalKeyComparator, userComparatorByName } from '../format/internal-key.js'
import { LogReader, type DroppedTail } from '../format/log-record.js'
import { decodeVersionEdit, type NewFileEntry, type VersionEdit } from '../format/version-edit.js'
import { FileByteSource } from '../io/byte-source.js'
import type { DatabaseNote } from '../types/advice.js'
import { dynamicBaseLevel, readNewestOptions, type ColumnFamilyOptions, type DbOptions, type LevelContext } from './options.js'

export interface LiveFile {
  fileNumber: number
  /** dir joined with the file name (NNNNNN.sst, or NNNNNN.ldb when only that exists). */
  path: string
  level: number
  columnFamilyId: number
  columnFamily: string
  fileSize: number
  /** Internal keys (user key + 8-byte trailer). */
  smallestKey: Uint8Array
  largestKey: Uint8Array
  smallestSeqno: bigint
  largestSeqno: bigint
  exists: boolean
  /** db_paths / cf_paths index: files with pathId > 0 live outside `dir` and show as missing. */
  pathId: number
  epochNumber: number | null
  fileCreationTime: number | null
  oldestAncesterTime: number | null
  temperature: number | null
  /** The oldest blob file its blob indexes point into (integrated BlobDB), null when none. */
  oldestBlobFileNumber: number | null
  markedForCompaction: boolean
}

export interface ColumnFamilyView {
  id: number
  name: string
  comparator: string | null
  /** index = level number; empty arrays for empty levels up to the highest used. */
  levels: LiveFile[][]
  logNumber: number
  /** Live blob files (integrated BlobDB), by number: what the MANIFEST says they hold. */
  blobFiles: BlobFileView[]
}

/** A blob file as the MANIFEST's BlobFileAddition and BlobFileGarbage edits leave it. */
export interface BlobFileView {
  blobFileNumber: number
  /** dir joined with NNNNNN.blob. */
  path: string
  totalBlobCount: number
  totalBlobBytes: number
  garbageBlobCount: number
  garbageBlobBytes: number
  /** The blob file's checksum as the addition recorded it (empty method: none). */
  checksumMethod: string
  checksumValue: Uint8Array
}

export interface DatabaseView {
  dir: string
  manifestPath: string
  /** In id order, dropped ones excluded. */
  columnFamilies: ColumnFamilyView[]
  /** Table files (*.sst, *.ldb) on disk that no live column family lists, sorted, full paths. */
  unlistedFiles: string[]
  missingFiles: LiveFile[]
  options: DbOptions | null
  lastSequence: bigint
  /** The MANIFEST's last NextFileNumber (RocksDB's VersionSet, and ldb, report this + 1). */
  nextFileNumber: number
  logNumber: number
  prevLogNumber: number
  minLogNumberToKeep: number
  maxColumnFamily: number
  dbId: string | null
  /** Column families dropped during the MANIFEST's history: id and name. */
  droppedColumnFamilies: { id: number; name: string }[]
  /** VersionEdits read (including those of atomic groups). */
  manifestRecords: number
  /** An incomplete record at the MANIFEST's end that was dropped (as RocksDB does), if any. */
  droppedTail: DroppedTail | null
  /** The MANIFEST's bytes read: the version of the database this view is (a live MANIFEST grows past it). */
  manifestBytes: number
  /** What looks off but does not stop reading (see `databaseWarnings`; databaseNoteText words them). */
  warnings: DatabaseNote[]
}

const CURRENT = 'CURRENT'
const TABLE_FILE = /^(\d+)\.(sst|ldb)$/

/** A directory holding a CURRENT file. */
export function isDatabaseDir(dir: string): boolean {
  try {
    return statSync(join(dir, CURRENT)).isFile()
  } catch {
    return false
  }
}

/** The MANIFEST CURRENT points to (RocksDB: one line, ending in a newline). */
export function currentManifest(dir: string): string {
  const path = join(dir, CURRENT)
  const text = readFileSync(path, 'latin1')
  if (text.length === 0 || !text.endsWith('\n')) throw new CorruptionError(`${path}: CURRENT file does not end with a newline`)
  const name = text.slice(0, -1)
  if (!/^MANIFEST-\d+$/.test(name)) throw new CorruptionError(`${path}: CURRENT names '${clip(name)}', not a MANIFEST-NNNNNN file`)
  return join(dir, name)
}

function clip(s: string): string {
  const t = s.replace(/[^\x20-\x7e]/g, '?')
  return t.length > 40 ? `${t.slice(0, 37)}...` : t
}

const crc = (b: Uint8Array) => blockChecksum(ChecksumType.CRC32c, b)

export interface CfState {
  id: number
  name: string
  comparator: string | null
  logNumber: number
  /** fileNumber → file, per the current version. */
  files: Map<number, NewFileEntry>
  /** Blob file number → its addition and the garbage recorded against it since. */
  blobFiles: Map<number, Omit<BlobFileView, 'path'>>
}

/** The state a MANIFEST replays to (before the directory listing and OPTIONS are added). */
export interface ManifestState {
  cfs: Map<number, CfState>
  dropped: { id: number; name: string }[]
  logNumber?: number
  nextFileNumber?: number
  lastSequence?: bigint
  prevLogNumber: number
  minLogNumberToKeep: number
  maxColumnFamily: number
  dbId: string | null
  records: number
}

/** Replay a MANIFEST file into the live state of each column family (`readFrom`: another path to the same file, e.g. a pinned link). */
export function replayManifest(manifestPath: string, readFrom = manifestPath): ManifestState & { droppedTail: DroppedTail | null; bytes: number } {
  const source = new FileByteSource(readFrom, { readahead: 0 })
  try {
    const reader = new LogReader(source, { name: manifestPath, crc })
    const state: ManifestState = {
      cfs: new Map([[0, { id: 0, name: 'default', comparator: null, logNumber: 0, files: new Map(), blobFiles: new Map() }]]),
      dropped: [],
      prevLogNumber: 0,
      minLogNumberToKeep: 0,
      maxColumnFamily: 0,
      dbId: null,
      records: 0,
    }
    let group: { edits: { edit: VersionEdit; at: string; offset: number }[]; size: number; start: number } | null = null
    for (const rec of reader.records()) {
      const at = `${manifestPath}: VersionEdit record at offset ${rec.offset}`
      // Exact file offsets inside a record that sits in one physical record; else byte offsets within it.
      const single = rec.fragments === 1
      const edit = decodeVersionEdit(
        rec.payload,
        single ? rec.offset + rec.headerSize : 0,
        single ? at : `${at} (${rec.fragments} fragments; offsets within the record)`,
      )
      state.records++
      if (edit.atomicGroupRemaining !== undefined) {
        if (group === null) group = { edits: [], size: edit.atomicGroupRemaining + 1, start: rec.offset }
        group.edits.push({ edit, at, offset: rec.offset })
        if (group.edits.length + edit.atomicGroupRemaining !== group.size) {
          throw new CorruptionError(
            `${at}: corrupted atomic group (started at offset ${group.start}: ${group.size} edits announced, this one says ${edit.atomicGroupRemaining} more after ${group.edits.length})`,
            rec.offset,
          )
        }
        if (group.edits.length === group.size) {
          for (const g of group.edits) applyEdit(state, g.edit, g.at, g.offset)
          group = null
        }
        continue
      }
      if (group !== null) {
        throw new CorruptionError(`${at}: corrupted atomic group (a normal edit inside the group started at offset ${group.start})`, rec.offset)
      }
      applyEdit(state, edit, at, rec.offset)
    }
    // An atomic group cut short by the end of the MANIFEST is not applied (RocksDB: incomplete group).
    const missing = [
      state.logNumber === undefined ? 'log_file_number' : null,
      state.nextFileNumber === undefined ? 'next_file_number' : null,
      state.lastSequence === undefined ? 'last_sequence' : null,
    ].filter((x) => x !== null)
    if (missing.length > 0) throw new CorruptionError(`${manifestPath}: no ${missing.join(', ')} entry in MANIFEST`)
    // The source's size is fixed at open: a MANIFEST still being appended is read up to there.
    return { ...state, droppedTail: reader.droppedTail, bytes: source.size }
  } finally {
    source.close()
  }
}

function applyEdit(state: ManifestState, edit: VersionEdit, at: string, offset: number): void {
  const fail = (message: string): never => {
    throw new CorruptionError(`${at}: ${message}`, offset)
  }
  let cf: CfState | null = null
  const isWalEdit = edit.walAdditions.length > 0 || edit.walDeletion !== undefined
  if (edit.columnFamilyAdd !== undefined) {
    if (state.cfs.has(edit.columnFamily)) fail(`adds column family ${edit.columnFamily} ("${edit.columnFamilyAdd}") a second time`)
    cf = { id: edit.columnFamily, name: edit.columnFamilyAdd, comparator: null, logNumber: 0, files: new Map(), blobFiles: new Map() }
    state.cfs.set(cf.id, cf)
    // Creating a column family raises the max column family id (ColumnFamilySet::CreateColumnFamily).
    state.maxColumnFamily = Math.max(state.maxColumnFamily, cf.id)
  } else if (edit.columnFamilyDrop) {
    const dropped = state.cfs.get(edit.columnFamily)
    if (!dropped) return fail(`drops column family ${edit.columnFamily}, which does not exist`)
    state.cfs.delete(edit.columnFamily)
    state.dropped.push({ id: dropped.id, name: dropped.name })
  } else if (!isWalEdit) {
    cf = state.cfs.get(edit.columnFamily) ?? fail(`refers to column family ${edit.columnFamily}, which does not exist`)
    applyFiles(cf, edit, fail)
  }
  if (cf !== null) {
    if (edit.logNumber !== undefined && edit.logNumber >= cf.logNumber) {
      cf.logNumber = edit.logNumber
      state.logNumber = edit.logNumber
    }
    if (edit.comparator !== undefined) cf.comparator = edit.comparator
  }
  if (edit.dbId !== undefined) state.dbId = edit.dbId
  if (edit.prevLogNumber !== undefined) state.prevLogNumber = edit.prevLogNumber
  if (edit.nextFileNumber !== undefined) state.nextFileNumber = edit.nextFileNumber
  if (edit.maxColumnFamily !== undefined) state.maxColumnFamily = Math.max(state.maxColumnFamily, edit.maxColumnFamily)
  if (edit.minLogNumberToKeep !== undefined) state.minLogNumberToKeep = Math.max(state.minLogNumberToKeep, edit.minLogNumberToKeep)
  if (edit.lastSequence !== undefined) state.lastSequence = edit.lastSequence
}

function applyFiles(cf: CfState, edit: VersionEdit, fail: (m: string) => never): void {
  for (const d of edit.deletedFiles) {
    const f = cf.files.get(d.fileNumber)
    if (!f) fail(`cannot delete table file #${d.fileNumber} from level ${d.level} of column family "${cf.name}": it is not in the LSM tree`)
    else if (f.level !== d.level)
      fail(`cannot delete table file #${d.fileNumber} from level ${d.level} of column family "${cf.name}": it is on level ${f.level}`)
    cf.files.delete(d.fileNumber)
  }
  for (const f of edit.newFiles) {
    const old = cf.files.get(f.fileNumber)
    if (old) fail(`cannot add table file #${f.fileNumber} to level ${f.level} of column family "${cf.name}": it is already on level ${old.level}`)
    cf.files.set(f.fileNumber, f)
  }
  // Blob files (VersionBuilder): an addition, then garbage recorded against it; a file all garbage is no longer live.
  for (const a of edit.blobFileAdditions) {
    cf.blobFiles.set(a.blobFileNumber, {
      blobFileNumber: a.blobFileNumber,
      totalBlobCount: a.totalBlobCount,
      totalBlobBytes: a.totalBlobBytes,
      garbageBlobCount: 0,
      garbageBlobBytes: 0,
      checksumMethod: a.checksumMethod,
      checksumValue: a.checksumValue,
    })
  }
  for (const g of edit.blobFileGarbages) {
    const b = cf.blobFiles.get(g.blobFileNumber)
    if (!b) continue
    b.garbageBlobCount += g.garbageBlobCount
    b.garbageBlobBytes += g.garbageBlobBytes
    if (b.garbageBlobCount >= b.totalBlobCount) cf.blobFiles.delete(g.blobFileNumber)
  }
}

/**
 * Open a database directory read-only: replay its MANIFEST and compare with the directory.
 * `manifest`: the MANIFEST CURRENT named, read from another path (a pinned link to it, see pin.ts).
 */
export function openDatabase(dir: string, manifest?: { path: string; readFrom: string }): DatabaseView {
  if (!isDatabaseDir(dir)) throw new CorruptionError(`${dir}: not a RocksDB database (no CURRENT file)`)
  const manifestPath = manifest?.path ?? currentManifest(dir)
  if (!manifest && !existsSync(manifestPath)) throw new CorruptionError(`${join(dir, CURRENT)}: names ${manifestPath}, which does not exist`)
  const r = replayManifest(manifestPath, manifest?.readFrom)
  const onDisk = tableFilesOnDisk(dir)
  const listed = new Set<number>()
  const columnFamilies: ColumnFamilyView[] = []
  const missingFiles: LiveFile[] = []
  for (const cf of [...r.cfs.values()].sort((a, b) => a.id - b.id)) {
    const levels: LiveFile[][] = []
    for (const f of cf.files.values()) {
      listed.add(f.fileNumber)
      const disk = f.pathId === 0 ? onDisk.get(f.fileNumber) : undefined
      const live: LiveFile = {
        fileNumber: f.fileNumber,
        path: disk ?? join(dir, tableFileName(f.fileNumber)),
        level: f.level,
        columnFamilyId: cf.id,
        columnFamily: cf.name,
        fileSize: f.fileSize,
        smallestKey: f.smallestKey,
        largestKey: f.largestKey,
        smallestSeqno: f.smallestSeqno,
        largestSeqno: f.largestSeqno,
        exists: disk !== undefined,
        pathId: f.pathId,
        epochNumber: f.epochNumber ?? null,
        fileCreationTime: f.fileCreationTime ?? null,
        oldestAncesterTime: f.oldestAncesterTime ?? null,
        temperature: f.temperature ?? null,
        oldestBlobFileNumber: f.oldestBlobFileNumber ?? null,
        markedForCompaction: f.markedForCompaction ?? false,
      }
      while (levels.length <= f.level) levels.push([])
      levels[f.level].push(live)
      if (!live.exists) missingFiles.push(live)
    }
    sortLevels(levels, cf.comparator)
    const blobFiles = [...cf.blobFiles.values()]
      .sort((a, b) => a.blobFileNumber - b.blobFileNumber)
      .map((b) => ({ ...b, path: join(dir, `${String(b.blobFileNumber).padStart(6, '0')}.blob`) }))
    columnFamilies.push({ id: cf.id, name: cf.name, comparator: cf.comparator, levels, logNumber: cf.logNumber, blobFiles })
  }
  const unlistedFiles = [...onDisk]
    .filter(([n]) => !listed.has(n))
    .map(([, p]) => p)
    .sort()
  missingFiles.sort((a, b) => a.fileNumber - b.fileNumber)
  const options = readNewestOptions(dir)
  const view: DatabaseView = {
    dir,
    manifestPath,
    columnFamilies,
    unlistedFiles,
    missingFiles,
    options,
    lastSequence: r.lastSequence as bigint,
    nextFileNumber: r.nextFileNumber as number,
    logNumber: r.logNumber as number,
    prevLogNumber: r.prevLogNumber,
    minLogNumberToKeep: r.minLogNumberToKeep,
    maxColumnFamily: r.maxColumnFamily,
    dbId: r.dbId,
    droppedColumnFamilies: r.dropped,
    manifestRecords: r.records,
    droppedTail: r.droppedTail,
    manifestBytes: r.bytes,
    warnings: [],
  }
  view.warnings = databaseWarnings(view)
  return view
}

/**
 * What RocksDB would complain about or a reader should know, one line each: an incomplete
 * MANIFEST tail (ignored, as RocksDB does), files on a level at or past the column family's
 * num_levels (RocksDB refuses to open such a DB), column families without OPTIONS sections,
 * files kept in other db_paths / cf_paths.
 */
export function databaseWarnings(view: DatabaseView): DatabaseNote[] {
  const out: DatabaseNote[] = []
  const t = view.droppedTail
  if (t) out.push({ code: 'manifest-tail-ignored', file: view.manifestPath, bytes: t.bytes, offset: t.offset, reason: t.reason })
  for (const cf of view.columnFamilies) {
    const cfo = view.options?.columnFamilies.find((c) => c.name === cf.name)
    if (view.options && !cfo) out.push({ code: 'column-family-without-options', columnFamily: cf.name, file: view.options.path })
    if (cfo && cf.levels.length > cfo.numLevels)
      out.push({ code: 'column-family-beyond-num-levels', columnFamily: cf.name, level: cf.levels.length - 1, numLevels: cfo.numLevels })
    const elsewhere = cf.levels.flat().filter((f) => f.pathId > 0)
    if (elsewhere.length > 0)
      out.push({
        code: 'column-family-files-elsewhere',
        columnFamily: cf.name,
        files: elsewhere.length,
        firstFileNumber: elsewhere[0].fileNumber,
        pathId: elsewhere[0].pathId,
        dir: view.dir,
      })
  }
  return out
}

/** A database note in words: rewrite's notes, and advise's (report/advise-notes.ts). */
export function databaseNoteText(n: DatabaseNote): string {
  switch (n.code) {
    case 'options-section-skipped':
      return `${n.file}:${n.line}: section ${n.section} is not one sstkit knows: skipped`
    case 'option-not-used':
      return `${n.problem}; advise does not use it: RocksDB's default ${n.default} stands in`
    case 'option-decimal-comma':
      return `${n.file}:${n.line}: ${n.key}=${n.value} is written with a decimal comma (by a writer under a locale that writes one): read as ${n.readAs}`
    case 'manifest-tail-ignored':
      return `${n.file}: the last ${n.bytes} bytes (from offset ${n.offset}) are an incomplete record (${n.reason}); ignored, as RocksDB does`
    case 'column-family-without-options':
      return `column family "${n.columnFamily}" has no [CFOptions] section in ${n.file}`
    case 'column-family-beyond-num-levels':
      return `column family "${n.columnFamily}" has files on level ${n.level} but num_levels is ${n.numLevels} (RocksDB would not open it with these options)`
    case 'column-family-files-elsewhere':
      return `column family "${n.columnFamily}": ${n.files} file(s) (first #${n.firstFileNumber}) live in db_paths/cf_paths[${n.pathId}], outside ${n.dir}`
  }
}

/** RocksDB's MakeTableFileName: six-digit zero-padded number + ".sst". */
export function tableFileName(fileNumber: number): string {
  return `${String(fileNumber).padStart(6, '0')}.sst`
}

/** The write-ahead logs in `dir` (NNNNNN.log), by number, ascending. */
export function walFilesOnDisk(dir: string): { number: number; path: string }[] {
  return readdirSync(dir)
    .map((name) => /^(\d+)\.log$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ number: Number(m[1]), path: join(dir, m[0]) }))
    .sort((a, b) => a.number - b.number)
}

/** fileNumber → path of the table files in `dir` (".sst" preferred over the legacy ".ldb"). */
export function tableFilesOnDisk(dir: string): Map<number, string> {
  const out = new Map<number, string>()
  for (const name of readdirSync(dir).sort()) {
    const m = TABLE_FILE.exec(name)
    if (!m) continue
    const n = Number(m[1])
    if (!out.has(n) || m[2] === 'sst') out.set(n, join(dir, name))
  }
  return out
}

function sortLevels(levels: LiveFile[][], comparator: string | null): void {
  const user = userComparatorByName(comparator ?? 'leveldb.BytewiseComparator')
  const ikey = internalKeyComparator(user ?? userComparatorByName('leveldb.BytewiseComparator')!)
  levels.forEach((files, level) => {
    if (level === 0) {
      const byEpoch = files.every((f) => f.epochNumber !== null && f.epochNumber > 0)
      files.sort((a, b) => {
        if (byEpoch && a.epochNumber !== b.epochNumber) return (b.epochNumber as number) - (a.epochNumber as number)
        if (a.largestSeqno !== b.largestSeqno) return a.largestSeqno > b.largestSeqno ? -1 : 1
        if (a.smallestSeqno !== b.smallestSeqno) return a.smallestSeqno > b.smallestSeqno ? -1 : 1
        return b.fileNumber - a.fileNumber
      })
    } else {
      files.sort((a, b) => ikey(a.smallestKey, b.smallestKey) || a.fileNumber - b.fileNumber)
    }
  })
}

/**
 * The context RocksDB would pick a compression with for a file written to `level` of `cf` now
 * (for `compressionForLevel`): L0 files come from flushes; a compaction output is bottommost when
 * level >= num_non_empty_levels - 1 (the deepest non-empty level or below); the base level is
 * RocksDB's for the current level sizes (`dynamicBaseLevel`).
 */
export function levelContext(cf: { readonly levels: readonly (readonly { fileSize: number }[])[] }, level: number, options: ColumnFamilyOptions): LevelContext {
  const numNonEmptyLevels = cf.levels.reduce((n, files, i) => (files.length > 0 ? i + 1 : n), 0)
  const levelBytes = cf.levels.map((files) => files.reduce((s, f) => s + f.fileSize, 0))
  return {
    flush: level === 0,
    bottommost: level >= numNonEmptyLevels - 1,
    baseLevel: dynamicBaseLevel(options, levelBytes),
  }
}

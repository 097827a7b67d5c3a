/**
 * What the user pointed advise at: a RocksDB database directory (its live
 * files per column family and level, and what its OPTIONS file says each
 * level gets today), or plain SST files and directories of them.
 */
import { type BlobColumnFamilyInput, blobInputs } from './blob.js'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { exactText } from '../format/exact-text.js'
import { openTable } from '../table/reader.js'
import { isDatabaseDir, levelContext, openDatabase, type DatabaseView } from '../db/database.js'
import { compressionForLevel, type DbOptions, targetFileSize } from '../db/options.js'
import { type HeldVersion, pinDatabase, withoutView } from '../db/pin.js'
import { writerRelease } from '../db/rocksdb-version.js'
import type { Advice, AdviceNote } from '../types/advice.js'
import { groupsOfFiles, type GroupInput } from './population.js'
import { settingFromOptions } from '../db/today-setting.js'
import type { ListedFile } from './unreadable.js'

export interface ResolvedInputs {
  groups: GroupInput[]
  source: Advice['source']
  notes: AdviceNote[]
  dynamicLevels: Map<string, boolean>
  /** Under dynamic level bytes, the base level RocksDB computes for today's level sizes (where L0 compacts to). */
  baseLevels: Map<string, number>
  /** A usage problem (one line), when the paths cannot be advised on. */
  problem: string | null
  /** Findings before any file is read: live files the MANIFEST lists that are missing on disk (exit 1). */
  problems: Advice['problems']
  /** A finding that leaves nothing to advise on (one line, exit 1): no live file can be read. */
  finding: string | null
  /** The database version held for the run (with `pin`): its caller releases it. */
  pin?: HeldVersion
  /** The database's newest OPTIONS file, parsed, and its text as read at the start (for the diff and --write-options). */
  options?: { parsed: DbOptions; text: string } | null
  /** Column families with live blob files (integrated BlobDB), for advise/blob.ts. */
  blobColumnFamilies?: BlobColumnFamilyInput[]
  /** Every live table file the MANIFEST lists (paths in the database directory), read or not. */
  listed?: ListedFile[]
}

/** `pin`: hold the database's current version for the run (db/pin.ts), so that RocksDB writing and compacting meanwhile changes nothing read. */
export function resolveInputs(paths: string[], options: { pin?: boolean } = {}): ResolvedInputs {
  if (paths.length === 1 && isDirectory(paths[0]) && isDatabaseDir(paths[0])) {
    if (!options.pin) return fromDatabase(paths[0], openDatabase(paths[0]))
    const pin = pinDatabase(paths[0])
    try {
      return { ...fromDatabase(paths[0], pin.view, pin), pin: withoutView(pin) }
    } catch (e) {
      pin.release()
      throw e
    }
  }
  const files: string[] = []
  const notes: AdviceNote[] = []
  for (const p of paths) {
    let dir: boolean
    try {
      dir = statSync(p).isDirectory()
    } catch {
      return problem(paths, `${p}: no such file or directory`)
    }
    if (!dir) {
      files.push(p)
      continue
    }
    if (isDatabaseDir(p)) return problem(paths, `${p} is a RocksDB database: advise takes one database directory on its own`)
    const ssts = readdirSync(p)
      .filter((n) => n.endsWith('.sst'))
      .sort()
      .map((n) => join(p, n))
    if (ssts.length === 0) notes.push({ code: 'directory-without-sst', path: p })
    files.push(...ssts)
  }
  if (files.length === 0) {
    // One empty directory is most often a database path mistyped or a database not yet flushed: say both.
    const only = paths.length === 1 && notes.length === 1
    return problem(paths, only ? `${paths[0]}: directory holds no .sst files and no CURRENT file (not a RocksDB database)` : 'no SST files to advise on')
  }
  return {
    groups: groupsOfFiles(files),
    source: { kind: 'files', paths, manifest: null, optionsFile: null, unlistedFiles: [] },
    notes,
    dynamicLevels: new Map(),
    baseLevels: new Map(),
    problem: null,
    problems: [],
    finding: null,
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

function problem(paths: string[], message: string): ResolvedInputs {
  return {
    groups: [],
    source: { kind: 'files', paths, manifest: null, optionsFile: null, unlistedFiles: [] },
    notes: [],
    dynamicLevels: new Map(),
    baseLevels: new Map(),
    problem: message,
    problems: [],
    finding: null,
  }
}

function fromDatabase(dir: string, db: DatabaseView, pin?: HeldVersion): ResolvedInputs {
  const notes: AdviceNote[] = []
  const groups: GroupInput[] = []
  const dynamicLevels = new Map<string, boolean>()
  const baseLevels = new Map<string, number>()
  // Missing on disk, or (pinned) deleted by RocksDB before the file could be held.
  const missing = new Set([...db.missingFiles, ...(pin?.info.vanished ?? [])].map((f) => f.fileNumber))
  for (const cf of db.columnFamilies) {
    const cfOptions = db.options?.columnFamilies.find((c) => c.name === cf.name) ?? null
    dynamicLevels.set(cf.name, cfOptions?.levelCompactionDynamicLevelBytes ?? false)
    if (cfOptions?.levelCompactionDynamicLevelBytes) baseLevels.set(cf.name, levelContext(cf, 0, cfOptions).baseLevel ?? 1)
    const used = cf.levels.map((files, level) => ({ level, files: files.filter((f) => !missing.has(f.fileNumber)) })).filter((l) => l.files.length > 0)
    const deepest = used.length ? used[used.length - 1].level : -1
    for (const { level, files } of used) {
      const bottommost = level > 0 && level === deepest
      let optionsSetting = null
      let target = 0
      if (cfOptions) {
        // L0 files are flushes: compression_per_level[0], never the bottommost override.
        const context = levelContext(cf, level, cfOptions)
        const c = compressionForLevel(cfOptions, level, context)
        optionsSetting = settingFromOptions(c.compression, c.opts)
        target = targetFileSize(cfOptions, level, context.baseLevel ?? 1)
      }
      groups.push({
        columnFamily: cf.name,
        level,
        bottommost,
        files: files.map((f) => ({ path: f.path, fileNumber: f.fileNumber, size: f.fileSize })),
        optionsSetting,
        targetFileSize: target,
      })
    }
  }
  if (db.missingFiles.length) notes.push({ code: 'live-files-missing', files: db.missingFiles.map((f) => f.path) })
  if (pin?.info.vanished.length)
    notes.push({ code: 'live-files-vanished', files: pin.info.vanished.map((f) => pin.originalPath(f.path)), versions: pin.info.attempts })
  if (pin?.info.unpinnedFiles)
    notes.push({
      code: 'live-files-not-held',
      files: pin.info.unpinnedFiles,
      why: pin.info.method === 'none' ? 'no-links-or-descriptors' : 'open-file-limit',
    })
  const leveldb = !db.options && isLevelDb(db)
  if (leveldb) notes.push({ code: 'leveldb-database' })
  else if (!db.options) notes.push({ code: 'no-options-file' })
  else notes.push(...db.options.notes)
  notes.push(...db.warnings)
  let optionsText: string | null = null
  try {
    optionsText = db.options ? exactText(readFileSync(db.options.path)) : null
  } catch {
    // RocksDB replaced it since it was parsed: no diff or --write-options from it.
  }
  const blobFiles = db.columnFamilies
    .filter((cf) => cf.blobFiles.length > 0)
    .map((cf) => ({
      columnFamily: cf.name,
      files: cf.blobFiles.length,
      // Their size on disk where they are there, else what the MANIFEST says they hold.
      bytes: cf.blobFiles.reduce((n, b) => n + (sizeOnDisk(b.path) ?? b.totalBlobBytes), 0),
      garbageBytes: cf.blobFiles.reduce((n, b) => n + b.garbageBlobBytes, 0),
    }))
  const listed = db.columnFamilies.reduce((n, cf) => n + cf.levels.reduce((m, files) => m + files.length, 0), 0)
  let finding: string | null = null
  if (listed === 0 && db.unlistedFiles.length > 0) {
    const shown = db.unlistedFiles.slice(0, 3).join(', ') + (db.unlistedFiles.length > 3 ? ', ...' : '')
    finding = `${db.manifestPath}: lists no live table file while ${db.unlistedFiles.length} lie in the directory (${shown}): the MANIFEST may have been cut short; nothing to advise on`
  } else if (listed > 0 && groups.length === 0) {
    const unlisted = db.unlistedFiles.length
      ? `; ${db.unlistedFiles.length} table file(s) on disk it does not list (${db.unlistedFiles.slice(0, 3).join(', ')}${db.unlistedFiles.length > 3 ? ', ...' : ''})`
      : ''
    finding = `${dir}: every live table file the MANIFEST lists (${listed}) is missing on disk (the first: ${db.missingFiles[0].path})${unlisted}; nothing to advise on`
  }
  return {
    groups,
    options: db.options && optionsText !== null ? { parsed: db.options, text: optionsText } : null,
    source: {
      kind: 'database',
      paths: [dir],
      manifest: db.manifestPath,
      optionsFile: db.options?.path ?? null,
      unlistedFiles: db.unlistedFiles,
      rocksdbVersion: writerRelease(dir, db.options),
      emptyColumnFamilies: db.columnFamilies.filter((cf) => cf.levels.every((files) => files.length === 0)).map((cf) => cf.name),
      blobFiles,
      engine: leveldb ? 'leveldb' : 'rocksdb',
      version: {
        manifest: basename(db.manifestPath),
        manifestBytes: db.manifestBytes,
        manifestRecords: db.manifestRecords,
        lastSequence: String(db.lastSequence),
        heldBy: pin?.info.method ?? 'none',
        heldFiles: pin?.info.pinnedFiles ?? 0,
        changedDuringRun: null,
      },
    },
    notes,
    dynamicLevels,
    baseLevels,
    blobColumnFamilies: blobInputs(db.columnFamilies, db.options),
    listed: db.columnFamilies.flatMap((cf) =>
      cf.levels.flatMap((files, level) => files.map((f) => ({ columnFamily: cf.name, level, path: pin ? pin.originalPath(f.path) : f.path }))),
    ),
    finding,
    problem: null,
    // RocksDB cannot open a database with a live file missing (ldb fails on it): a finding, not just a note.
    problems: db.missingFiles.map((f) => ({ file: f.path, offset: null, message: 'live file the MANIFEST lists is missing on disk: left out' })),
  }
}

function sizeOnDisk(path: string): number | null {
  try {
    return statSync(path).size
  } catch {
    return null
  }
}

/**
 * LevelDB wrote the database: it has no OPTIONS file (the caller checks), and its first live table
 * that opens has no properties block (RocksDB has written one into every table since 2013: named
 * `rocksdb.stats` up to 2.6, as found/rocksdb-2.5's tables have it).
 */
function isLevelDb(db: DatabaseView): boolean {
  for (const file of db.columnFamilies.flatMap((cf) => cf.levels.flat())) {
    if (!file.exists) continue
    try {
      const table = openTable(file.path)
      try {
        return table.propertiesHandle === null
      } finally {
        table.close()
      }
    } catch {}
  }
  return false
}

/** The advice with the held version's paths put back to the database's own, and what RocksDB changed under the run; releases `pin`. */
export function heldToOriginal(advice: Advice, pin: HeldVersion): Advice {
  const changes = pin.changes()
  // Mapped before the release, which forgets the held paths.
  const out = JSON.parse(pin.originalPaths(JSON.stringify(advice))) as Advice
  pin.release()
  if (out.source.version)
    out.source.version.changedDuringRun = {
      deletedFiles: changes.deletedFiles,
      addedFiles: changes.addedFiles,
      manifest: changes.manifestNow && basename(changes.manifestNow),
      manifestBytes: changes.manifestBytesNow,
    }
  return out
}

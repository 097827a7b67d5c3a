/**
 * A whole database rewritten: every live table of every column family written again on its level
 * (the same entries, sequence numbers and key ranges; rewrite.ts per file, on worker threads), the
 * write-ahead logs copied as they are, the blob files copied or written again under the advised
 * blob compression (blob-files.ts: the tables' blob indexes then moved with them), an OPTIONS file, a new IDENTITY and a
 * MANIFEST written from scratch (db/manifest-writer.ts), so that RocksDB opens the output as the
 * source's version: the same column families, levels and files, in a new physical form. A LevelDB
 * database becomes a RocksDB one (block-based tables with properties, `.sst` names).
 *
 * The output directory is written beside OUT under a temporary name and renamed into place whole;
 * on a failure or a signal it is removed. The source's version is held by db/pin.ts (hard links,
 * no LOCK, nothing written in it). A source table that fails to read stops the run (one line
 * naming it) unless `salvage` writes what still reads.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { isFileError } from '../errors.js'
import { databaseNoteText, type DatabaseView, isDatabaseDir, openDatabase, tableFileName, walFilesOnDisk } from '../db/database.js'
import { currentFileText, encodeManifest, manifestFileName, newDbId, snapshotOf, type WrittenFile } from '../db/manifest-writer.js'
import { pinDatabase, type PinnedDatabase } from '../db/pin.js'
import { compressionShortName, compressionTypeFromOptionName } from '../format/compression-type.js'
import { cleanupOnExit } from '../util/cleanup.js'
import { temporaryPath } from '../util/temp-file.js'
import type { AdvisedLevel, DbAdvice } from './db-advice.js'
import { defaultFormatVersion } from '../format/footer.js'
import { RewriteError, type RewriteOptions, type RewriteResult } from './rewrite.js'
import { encodeOptionsFile, escapeOptionString, OPTIONS_SECTION, parseOptionsFile } from '../format/options-file.js'
import { RewriteThread } from './thread.js'
import { type Copied, type DbVerification, verifyAgainstSource } from './db-check.js'
import { blobChangeLabel, type BlobFileWritten, type BlobRemap, unreferenced } from './blob-files.js'
import { BLOB_FOOTER_SIZE, BLOB_HEADER_SIZE, decodeBlobFileHeader } from '../format/blob-file.js'
import { WRITABLE_TYPES } from '../codec/setting.js'

export type { DbVerification }

export interface DbRewriteOptions {
  /** The per-file options every level gets without advice (the flags). */
  base: RewriteOptions
  advice: DbAdvice | null
  /** Take block size and restart interval from each column family's OPTIONS (the flags did not set them). */
  blockSizeFromOptions: boolean
  /** The OPTIONS file to write (today's with the advice applied), or null: none (a LevelDB source has none). */
  optionsText: ((view: DatabaseView) => string | null) | null
  /** Replace an existing empty OUT. */
  force: boolean
  /** Tables written at once, each on a worker thread (default 1: a second one took peak RSS past 150 MB on 64 MiB tables). */
  jobs?: number
  onProgress?: (p: DbRewriteProgress) => void
}

export interface DbRewriteProgress {
  filesDone: number
  files: number
  bytesDone: number
  bytes: number
  current: string
}

export interface LevelWritten {
  level: number
  files: number
  sourceBytes: number
  writtenBytes: number
  /** Data and dictionary blocks written (what advise projects). */
  dataBytes: number
  entries: number
  setting: string
  /** advise's projection of the level's data and dictionary bytes, and whether what was written falls in its interval. */
  projected: { estimate: number; low: number; high: number; within: boolean } | null
}

export interface DbRewriteResult {
  source: string
  output: string
  manifest: string
  options: string | null
  columnFamilies: {
    name: string
    levels: LevelWritten[]
    blobFiles: number
    /** The source's blob files' bytes, and the output's. */
    blobBytes: number
    blobWrittenBytes: number
    /** The advised blob_compression_type, and how many blob files were written again under it (the others copied as they are). */
    blobCompression: string | null
    blobRecompressed: number
  }[]
  /** Write-ahead logs copied: RocksDB replays them when it opens OUT (their entries are not in the tables). */
  wals: { file: string; bytes: number }[]
  sourceBytes: number
  writtenBytes: number
  /** Files whose damage --salvage wrote around. */
  salvaged: string[]
  notes: string[]
  verified: boolean
  /** What the check against a second read of the source compared (null: --no-verify). */
  verification: DbVerification | null
  ms: number
}

interface Job {
  source: string
  original: string
  fileNumber: number
  columnFamily: string
  level: number
  size: number
  options: RewriteOptions
  setting: string
}

/** Whether `path` is a database directory (holds CURRENT). */
export const isDatabaseInput = isDatabaseDir

/** Rewrite the database in `dir` into the new directory `output` (see the file comment). */
export async function rewriteDatabase(dir: string, output: string, o: DbRewriteOptions): Promise<DbRewriteResult> {
  const t0 = performance.now()
  checkOutput(dir, output, o.force)
  const pin = pinDatabase(dir)
  const tmp = temporaryPath(output)
  const removeTmp = cleanupOnExit(() => rmSync(tmp, { recursive: true, force: true }))
  try {
    const result = await writeInto(dir, pin, tmp, output, o)
    if (o.force && existsSync(output)) rmdirSync(output) // checkOutput: empty
    renameSync(tmp, output)
    syncDir(dirname(resolve(output)))
    result.ms = performance.now() - t0
    return result
  } finally {
    removeTmp()
    pin.release()
  }
}

function checkOutput(dir: string, output: string, force: boolean): void {
  const src = resolve(dir)
  const out = resolve(output)
  if (out === src || out.startsWith(src + sep) || src.startsWith(out + sep))
    throw new RewriteError('usage', `${output}: the output must be outside the source database ${dir}`)
  if (!existsSync(out)) {
    if (!existsSync(dirname(out))) throw new RewriteError('usage', `${output}: directory ${dirname(out)} does not exist`)
    return
  }
  if (!force) throw new RewriteError('usage', `${output} exists (the output must be a new directory; --force replaces an empty one)`)
  if (!statSync(out).isDirectory() || readdirSync(out).length > 0) throw new RewriteError('usage', `${output}: --force replaces only an empty directory`)
}

async function writeInto(dir: string, pin: PinnedDatabase, tmp: string, output: string, o: DbRewriteOptions): Promise<DbRewriteResult> {
  const view = pin.view
  const notes: string[] = view.warnings.map(databaseNoteText)
  if (view.missingFiles.length > 0) {
    const f = view.missingFiles[0]
    throw new RewriteError('corruption', `${pin.originalPath(f.path)}: live table file of column family "${f.columnFamily}" (L${f.level}) is missing`)
  }
  mkdirSync(tmp)
  const jobs = planJobs(view, pin, o, notes)
  // Blob files under an advised compression first: the tables' blob indexes are moved to where their records went.
  const recompressed = await recompressBlobFiles(view, pin, o, tmp, notes)
  for (const job of jobs) {
    const remaps = recompressed.byColumnFamily.get(job.columnFamily)
    if (remaps) job.options = { ...job.options, blobRemaps: remaps }
  }
  const results = await runJobs(jobs, o, tmp)
  const written = new Map<number, WrittenFile>()
  for (const [job, r] of results) {
    written.set(job.fileNumber, {
      fileSize: r.fileSize,
      smallestSeqno: r.seqnos ? BigInt(r.seqnos.smallest) : undefined,
      largestSeqno: r.seqnos ? BigInt(r.seqnos.largest) : undefined,
    })
  }
  // The other blob files are copied as they are.
  let highest = view.nextFileNumber
  const columnFamilies: DbRewriteResult['columnFamilies'] = []
  const blobTotals = new Map<number, BlobTotals>()
  const copied: Copied[] = []
  for (const cf of view.columnFamilies) {
    let blobBytes = 0
    let blobWrittenBytes = 0
    let recompressedFiles = 0
    for (const b of cf.blobFiles) {
      highest = Math.max(highest, b.blobFileNumber + 1)
      blobBytes += statSync(b.path).size
      const w = recompressed.files.get(b.blobFileNumber)
      if (!w) {
        copyFileSync(b.path, join(tmp, basename(b.path)))
        copied.push({ original: b.path, copy: join(tmp, basename(b.path)), label: `blob file ${basename(b.path)}`, prefix: false })
        blobWrittenBytes += statSync(b.path).size
        continue
      }
      recompressedFiles++
      blobWrittenBytes += w.fileSize
      const garbage = unreferenced(w.remap)
      if (garbage.count !== b.garbageBlobCount)
        notes.push(
          `blob file ${pin.originalPath(b.path)}: ${garbage.count} of its records are pointed at by no live table, where the MANIFEST counted ${b.garbageBlobCount} as garbage: the new MANIFEST counts ${garbage.count}`,
        )
      blobTotals.set(b.blobFileNumber, { totalBlobBytes: w.blobBytes, garbageBlobCount: garbage.count, garbageBlobBytes: garbage.bytes })
    }
    const advisedBlob = o.advice?.blobCompression.get(cf.name) ?? null
    columnFamilies.push({
      name: cf.name,
      levels: levelReport(cf.name, jobs, results, o.advice, o.blockSizeFromOptions),
      blobFiles: cf.blobFiles.length,
      blobBytes,
      blobCompression: advisedBlob,
      blobRecompressed: recompressedFiles,
      blobWrittenBytes,
    })
  }
  // Write-ahead logs from the oldest any column family still needs: RocksDB replays them on open.
  const minLog = Math.min(...view.columnFamilies.map((c) => c.logNumber))
  const wals: DbRewriteResult['wals'] = []
  for (const w of walFilesOnDisk(dir)) {
    highest = Math.max(highest, w.number + 1)
    if (w.number < minLog) continue
    copyFileSync(w.path, join(tmp, basename(w.path)))
    copied.push({ original: w.path, copy: join(tmp, basename(w.path)), label: `write-ahead log ${basename(w.path)}`, prefix: true })
    const bytes = statSync(join(tmp, basename(w.path))).size
    if (bytes > 0) wals.push({ file: basename(w.path), bytes })
  }
  for (const f of view.columnFamilies.flatMap((c) => c.levels.flat())) highest = Math.max(highest, f.fileNumber + 1)
  highest = Math.max(highest, Number(/(\d+)$/.exec(view.manifestPath)?.[1] ?? 0) + 1)
  const dbId = newDbId()
  writeSynced(join(tmp, 'IDENTITY'), dbId)
  const manifestNumber = highest
  const optionsNumber = highest + 1
  let optionsName: string | null = null
  const advised = o.optionsText?.(view) ?? null
  const optionsText = advised === null ? null : withWrittenFormatVersion(advised, o.base.formatVersion, notes)
  if (optionsText !== null) {
    optionsName = `OPTIONS-${String(optionsNumber).padStart(6, '0')}`
    writeSynced(join(tmp, optionsName), optionsText)
  }
  if (!view.options)
    notes.push(`the source has no OPTIONS file (LevelDB has none): ${optionsName ?? 'none'} states RocksDB's defaults, the comparator and snappy`)
  const snapshot = snapshotOf(view, { dbId, written, blobs: blobTotals, nextFileNumber: optionsNumber + 1 })
  writeSynced(join(tmp, manifestFileName(manifestNumber)), encodeManifest(snapshot))
  writeSynced(join(tmp, 'CURRENT'), currentFileText(manifestNumber))
  syncDir(tmp)
  verifyOutput(view, tmp, written, blobTotals)
  const verification = o.base.verify ? await verifyAgainstSource(view, tmp, jobs, results, copied, o.jobs ?? 1, o.onProgress) : null
  if (wals.length > 0) {
    notes.push(
      `${wals.length} write-ahead log(s) copied (${wals.map((w) => w.file).join(', ')}): RocksDB replays them when it opens OUT; their entries are not in the tables until it flushes`,
    )
  }
  const salvaged = [...results].filter(([, r]) => r.salvaged).map(([j]) => j.original)
  for (const [job, r] of results) for (const n of r.notes) if (!n.startsWith('the output is not ingestible')) notes.push(`${job.original}: ${n}`)
  return {
    source: dir,
    output,
    manifest: manifestFileName(manifestNumber),
    options: optionsName,
    columnFamilies,
    wals,
    sourceBytes: jobs.reduce((s, j) => s + j.size, 0),
    writtenBytes: [...results.values()].reduce((s, r) => s + r.fileSize, 0),
    salvaged,
    notes,
    verified: o.base.verify,
    verification,
    ms: 0,
  }
}

interface BlobTotals {
  totalBlobBytes: number
  garbageBlobCount: number
  garbageBlobBytes: number
}

/** A blob file's header and footer: the bytes besides its records. */
const BLOB_FILE_OVERHEAD = BLOB_HEADER_SIZE + BLOB_FOOTER_SIZE

/**
 * Each blob file of a column family with an advised blob_compression_type other than its own,
 * written again under it (blob-files.ts) on a worker thread; the others are left to be copied,
 * with a note where the advice cannot be applied.
 */
async function recompressBlobFiles(
  view: DatabaseView,
  pin: PinnedDatabase,
  o: DbRewriteOptions,
  tmp: string,
  notes: string[],
): Promise<{ files: Map<number, BlobFileWritten>; byColumnFamily: Map<string, BlobRemap[]> }> {
  const files = new Map<number, BlobFileWritten>()
  const byColumnFamily = new Map<string, BlobRemap[]>()
  const todo: { cf: string; path: string; original: string; fileNumber: number; type: number }[] = []
  for (const cf of view.columnFamilies) {
    const advised = o.advice?.blobCompression.get(cf.name)
    if (!advised || cf.blobFiles.length === 0) continue
    const type = compressionTypeFromOptionName(advised)
    if (type === undefined || !WRITABLE_TYPES.includes(type)) {
      notes.push(`column family "${cf.name}": blob_compression_type=${advised} is not a type sstkit writes: its blob files copied as they are`)
      continue
    }
    let same = 0
    for (const b of cf.blobFiles) {
      const original = pin.originalPath(b.path)
      if (b.checksumMethod !== '') {
        notes.push(`blob file ${original}: copied as it is: its file checksum (${b.checksumMethod}) in the MANIFEST is not recomputed`)
        continue
      }
      if (blobFileCompression(b.path) === type) same++
      else todo.push({ cf: cf.name, path: b.path, original, fileNumber: b.blobFileNumber, type })
    }
    if (same > 0) notes.push(`column family "${cf.name}": ${same} blob file(s) already in ${advised}, copied as they are`)
  }
  if (todo.length === 0) return { files, byColumnFamily }
  const thread = new RewriteThread()
  try {
    for (const [i, t] of todo.entries()) {
      o.onProgress?.({ filesDone: i, files: todo.length, bytesDone: 0, bytes: 0, current: t.original })
      let w: BlobFileWritten
      try {
        w = await thread.recompressBlob(t.path, join(tmp, basename(t.path)), t.fileNumber, t.type)
      } catch (e) {
        if (!(e instanceof Error) || !(e instanceof RewriteError || isFileError(e))) throw e
        throw new RewriteError('corruption', `blob file of column family "${t.cf}" ${e.message.replaceAll(t.path, t.original)}`, { cause: e })
      }
      files.set(t.fileNumber, w)
      byColumnFamily.set(t.cf, [...(byColumnFamily.get(t.cf) ?? []), w.remap])
    }
  } finally {
    await thread.close()
  }
  for (const [cf, remaps] of byColumnFamily) {
    const written = remaps.map((r) => files.get(r.fileNumber) as BlobFileWritten)
    notes.push(
      `column family "${cf}": ${remaps.length} blob file(s) written again (${blobChangeLabel(written[0].sourceCompression, written[0].remap.compression)}), every blob index of its tables moved to the new offsets and sizes`,
    )
  }
  return { files, byColumnFamily }
}

/** The compression byte of a blob file's header. */
function blobFileCompression(path: string): number {
  const fd = openSync(path, 'r')
  try {
    const header = Buffer.alloc(BLOB_HEADER_SIZE)
    readSync(fd, header, 0, BLOB_HEADER_SIZE, 0)
    return decodeBlobFileHeader(header).compression
  } finally {
    closeSync(fd)
  }
}

/** One job per live table: its options from the advice for its column family and level, else the flags. */
function planJobs(view: DatabaseView, pin: PinnedDatabase, o: DbRewriteOptions, notes: string[]): Job[] {
  const jobs: Job[] = []
  const unadvised = new Set<string>()
  for (const cf of view.columnFamilies) {
    const cfOptions = view.options?.columnFamilies.find((c) => c.name === cf.name)
    const advisedBlockSize = o.advice?.blockSizes.get(cf.name)
    if (advisedBlockSize && cf.levels.some((l) => l.length > 0)) {
      notes.push(
        o.blockSizeFromOptions
          ? `column family "${cf.name}": every table written with the advised block_size ${advisedBlockSize.recommended} (today ${advisedBlockSize.today}), and the OPTIONS file says so`
          : `column family "${cf.name}": the advised block_size ${advisedBlockSize.recommended} not applied: --block-size or --restart-interval given`,
      )
    }
    for (const f of cf.levels.flat()) {
      const advised = o.advice?.levels.find((l) => l.columnFamily === cf.name && l.level === f.level)
      if (o.advice && !advised) unadvised.add(`"${cf.name}" L${f.level}`)
      // The per-table check is the database's, against a second read of the source (verifyAgainstSource).
      const options: RewriteOptions = { ...o.base, ...(advised ? advisedOptions(advised) : {}), force: false, verify: false }
      if (o.blockSizeFromOptions && cfOptions) {
        options.blockSize = cfOptions.blockSize
        options.restartInterval = cfOptions.blockRestartInterval
      }
      if (o.blockSizeFromOptions && advisedBlockSize) options.blockSize = advisedBlockSize.recommended
      // The table layout RocksDB writes under this column family's OPTIONS (advise projects its sizes
      // the same way), where no flag says otherwise.
      if (cfOptions) {
        options.separateKeyValue ??= cfOptions.separateKeyValue || undefined
        options.indexCompression ??= cfOptions.indexCompression
      }
      jobs.push({
        source: f.path,
        original: pin.originalPath(f.path),
        fileNumber: f.fileNumber,
        columnFamily: cf.name,
        level: f.level,
        size: f.fileSize,
        options,
        setting: advised?.label ?? flagsLabel(options),
      })
    }
  }
  if (unadvised.size > 0) notes.push(`the advice has no level ${[...unadvised].join(', ')}: written with the flags' setting`)
  return jobs
}

/** e.g. "zstd 6 dict=train", for a setting from the flags. */
function flagsLabel(o: RewriteOptions): string {
  const level = o.level === null || o.level === undefined ? '' : ` ${o.level}`
  const dict = o.dictionary ? ' dict=file' : o.dict !== 'none' ? ` dict=${o.dict}` : ''
  return `${compressionShortName(o.compressionType)}${level}${dict}${o.zstdChecksum ? ' +checksum' : ''}`
}

function advisedOptions(a: AdvisedLevel): Partial<RewriteOptions> {
  return {
    ...a.compression,
    maxDictBytes: a.maxDictBytes,
    trainBytes: a.trainBytes,
    maxDictBufferBytes: a.maxDictBufferBytes,
    maxCompressedBytesPerKb: a.maxCompressedBytesPerKb,
  }
}

/** The jobs on worker threads, largest first; the first failure stops the run, naming its file. */
async function runJobs(jobs: Job[], o: DbRewriteOptions, tmp: string): Promise<Map<Job, RewriteResult>> {
  const queue = [...jobs].sort((a, b) => b.size - a.size)
  const total = jobs.reduce((s, j) => s + j.size, 0)
  const results = new Map<Job, RewriteResult>()
  const lanes = Math.max(1, Math.min(o.jobs ?? 1, queue.length))
  let failure: unknown = null
  let bytesDone = 0
  const lane = async () => {
    const thread = new RewriteThread()
    try {
      for (let job = queue.shift(); job && failure === null; job = queue.shift()) {
        o.onProgress?.({ filesDone: results.size, files: jobs.length, bytesDone, bytes: total, current: job.original })
        try {
          results.set(job, await thread.rewrite(job.source, join(tmp, tableFileName(job.fileNumber)), job.options))
          bytesDone += job.size
        } catch (e) {
          failure ??= named(job, e)
        }
      }
    } finally {
      await thread.close()
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane))
  if (failure !== null) throw failure
  o.onProgress?.({ filesDone: results.size, files: jobs.length, bytesDone, bytes: total, current: '' })
  return results
}

/** A file's failure as one line naming the source table (its database path, not the pinned link). */
function named(job: Job, e: unknown): unknown {
  if (!(e instanceof Error)) return e
  const message = e.message.replaceAll(job.source, job.original)
  const line = message.includes(job.original) ? message : `${job.original}: ${message}`
  const kind = e instanceof RewriteError ? e.code : isFileError(e) ? 'corruption' : null
  if (kind === null) return e
  return new RewriteError(kind === 'usage' ? 'corruption' : kind, `source table of column family "${job.columnFamily}" (L${job.level}) ${line}`, { cause: e })
}

function levelReport(cf: string, jobs: Job[], results: Map<Job, RewriteResult>, advice: DbAdvice | null, blockSizeApplied: boolean): LevelWritten[] {
  const byLevel = new Map<number, LevelWritten>()
  for (const job of jobs) {
    if (job.columnFamily !== cf) continue
    const r = results.get(job)
    if (!r) continue
    let l = byLevel.get(job.level)
    if (!l) {
      l = { level: job.level, files: 0, sourceBytes: 0, writtenBytes: 0, dataBytes: 0, entries: 0, setting: job.setting, projected: null }
      byLevel.set(job.level, l)
    }
    l.files++
    l.sourceBytes += job.size
    l.writtenBytes += r.fileSize
    l.dataBytes += r.dataBytes + r.dictBytes
    l.entries += r.entries
  }
  for (const l of byLevel.values()) {
    const a = advice?.levels.find((x) => x.columnFamily === cf && x.level === l.level)
    // With its block size applied too, the projection is the block size advice's for the level (none when it was re-cut under today's compression).
    const blockSize = blockSizeApplied ? advice?.blockSizes.get(cf) : undefined
    const p = blockSize ? blockSize.projected?.get(l.level) : a?.projected
    if (a && p) l.projected = { ...p, within: l.dataBytes >= p.low && l.dataBytes <= p.high }
  }
  return [...byLevel.values()].sort((a, b) => a.level - b.level)
}

/** The written directory read back as RocksDB would: the same column families, levels, files, keys and seqnos. */
function verifyOutput(source: DatabaseView, tmp: string, written: Map<number, WrittenFile>, blobs: ReadonlyMap<number, BlobTotals>): void {
  const out = openDatabase(tmp)
  const fail = (what: string): never => {
    throw new RewriteError('corruption', `verification of the written database failed: ${what}`)
  }
  if (out.missingFiles.length > 0) fail(`table #${out.missingFiles[0].fileNumber} is missing`)
  if (out.columnFamilies.length !== source.columnFamilies.length) fail('the column families differ')
  source.columnFamilies.forEach((cf, i) => {
    const o = out.columnFamilies[i]
    if (o.id !== cf.id || o.name !== cf.name) fail(`column family "${cf.name}" differs`)
    const a = cf.levels.flat()
    const b = o.levels.flat()
    if (a.length !== b.length) fail(`column family "${cf.name}" has ${b.length} files, not ${a.length}`)
    a.forEach((f, j) => {
      const g = b[j]
      const same =
        g.fileNumber === f.fileNumber &&
        g.level === f.level &&
        Buffer.compare(g.smallestKey, f.smallestKey) === 0 &&
        Buffer.compare(g.largestKey, f.largestKey) === 0 &&
        g.fileSize === written.get(f.fileNumber)?.fileSize &&
        statSync(g.path).size === g.fileSize
      if (!same) fail(`table #${f.fileNumber} of column family "${cf.name}" is not where, or what, it was`)
    })
  })
  if (out.lastSequence !== source.lastSequence) fail(`last sequence ${out.lastSequence}, not ${source.lastSequence}`)
  for (const cf of out.columnFamilies) {
    const theirs = source.columnFamilies.find((c) => c.id === cf.id)?.blobFiles ?? []
    if (cf.blobFiles.length !== theirs.length) fail(`column family "${cf.name}" has ${cf.blobFiles.length} blob files, not ${theirs.length}`)
    for (const b of cf.blobFiles) {
      const want = blobs.get(b.blobFileNumber) ?? theirs.find((t) => t.blobFileNumber === b.blobFileNumber)
      const size = existsSync(b.path) ? statSync(b.path).size : -1
      const sizeOk = blobs.has(b.blobFileNumber) ? size === BLOB_FILE_OVERHEAD + b.totalBlobBytes : size >= 0
      if (!want || b.totalBlobBytes !== want.totalBlobBytes || b.garbageBlobCount !== want.garbageBlobCount || !sizeOk)
        fail(`blob file #${b.blobFileNumber} of column family "${cf.name}" is not what the MANIFEST says`)
    }
  }
}

function writeSynced(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data, { flag: 'wx' })
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function syncDir(path: string): void {
  try {
    const fd = openSync(path, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // a directory that cannot be opened for fsync (some filesystems): the rename still happened
  }
}

/**
 * The OPTIONS text with each table section's format_version set to what new tables should be
 * written in: `flag` when given, else 5 where it was below 2 (RocksDB 11 writes no older format).
 */
export function withWrittenFormatVersion(text: string, flag: number | undefined, notes: string[]): string {
  const file = parseOptionsFile(text)
  let changed = false
  for (const s of file.sections) {
    if (!s.title.startsWith(OPTIONS_SECTION.TableOptions)) continue
    const today = Number(s.entries.get('format_version') ?? '6')
    const next = flag ?? defaultFormatVersion(today)
    if (next !== today) {
      s.entries.set('format_version', String(next))
      changed = true
    }
  }
  if (!changed) return text
  notes.push(`OPTIONS: format_version set to the format the tables were written in (${flag ?? 5})`)
  return encodeOptionsFile(file)
}

/**
 * An OPTIONS file for a database that has none (LevelDB): RocksDB's defaults but what the database
 * states (each column family's comparator) and what LevelDB wrote with (snappy), the tables'
 * format_version (5). RocksDB, and tools that load a database's persisted options, need one.
 */
export function defaultOptionsText(view: DatabaseView): string {
  const sections = ['[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n', '[DBOptions]\n  create_if_missing=false\n']
  for (const cf of view.columnFamilies) {
    const name = escapeOptionString(cf.name)
    sections.push(
      `[CFOptions "${name}"]\n  comparator=${cf.comparator ?? 'leveldb.BytewiseComparator'}\n  compression=kSnappyCompression\n  num_levels=${Math.max(7, cf.levels.length)}\n`,
      `[TableOptions/BlockBasedTable "${name}"]\n  format_version=5\n`,
    )
  }
  return `# This is a RocksDB option file.\n#\n# Written by sstkit rewrite for a database that had none.\n#\n\n${sections.join('  \n')}  \n`
}

/** Today's OPTIONS text of a database (its newest OPTIONS file), or null. */
export function newestOptionsText(view: DatabaseView): string | null {
  return view.options ? readFileSync(view.options.path, 'latin1') : null
}

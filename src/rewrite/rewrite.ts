/**
 * Rewriting a table: the same entries (keys, sequence numbers, types, values,
 * range tombstones) in a new physical form, or (`ingestible`) the input's view
 * as a file IngestExternalFile accepts (ingestible.ts). An input that verify
 * flags is refused unless `salvage` asks for what can still be read
 * (salvage.ts). Output goes to a temporary file next to the destination, is
 * read back and compared entry by entry, and only then renamed into place; on
 * any failure the temporary file is removed.
 */
import { closeSync, existsSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { clearStaleTemporaries, runStart, temporaryPath } from '../util/temp-file.js'
import { SstkitError, transferable } from '../errors.js'
import { CorruptionError } from '../format/errors.js'
import { openTable, requireInternalKeys, type Table, type TableIterator } from '../table/reader.js'
import { MAX_PROBLEMS, verifyFile, verifyTable } from '../verify/verify.js'
import { copyIngestible, type Entry, type EntrySink, ingestibleNotes, isExternalFile } from './ingestible.js'
import { EntryDigest, tee } from './entry-digest.js'
import { newSalvageLog, type SalvageLog, salvagedEntries, salvagedTombstones, salvageNotes, storedEntries } from './salvage.js'
import type { RangeTombstone } from '../format/range-del.js'
import { CountingSink, FileSink, type TableSink, TableWriter, type WriteSummary } from '../table/writer.js'
import { type RewriteOptions, wholeBlock, writerOptionsFor } from './writer-options.js'
import { ValueType } from '../format/value-type.js'
import { compressionSetting } from '../codec/setting.js'
import { equalBytes } from '../format/coding.js'
import { type BlobRemap, remapBlobIndex } from './blob-files.js'

export type { RewriteOptions } from './writer-options.js'

export interface RewriteResult extends WriteSummary {
  input: string
  output: string
  inputSize: number
  formatVersion: number
  ms: number
  /** Things the rewrite could not carry over, said plainly. */
  notes: string[]
  /** --salvage found damage and wrote what still reads (the notes say what was dropped). */
  salvaged: boolean
  /** The entries' sequence numbers, smallest and largest (decimal; null: no entry). */
  seqnos: { smallest: string; largest: string } | null
}

/** `sstkit rewrite`'s defaults (zstd at its default level, 4 KiB blocks, RocksDB's dictionary and acceptance settings), with overrides. */
export function defaultRewriteOptions(overrides: Partial<RewriteOptions> = {}): RewriteOptions {
  const { dict: _file, ...setting } = compressionSetting()
  void _file
  return {
    ...setting,
    dict: 'none',
    blockSize: 4096,
    restartInterval: 16,
    index: 'binary',
    metadataBlockSize: 4096,
    verify: true,
    force: false,
    ...overrides,
  }
}

/** A rewrite that cannot be done (usage: it would overwrite; io: the output cannot be written) or whose output fails verification (corruption). */
export class RewriteError extends SstkitError {
  override name = 'RewriteError'
}
transferable(RewriteError)

/**
 * Feed every entry of `table` (as stored: global seqno not applied) into
 * `writer`: re-cut by size, or block by block keeping the file's boundaries.
 */
export function copyEntries(table: Table, writer: TableWriter, keepBlocks = false): void {
  if (!keepBlocks) {
    feedEntries(table, {}, writer)
    return
  }
  const tombstones = table.rangeTombstones({ applyGlobalSeqno: false })
  for (const ref of table.dataBlocks()) {
    const raw = table.readBlock(ref.handle, 'data block', true)
    const whole = wholeBlock(raw, ref.handle.offset, table.dataRestartInterval)
    if (whole) writer.addDataBlock(raw.slice(), whole.first, whole.last, whole.stats)
  }
  for (const t of tombstones) writer.addRangeTombstone(t.internalKey, t.end)
}

/**
 * The entries a rewrite writes, into `sink`: every entry and range tombstone
 * as stored, or what salvage still reads (`log` set), or their ingestible
 * form. Returns what the ingestible form left out, said plainly.
 */
export function feedEntries(table: Table, o: Pick<RewriteOptions, 'ingestible'>, sink: EntrySink, log?: SalvageLog): string[] {
  const entries: Iterable<Entry> = log ? salvagedEntries(table, log) : storedEntries(table)
  const tombstones: RangeTombstone[] = log ? salvagedTombstones(table, log) : table.rangeTombstones({ applyGlobalSeqno: false })
  if (o.ingestible) {
    const report = copyIngestible(table, entries, tombstones, sink)
    if (report.keys + report.rangeTombstones === 0)
      throw new RewriteError('usage', 'nothing to ingest: no user key or range tombstone is left at its newest version')
    return ingestibleNotes(report)
  }
  for (const e of entries) sink.add(e.key, e.value)
  for (const t of tombstones) sink.addRangeTombstone(t.internalKey, t.end)
  return []
}

/** Exact size of the rewritten file, without writing it (for recompress). */
export function rewrittenSize(input: string, o: Omit<RewriteOptions, 'verify' | 'force'>): WriteSummary {
  const table = openTable(input)
  requireInternalKeys(table, 'rewrite')
  try {
    const writer = new TableWriter(new CountingSink(), writerOptionsFor(table, o, []))
    copyEntries(table, writer, o.keepBlocks)
    return writer.finish()
  } finally {
    table.close()
  }
}

export function rewriteFile(input: string, output: string, o: RewriteOptions): RewriteResult {
  const t0 = performance.now()
  if (resolve(input) === resolve(output) || sameFile(input, output)) throw new RewriteError('usage', `refusing to write over the input file ${input}`)
  if (existsSync(output) && !o.force) throw new RewriteError('usage', `${output} exists (use --force to replace it)`)
  if (o.keepBlocks && (o.ingestible || o.salvage || o.blobRemaps?.length))
    throw new RewriteError('usage', 'keepBlocks cannot be combined with ingestible, salvage or moved blob indexes (they change the blocks)')
  if (o.keepBlocks && o.separateKeyValue !== undefined)
    throw new RewriteError('usage', 'keepBlocks cannot be combined with separateKeyValue (the kept blocks keep their layout)')
  const notes: string[] = []
  const log = checkInput(input, o.salvage ?? false, notes)
  const table = log ? openForSalvage(input) : openTable(input)
  try {
    requireInternalKeys(table, 'rewrite')
  } catch (e) {
    unopenableInputs.add(e as object) // not a finding in the input: a table rewrite cannot take (exit 2)
    throw e
  }
  // What earlier runs left beside OUT (killed before they could remove it) goes first.
  clearStaleTemporaries(dirname(output), runStart)
  const tmp = temporaryPath(output)
  let fd = -1
  let writer: TableWriter | null = null
  try {
    const options = { ...writerOptionsFor(table, o, notes), spill: { dir: dirname(output), memoryBytes: o.spillMemoryBytes } }
    fd = onOutput(output, () => openSync(tmp, 'wx'))
    const file = new FileSink(fd)
    // Errors writing the output are reported against OUT, not the temporary file (e.g. ENOSPC).
    const sink: TableSink = { write: (bytes) => onOutput(output, () => file.write(bytes)) }
    writer = new TableWriter(sink, options)
    // What the writer is fed, digested: the check of the written file needs no second pass over the input.
    const fed = o.keepBlocks ? null : new EntryDigest()
    const remaps = o.blobRemaps?.length ? new Map(o.blobRemaps.map((r) => [r.fileNumber, r])) : null
    if (fed) notes.push(...feedEntries(table, o, remapped(tee(writer, fed), remaps), log ?? undefined))
    else copyEntries(table, writer, true)
    if (log) {
      notes.push(...salvageNotes(log))
      if (writer.isEmpty) throw new RewriteError('corruption', `cannot salvage: no entry of the input could be read (${notes[notes.length - 1]})`)
    }
    if (!o.ingestible && !isExternalFile(table)) notes.push(NOT_INGESTIBLE)
    const seqnos = writer.seqnoRange
    const summary = writer.finish()
    onOutput(output, () => fsyncSync(fd))
    closeSync(fd)
    fd = -1
    if (o.verify) verifyRewrite(table, tmp, fed)
    onOutput(output, () => renameSync(tmp, output))
    return {
      ...summary,
      input,
      output,
      inputSize: table.fileSize,
      formatVersion: options.formatVersion,
      ms: performance.now() - t0,
      notes,
      salvaged: log !== null,
      seqnos,
    }
  } catch (e) {
    writer?.abort()
    if (fd >= 0) closeSync(fd)
    rmSync(tmp, { force: true })
    throw e
  } finally {
    table.close()
  }
}

/** `sink` with each blob index into a remapped blob file moved (blob-files.ts); `sink` itself when there is none. */
function remapped(sink: EntrySink, remaps: ReadonlyMap<number, BlobRemap> | null): EntrySink {
  if (!remaps) return sink
  return {
    add: (key, value) => {
      // The type is the low byte of the little-endian trailer (seq << 8 | type).
      const moved = key.length >= 8 && key[key.length - 8] === ValueType.BlobIndex ? remapBlobIndex(value, remaps) : null
      sink.add(key, moved ?? value)
    },
    addRangeTombstone: (start, end) => sink.addRangeTombstone(start, end),
  }
}

/** A damaged input for salvage: damage in the blocks every read needs (footer, metaindex, properties) leaves nothing to salvage. */
function openForSalvage(input: string): Table {
  try {
    return openTable(input)
  } catch (e) {
    if (e instanceof CorruptionError) throw new RewriteError('corruption', `cannot salvage: ${e.message}`, { cause: e })
    throw e
  }
}

/** Why a plain rewrite of a DB's file cannot be ingested, and what can. */
export const NOT_INGESTIBLE =
  'the output is not ingestible (IngestExternalFile needs rocksdb.external_sst_file.version and every entry at sequence number 0; this is a DB file): use --ingestible'

/**
 * Verify the input as `sstkit verify` does: a damaged input is refused (a
 * corruption RewriteError) unless salvaging, which then starts a log of
 * what it drops. Null when the input is clean.
 */
/** Errors that meant the input never opened as a table (not damage found inside one). */
const unopenableInputs = new WeakSet<object>()

/** Whether rewriteFile threw `e` because its input could not be opened as a table at all (exit 2, as for any command). */
export function isUnopenableInput(e: unknown): boolean {
  return typeof e === 'object' && e !== null && unopenableInputs.has(e)
}

function checkInput(input: string, salvage: boolean, notes: string[]): SalvageLog | null {
  const v = verifyFile(input)
  if (v.kind === 'unopenable') {
    if (typeof v.error === 'object' && v.error !== null) unopenableInputs.add(v.error)
    throw v.error
  }
  if (v.kind === 'ok') return null
  const p = v.problems[0]
  // The refusal stays one short line: the first problem's message up to 120 characters (verify tells the rest).
  const message = p.message.length > 120 ? `${p.message.slice(0, 117)}...` : p.message
  const first = `${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${message}`
  const count = `${v.problems.length}${v.problems.length >= MAX_PROBLEMS ? '+' : ''} problem${v.problems.length === 1 ? '' : 's'}`
  if (!salvage)
    throw new RewriteError(
      'corruption',
      `refusing to rewrite a damaged input: verify finds ${count} (first: ${first}); --salvage writes what can still be read`,
    )
  notes.push(`salvage: the input has ${count} (first: ${first})`)
  return newSalvageLog()
}

/** Whether both paths lead to one existing file (e.g. the input is a symlink to OUT). */
function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

/** Run a file-system step on the output; its errors become one clear line about OUT. */
function onOutput<T>(output: string, step: () => T): T {
  try {
    return step()
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (!(e instanceof Error) || typeof err.code !== 'string' || err.syscall === undefined) throw e
    const reason = /^[A-Z0-9_]+: ([^,]+)/.exec(err.message)?.[1] ?? err.message
    const hint = err.code === 'ENOENT' && !existsSync(dirname(output)) ? ` (directory ${dirname(output)} does not exist)` : ''
    throw new RewriteError('io', `cannot write ${output}: ${reason} (${err.code})${hint}`, { file: output, cause: e })
  }
}

/**
 * Read the new file back: every checksum, then every entry against what the
 * writer was fed (its digest), or, for whole blocks kept as they were, against
 * the input's entries read again.
 */
function verifyRewrite(input: Table, written: string, fed: EntryDigest | null): void {
  const out = openTable(written, { verifyChecksums: true })
  try {
    const v = verifyTable(out)
    if (!v.ok) {
      const p = v.problems[0]
      throw new RewriteError(
        'corruption',
        `verification of the written file failed: ${p.block}${p.offset !== null ? ` at offset ${p.offset}` : ''}: ${p.message}`,
      )
    }
    if (fed) {
      const got = new EntryDigest()
      feedEntries(out, {}, got)
      if (got.points !== fed.points || got.tombstones !== fed.tombstones || got.finish() !== fed.finish()) {
        throw new RewriteError(
          'corruption',
          `verification failed: the written file's ${got.points} entries and ${got.tombstones} range tombstones differ from the ${fed.points} and ${fed.tombstones} written`,
        )
      }
      return
    }
    const expected = new ComparingSink(out)
    feedEntries(input, {}, expected)
    expected.end()
  } catch (e) {
    if (e instanceof CorruptionError) throw new RewriteError('corruption', `verification of the written file failed: ${e.message}`)
    throw e
  } finally {
    out.close()
  }
}

/** An entry sink that checks each entry against the next one of a written table. */
class ComparingSink implements EntrySink {
  private readonly it: TableIterator
  private readonly tombstones: RangeTombstone[]
  private entries = 0
  private tombstoneCount = 0

  constructor(table: Table) {
    this.it = table.iterator({ applyGlobalSeqno: false })
    this.it.seekToFirst()
    this.tombstones = table.rangeTombstones({ applyGlobalSeqno: false })
  }

  add(key: Uint8Array, value: Uint8Array): void {
    const b = this.it
    if (!b.valid) throw new RewriteError('corruption', `verification failed: the written file ends after ${this.entries} entries`)
    if (!equalBytes(key, b.key) || !equalBytes(value, b.value))
      throw new RewriteError('corruption', `verification failed: entry ${this.entries} differs from the input`)
    b.next()
    this.entries++
  }

  addRangeTombstone(internalStartKey: Uint8Array, endUserKey: Uint8Array): void {
    const i = this.tombstoneCount++
    const t = this.tombstones[i]
    if (!t || !equalBytes(t.internalKey, internalStartKey) || !equalBytes(t.end, endUserKey)) {
      throw new RewriteError('corruption', `verification failed: range tombstone ${i} differs from the input`)
    }
  }

  end(): void {
    if (this.it.valid) throw new RewriteError('corruption', `verification failed: the written file has more than ${this.entries} entries`)
    if (this.tombstoneCount !== this.tombstones.length) {
      throw new RewriteError('corruption', `verification failed: ${this.tombstones.length} range tombstones written, ${this.tombstoneCount} expected`)
    }
  }
}

export function fileSize(path: string): number {
  return statSync(path).size
}

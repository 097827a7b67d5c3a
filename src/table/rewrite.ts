/**
 * Rewriting a table: the same entries (keys, sequence numbers, types, values,
 * range tombstones) in a new physical form. Output goes to a temporary file
 * next to the destination, is read back and compared entry by entry, and only
 * then renamed into place; on any failure the temporary file is removed.
 */
import { closeSync, existsSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { RateDecider, RatioDecider } from '../recompress/auto-skip.js'
import { prng } from '../util/prng.js'
import {
  BLOCK_BASED_FILTER_PREFIX,
  FULL_FILTER_PREFIX,
  HASH_INDEX_METADATA_BLOCK,
  HASH_INDEX_PREFIXES_BLOCK,
  PARTITIONED_FILTER_PREFIX,
} from '../format/metaindex.js'
import { SstkitError, transferable } from '../errors.js'
import { CorruptionError } from '../format/errors.js'
import { openTable, type Table } from './reader.js'
import { verifyTable } from './verify.js'
import { type BlockEntryStats, CountingSink, FileSink, type TableSink, TableWriter, type TableWriterOptions, type WriteSummary } from './writer.js'
import { BlockIter } from '../format/block.js'
import { parseInternalKey } from '../format/internal-key.js'
import { ValueType } from '../format/value-type.js'
import { compressionSetting } from '../codec/setting.js'
import { Property } from '../format/properties.js'

export type RewriteOptions = Omit<TableWriterOptions, 'filter' | 'baseProperties' | 'dropProperties' | 'formatVersion' | 'checksumType'> & {
  /** Default: the input's format_version, or 5 for older inputs. */
  formatVersion?: number
  /** Default: the input's checksum type (CRC32c for format_version 0). */
  checksumType?: number
  verify: boolean
  force: boolean
  /** Keep the input's data block boundaries (blockSize is then unused). */
  keepBlocks?: boolean
  /** Apply auto-skip decisions while writing. */
  autoSkip?: 'rate' | 'ratio'
  minSampleEvery?: number
  seed?: number
}

export interface RewriteResult extends WriteSummary {
  input: string
  output: string
  inputSize: number
  formatVersion: number
  ms: number
  /** Things the rewrite could not carry over, said plainly. */
  notes: string[]
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

/** Output format_version when not given: keep the input's, but at least 2 (older framings are not written). */
export function defaultFormatVersion(input: number): number {
  return input >= 2 ? input : 5
}

/** The writer options that rewrite `table` under `o`: its properties, filter and comparator carried over. */
export function writerOptionsFor(table: Table, o: Omit<RewriteOptions, 'verify' | 'force'>, notes: string[]): TableWriterOptions {
  const formatVersion = o.formatVersion ?? defaultFormatVersion(table.formatVersion)
  const checksumType = o.checksumType ?? table.footer.checksumType
  const base = new Map<string, Uint8Array>()
  for (const p of table.properties.raw) base.set(p.name, p.value)
  // RocksDB derives a file's unique ID (and its block cache keys) from the DB session ID and file
  // number: a rewritten copy must not share them with its original.
  base.set(Property.CreatingSessionIdentity, new TextEncoder().encode(newSessionId()))
  const drop: string[] = []
  let filter: TableWriterOptions['filter']
  const f = table.metaindexEntries.find((e) => e.name.startsWith(FULL_FILTER_PREFIX))
  if (f) {
    // A full filter depends only on the keys, which a rewrite keeps: carry it over verbatim.
    filter = { metaName: f.name, bytes: table.readBlock(f.handle, 'filter block').slice() }
  } else if (table.metaindexEntries.some((e) => e.name.startsWith(PARTITIONED_FILTER_PREFIX) || e.name.startsWith(BLOCK_BASED_FILTER_PREFIX))) {
    notes.push('the input has a partitioned (or obsolete block-based) filter, whose partitions follow the old index: it was dropped, not rebuilt')
    drop.push(Property.FilterPolicy, Property.NumFilterEntries, Property.BlockBasedTableDecoupledPartitionedFilters)
  }
  if (table.metaindexEntries.some((e) => e.name === HASH_INDEX_PREFIXES_BLOCK || e.name === HASH_INDEX_METADATA_BLOCK)) {
    notes.push('the input used a hash-search index; the output uses a binary-search index (the prefix hash blocks were dropped)')
  }
  const { keepBlocks: _keep, autoSkip, minSampleEvery, seed, ...rest } = o as RewriteOptions
  void _keep
  const random = prng(seed ?? 0)
  const skip =
    autoSkip === 'rate' ? new RateDecider(random) : autoSkip === 'ratio' ? new RatioDecider(random, o.maxCompressedBytesPerKb, minSampleEvery) : rest.skip
  return {
    ...rest,
    skip,
    formatVersion,
    checksumType,
    filter,
    baseProperties: base,
    dropProperties: drop,
    shortenSeparators: table.comparatorName === 'leveldb.BytewiseComparator',
  }
}

/** A session ID in RocksDB's shape: 20 characters of [0-9A-Z]. */
export function newSessionId(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
  return Array.from(randomBytes(20), (b) => alphabet[b % 36]).join('')
}

/**
 * Feed every entry of `table` (as stored: global seqno not applied) into
 * `writer`: re-cut by size, or block by block keeping the file's boundaries.
 */
export function copyEntries(table: Table, writer: TableWriter, keepBlocks = false): void {
  const tombstones = table.rangeTombstones({ applyGlobalSeqno: false })
  if (keepBlocks) {
    for (const ref of table.dataBlocks()) {
      const raw = table.readBlock(ref.handle, 'data block', true)
      const whole = wholeBlock(raw, ref.handle.offset, table.dataRestartInterval)
      if (whole) writer.addDataBlock(raw.slice(), whole.first, whole.last, whole.stats)
    }
  } else {
    const it = table.iterator({ applyGlobalSeqno: false })
    for (it.seekToFirst(); it.valid; it.next()) writer.add(it.key, it.value)
  }
  for (const t of tombstones) writer.addRangeTombstone(t.internalKey, t.end)
}

/** First and last key of a data block, and its entries' counts; null for an empty block. */
export function wholeBlock(raw: Uint8Array, offset: number, restartInterval: number): { first: Uint8Array; last: Uint8Array; stats: BlockEntryStats } | null {
  const it = new BlockIter(raw, offset, 'data block', restartInterval)
  const stats: BlockEntryStats = { entries: 0, deletions: 0, merges: 0, rawKeyBytes: 0, rawValueBytes: 0, smallestSeq: null, largestSeq: null }
  let first: Uint8Array | null = null
  let last: Uint8Array | null = null
  for (it.seekToFirst(); it.valid; it.next()) {
    const key = it.key
    first ??= key.slice()
    last = key
    const p = parseInternalKey(key, offset + it.entryOffset)
    stats.entries++
    stats.rawKeyBytes += key.length
    stats.rawValueBytes += it.valueEnd - it.valueStart
    if (p.type === ValueType.Deletion || p.type === ValueType.SingleDeletion || p.type === ValueType.DeletionWithTimestamp) stats.deletions++
    if (p.type === ValueType.Merge) stats.merges++
    if (stats.smallestSeq === null || p.seq < stats.smallestSeq) stats.smallestSeq = p.seq
    if (stats.largestSeq === null || p.seq > stats.largestSeq) stats.largestSeq = p.seq
  }
  return first && last ? { first, last: last.slice(), stats } : null
}

/** Exact size of the rewritten file, without writing it (for recompress). */
export function rewrittenSize(input: string, o: Omit<RewriteOptions, 'verify' | 'force'>): WriteSummary {
  const table = openTable(input)
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
  const table = openTable(input)
  const notes: string[] = []
  const tmp = join(dirname(output), `.${basename(output)}.sstkit-${process.pid}-${Date.now()}.tmp`)
  let fd = -1
  try {
    const options = writerOptionsFor(table, o, notes)
    fd = onOutput(output, () => openSync(tmp, 'wx'))
    const file = new FileSink(fd)
    // Errors writing the output are reported against OUT, not the temporary file (e.g. ENOSPC).
    const sink: TableSink = { write: (bytes) => onOutput(output, () => file.write(bytes)) }
    const writer = new TableWriter(sink, options)
    copyEntries(table, writer, o.keepBlocks)
    const summary = writer.finish()
    onOutput(output, () => fsyncSync(fd))
    closeSync(fd)
    fd = -1
    if (o.verify) verifyRewrite(table, tmp)
    onOutput(output, () => renameSync(tmp, output))
    return {
      ...summary,
      input,
      output,
      inputSize: table.fileSize,
      formatVersion: options.formatVersion,
      ms: performance.now() - t0,
      notes,
    }
  } catch (e) {
    if (fd >= 0) closeSync(fd)
    rmSync(tmp, { force: true })
    throw e
  } finally {
    table.close()
  }
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

/** Read the new file back: every checksum, then every entry against the input. */
function verifyRewrite(input: Table, written: string): void {
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
    const a = input.iterator({ applyGlobalSeqno: false })
    const b = out.iterator({ applyGlobalSeqno: false })
    let n = 0
    for (a.seekToFirst(), b.seekToFirst(); a.valid; a.next(), b.next(), n++) {
      if (!b.valid) throw new RewriteError('corruption', `verification failed: the written file ends after ${n} entries`)
      if (Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)) !== 0 || Buffer.compare(Buffer.from(a.value), Buffer.from(b.value)) !== 0) {
        throw new RewriteError('corruption', `verification failed: entry ${n} differs from the input`)
      }
    }
    if (b.valid) throw new RewriteError('corruption', `verification failed: the written file has more than ${n} entries`)
    const ta = input.rangeTombstones({ applyGlobalSeqno: false })
    const tb = out.rangeTombstones({ applyGlobalSeqno: false })
    if (ta.length !== tb.length) throw new RewriteError('corruption', `verification failed: ${tb.length} range tombstones written, ${ta.length} in the input`)
    ta.forEach((t, i) => {
      if (
        Buffer.compare(Buffer.from(t.internalKey), Buffer.from(tb[i].internalKey)) !== 0 ||
        Buffer.compare(Buffer.from(t.end), Buffer.from(tb[i].end)) !== 0
      ) {
        throw new RewriteError('corruption', `verification failed: range tombstone ${i} differs from the input`)
      }
    })
  } catch (e) {
    if (e instanceof CorruptionError) throw new RewriteError('corruption', `verification of the written file failed: ${e.message}`)
    throw e
  } finally {
    out.close()
  }
}

export function fileSize(path: string): number {
  return statSync(path).size
}

/**
 * What a rewritten table is written with: the writer options that carry a table's properties,
 * filter and comparator over (writerOptionsFor), a fresh session ID, and a stored block's keys and
 * counts for writing it whole. Apart from rewrite.ts, which verifies what it writes, so that
 * recompress and advise load no verifier.
 */
import { RateDecider, RatioDecider } from '../codec/auto-skip.js'
import { BlockIter } from '../format/block.js'
import { defaultFormatVersion } from '../format/footer.js'
import { parseInternalKey } from '../format/internal-key.js'
import {
  BLOCK_BASED_FILTER_PREFIX,
  FULL_FILTER_PREFIX,
  HASH_INDEX_METADATA_BLOCK,
  HASH_INDEX_PREFIXES_BLOCK,
  PARTITIONED_FILTER_PREFIX,
} from '../format/metaindex.js'
import { Property } from '../format/properties.js'
import { ValueType } from '../format/value-type.js'
import type { Table } from '../table/reader.js'
import type { BlockEntryStats, TableWriterOptions } from '../table/writer.js'
import { prng } from '../util/prng.js'
import { ingestibleProperties } from './ingestible.js'
import type { BlobRemap } from './blob-files.js'

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
  /** Write what IngestExternalFile accepts: the newest entry of each user key at sequence number 0 (ingestible.ts). */
  ingestible?: boolean
  /** Rewrite an input verify flags: keep the blocks that read, say what was dropped (salvage.ts). */
  salvage?: boolean
  /** Blocks buffered for a dictionary stay in memory up to this (default 4 MiB), then spill next to the output. */
  spillMemoryBytes?: number
  /** Blob files written again (blob-files.ts): every blob index pointing into one is moved to its record's new offset, size and compression. */
  blobRemaps?: BlobRemap[]
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
    // A full filter depends only on the keys, which a rewrite keeps (an ingestible or salvaged
    // copy keeps a subset, for which the filter stays correct): carry it over verbatim.
    try {
      filter = { metaName: f.name, bytes: table.readBlock(f.handle, 'filter block').slice() }
    } catch (e) {
      if (!o.salvage) throw e
      notes.push(`salvage: dropped the damaged filter (${e instanceof Error ? e.message : String(e)})`)
      drop.push(Property.FilterPolicy, Property.NumFilterEntries)
    }
  } else if (table.metaindexEntries.some((e) => e.name.startsWith(PARTITIONED_FILTER_PREFIX) || e.name.startsWith(BLOCK_BASED_FILTER_PREFIX))) {
    notes.push('the input has a partitioned (or obsolete block-based) filter, whose partitions follow the old index: it was dropped, not rebuilt')
    drop.push(Property.FilterPolicy, Property.NumFilterEntries, Property.BlockBasedTableDecoupledPartitionedFilters)
  }
  if (table.metaindexEntries.some((e) => e.name === HASH_INDEX_PREFIXES_BLOCK || e.name === HASH_INDEX_METADATA_BLOCK)) {
    notes.push('the input used a hash-search index; the output uses a binary-search index (the prefix hash blocks were dropped)')
  }
  if (o.ingestible) ingestibleProperties(base)
  const {
    keepBlocks: _keep,
    autoSkip,
    minSampleEvery,
    seed,
    ingestible: _ing,
    salvage: _salvage,
    spillMemoryBytes: _spill,
    blobRemaps: _remaps,
    ...rest
  } = o as RewriteOptions
  void [_keep, _ing, _salvage, _spill, _remaps]
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

/**
 * A session ID in RocksDB's shape: 20 characters of [0-9A-Z], unique rather than secret (RocksDB
 * draws it from its own generator): Math.random, seeded per isolate from the system's entropy;
 * node:crypto's load was ~10 ms of CPU of every recompress on a small file.
 */
export function newSessionId(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
  let id = ''
  for (let i = 0; i < 20; i++) id += alphabet[Math.floor(Math.random() * 36)]
  return id
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

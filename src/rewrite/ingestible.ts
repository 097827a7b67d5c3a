/**
 * An ingestible copy of a table: what RocksDB's IngestExternalFile accepts
 * (`db/external_sst_file_ingestion_job.cc`, 7.8.3) and SstFileWriter writes
 * (`table/sst_file_writer.cc`): the properties rocksdb.external_sst_file.version
 * = 2 and rocksdb.external_sst_file.global_seqno = 0, every entry at sequence
 * number 0, one point entry per user key (keys strictly increasing), range
 * tombstones in the range-deletion block.
 *
 * The input's view is kept: each user key's newest entry, unless a newer
 * range tombstone of the file covers it. At one sequence number a file's
 * tombstones do not cover its own point entries (RocksDB covers only older
 * ones), so every tombstone is kept and the point entries it covered are left
 * out. What cannot be carried over is counted and said in the notes.
 */
import { compareBytes } from '../format/coding.js'
import { encodeInternalKey, INTERNAL_KEY_TRAILER_BYTES, parseInternalKey, type SequenceNumber } from '../format/internal-key.js'
import { splitValuePreferredSeqno } from '../format/preferred-seqno.js'
import { encodePropertyNumber, encodePropertyString, Property } from '../format/properties.js'
import type { RangeTombstone } from '../format/range-del.js'
import { ValueType } from '../format/value-type.js'
import { SstkitError } from '../errors.js'
import type { Table } from '../table/reader.js'
import type { TableWriter } from '../table/writer.js'

/** Where entries go: a TableWriter, or a comparison against a written file. */
export type EntrySink = Pick<TableWriter, 'add' | 'addRangeTombstone'>

/** A point entry as stored (internal key, value); views valid until the next one. */
export interface Entry {
  key: Uint8Array
  value: Uint8Array
}

/** What an ingestible copy kept and left out. */
export interface IngestibleReport {
  /** User keys written, one point entry each. */
  keys: number
  /** Entries left out because a newer entry of the same user key was kept. */
  olderVersions: number
  /** User keys whose newest entry a newer range tombstone of the file covers: left out (the tombstone is kept). */
  coveredKeys: number
  /** Single deletes written as deletes (SstFileWriter writes no single deletes). */
  singleDeletes: number
  /** User keys left out: their newest entries are merge operands that only the merge operator can resolve. */
  unresolvedMerges: number
  /** The first few of those keys, printable (quoted text or 0x hex). */
  unresolvedMergeKeys: string[]
  /** User keys left out: their newest value is stored in a blob file, which the copy does not carry. */
  blobValues: number
  /** User keys left out: their newest entry is a wide-column entity, which SstFileWriter 7.8.3 does not write (and 7.8.3 cannot read in an ingested file). */
  entities: number
  /** TimedPut values (kTypeValuePreferredSeqno) written as plain puts: the preferred seqno belongs to the input's sequence numbers. */
  timedPuts: number
  /** User keys left out: their newest entry has a type no SST file should hold (counted, never written). */
  otherTypes: number
  /** Range tombstones written at sequence number 0. */
  rangeTombstones: number
}

/** kUnknownColumnFamily: ingestible into any column family (SstFileWriter without a handle). */
export const UNKNOWN_COLUMN_FAMILY = 0x7fffffff

/** How many unresolved merge keys a note names. */
const NAMED_KEYS = 3

/**
 * The properties SstFileWriter 7.8.3 writes where a DB file says something
 * else: the external-file version and global seqno, no column family, db id
 * "SST Writer", file number 1, no times (every key's time is its ingestion's).
 */
export function ingestibleProperties(base: Map<string, Uint8Array>): void {
  const version = new Uint8Array(4)
  new DataView(version.buffer).setUint32(0, 2, true)
  base.set(Property.ExternalSstFileVersion, version)
  base.set(Property.ExternalSstFileGlobalSeqno, new Uint8Array(8))
  base.set(Property.ColumnFamilyId, encodePropertyNumber(UNKNOWN_COLUMN_FAMILY))
  base.delete(Property.ColumnFamilyName)
  base.set(Property.CreatingDbIdentity, encodePropertyString('SST Writer'))
  base.set(Property.OriginalFileNumber, encodePropertyNumber(1))
  for (const p of [Property.CreationTime, Property.OldestKeyTime, Property.FileCreationTime]) base.set(p, encodePropertyNumber(0))
  // Sequence numbers to times: the input's sequence numbers are gone.
  base.delete(Property.SeqnoTimeMap)
  base.delete(Property.NewestKeyTime)
}

/** Whether `table` is already an external file (what plain rewrite keeps ingestible). */
export function isExternalFile(table: Table): boolean {
  return table.properties.raw.some((p) => p.name === Property.ExternalSstFileVersion)
}

/**
 * Feed `table`'s view (its `entries` as stored, in order, and its range
 * `tombstones`) into `writer` as an ingestible file: the newest entry of
 * each user key at sequence number 0 and every range tombstone at 0.
 * Holds one user key's newest entry at a time, whatever the file size.
 */
export function copyIngestible(table: Table, entries: Iterable<Entry>, tombstones: RangeTombstone[], writer: EntrySink): IngestibleReport {
  const compare = table.userComparator
  if (tombstones.length > 0 && !compare) {
    throw new SstkitError('not-supported', `cannot make an ingestible copy: range tombstones under the unknown comparator "${table.comparatorName}"`)
  }
  const covers = coverage(tombstones, compare ?? compareBytes)
  const report: IngestibleReport = {
    keys: 0,
    olderVersions: 0,
    coveredKeys: 0,
    singleDeletes: 0,
    unresolvedMerges: 0,
    unresolvedMergeKeys: [],
    blobValues: 0,
    entities: 0,
    timedPuts: 0,
    otherTypes: 0,
    rangeTombstones: 0,
  }
  let group: KeyGroup | null = null
  for (const { key, value } of entries) {
    const userKey = key.subarray(0, key.length - INTERNAL_KEY_TRAILER_BYTES)
    const { seq, type } = parseInternalKey(key)
    if (group && compareBytes(group.userKey, userKey) === 0) {
      group.older++
      // Only a chain of merge operands down to the first base (or covered entry) matters.
      if (group.open) {
        if (covers(userKey, seq)) group.open = false
        else if (type === ValueType.Merge) group.merges++
        else {
          group.open = false
          group.base = true
        }
      }
      continue
    }
    if (group) emit(group, writer, report)
    const covered = covers(userKey, seq)
    group = {
      userKey: userKey.slice(),
      type,
      value: value.slice(),
      covered,
      older: 0,
      merges: type === ValueType.Merge ? 1 : 0,
      open: type === ValueType.Merge && !covered,
      base: false,
    }
  }
  if (group) emit(group, writer, report)
  for (const t of sortedUnique(tombstones, compare ?? compareBytes)) {
    writer.addRangeTombstone(encodeInternalKey(t.start, 0, ValueType.RangeDeletion), t.end)
    report.rangeTombstones++
  }
  return report
}

/** One user key's entries, newest first, as far as the decision needs them. */
interface KeyGroup {
  userKey: Uint8Array
  /** The newest entry. */
  type: number
  value: Uint8Array
  covered: boolean
  /** Entries after the newest one. */
  older: number
  /** Merge operands from the newest down, before a base or a covered entry. */
  merges: number
  /** Still reading the merge chain. */
  open: boolean
  /** The chain ended on a put, delete or other base entry. */
  base: boolean
}

function emit(g: KeyGroup, writer: EntrySink, report: IngestibleReport): void {
  report.olderVersions += g.older
  if (g.covered) {
    report.coveredKeys++
    return
  }
  if (g.type === ValueType.BlobIndex) {
    report.blobValues++
    return
  }
  if (g.type === ValueType.WideColumnEntity) {
    report.entities++
    return
  }
  if (g.type === ValueType.Merge && (g.merges > 1 || g.base)) {
    // A lone operand (over nothing, or over what a kept tombstone deletes) merges in the
    // target DB as it did here; a chain or an operand over a base needs the merge operator.
    report.unresolvedMerges++
    if (report.unresolvedMergeKeys.length < NAMED_KEYS) report.unresolvedMergeKeys.push(printable(g.userKey))
    return
  }
  let type = g.type
  let value = g.value
  if (type === ValueType.SingleDeletion) {
    type = ValueType.Deletion
    report.singleDeletes++
  } else if (type === ValueType.ValuePreferredSeqno) {
    type = ValueType.Value
    value = splitValuePreferredSeqno(value).value
    report.timedPuts++
  } else if (!WRITTEN_TYPES.has(type)) {
    report.otherTypes++
    return
  }
  writer.add(encodeInternalKey(g.userKey, 0, type), value)
  report.keys++
}

/** The point types SstFileWriter 7.8.3 writes (its Add asserts on any other). */
const WRITTEN_TYPES: ReadonlySet<number> = new Set([ValueType.Value, ValueType.Merge, ValueType.Deletion, ValueType.DeletionWithTimestamp])

/**
 * covers(userKey, seq): whether a tombstone newer than `seq` covers the key.
 * Keys come in increasing order, so tombstones enter an active set by start
 * and leave it by end.
 */
function coverage(tombstones: RangeTombstone[], compare: (a: Uint8Array, b: Uint8Array) => number): (userKey: Uint8Array, seq: SequenceNumber) => boolean {
  if (tombstones.length === 0) return () => false
  const byStart = [...tombstones].sort((a, b) => compare(a.start, b.start))
  let next = 0
  let active: RangeTombstone[] = []
  let lastKey: Uint8Array | null = null
  return (userKey, seq) => {
    if (lastKey === null || compare(lastKey, userKey) !== 0) {
      while (next < byStart.length && compare(byStart[next].start, userKey) <= 0) active.push(byStart[next++])
      active = active.filter((t) => compare(userKey, t.end) < 0)
      lastKey = userKey.slice()
    }
    return active.some((t) => BigInt(t.seq) > BigInt(seq))
  }
}

/** Tombstones by start then end, identical ranges once (at one sequence number they are one). */
function sortedUnique(tombstones: RangeTombstone[], compare: (a: Uint8Array, b: Uint8Array) => number): RangeTombstone[] {
  const sorted = [...tombstones].sort((a, b) => compare(a.start, b.start) || compare(a.end, b.end))
  return sorted.filter((t, i) => i === 0 || compare(t.start, sorted[i - 1].start) !== 0 || compare(t.end, sorted[i - 1].end) !== 0)
}

/** A key for a message: quoted when plain printable ASCII, else hex. Never raw bytes. */
export function printable(key: Uint8Array): string {
  const plain = key.every((b) => b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c)
  return plain ? `'${Buffer.from(key).toString('latin1')}'` : `0x${Buffer.from(key).toString('hex')}`
}

/** What an ingestible copy left out and changed, one plain sentence each. */
export function ingestibleNotes(r: IngestibleReport): string[] {
  const notes = [
    `ingestible: ${r.keys} user keys at sequence number 0 (the newest entry of each)${r.rangeTombstones > 0 ? ` and ${r.rangeTombstones} range tombstones` : ''}`,
  ]
  if (r.olderVersions > 0) notes.push(`ingestible: dropped ${r.olderVersions} older versions (entries under a newer entry of the same user key)`)
  if (r.coveredKeys > 0) notes.push(`ingestible: dropped ${r.coveredKeys} user keys a newer range tombstone covers (the tombstones are kept)`)
  if (r.singleDeletes > 0) notes.push(`ingestible: wrote ${r.singleDeletes} single deletes as deletes (SstFileWriter writes no single deletes)`)
  if (r.unresolvedMerges > 0) {
    const more = r.unresolvedMerges > r.unresolvedMergeKeys.length ? ', ...' : ''
    notes.push(
      `ingestible: dropped ${r.unresolvedMerges} user keys whose newest entries are merge operands over older entries (resolving them needs the merge operator): ${r.unresolvedMergeKeys.join(', ')}${more}`,
    )
  }
  if (r.blobValues > 0) notes.push(`ingestible: dropped ${r.blobValues} user keys whose value is in a blob file (not carried over)`)
  if (r.timedPuts > 0) notes.push(`ingestible: wrote ${r.timedPuts} TimedPut values as plain puts (their preferred sequence numbers belong to the input)`)
  if (r.otherTypes > 0) notes.push(`ingestible: dropped ${r.otherTypes} user keys whose newest entry has a type SstFileWriter does not write`)
  if (r.entities > 0) {
    notes.push(
      `ingestible: dropped ${r.entities} user keys whose newest entry is a wide-column entity (SstFileWriter 7.8.3 writes none; 7.8.3 cannot read one in an ingested file)`,
    )
  }
  return notes
}

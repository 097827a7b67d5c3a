import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { blockChecksum, ChecksumType } from '../../src/codec/checksum.js'
import { encodeVarint, fromHex, toHex } from '../../src/format/coding.js'
import { NotSupportedError } from '../../src/format/errors.js'
import { encodeInternalKey, MAX_SEQUENCE_NUMBER } from '../../src/format/internal-key.js'
import { LogReader, LogWriter } from '../../src/format/log-record.js'
import {
  decodeVersionEdit,
  emptyVersionEdit,
  encodeVersionEdit,
  NewFileCustomTag,
  VersionEditTag,
  type NewFileEntry,
  type VersionEdit,
} from '../../src/format/version-edit.js'
import { BufferByteSource } from '../../src/io/byte-source.js'
import { dbFixture, dbGolden, parseManifestDump, type DumpKey } from '../db/ldb.js'
import { catchErr } from './catch-corruption.js'

const crc = (b: Uint8Array) => blockChecksum(ChecksumType.CRC32c, b)

function manifestRecords(db: string) {
  const bytes = readFileSync(join(dbFixture(db), 'MANIFEST-000005'))
  return [...new LogReader(new BufferByteSource(bytes), { name: db, crc }).records()]
}

const ikeyHex = (k: DumpKey) => toHex(encodeInternalKey(fromHex(k.userKeyHex), k.seq, k.type))

describe('VersionEdit: real MANIFESTs (RocksDB 7.8.3 and 11.8.1)', () => {
  it.each(['layered', 'churn', 'v11'])('%s: every record re-encodes to the same bytes', (db) => {
    const records = manifestRecords(db)
    expect(records.length).toBeGreaterThan(15)
    for (const r of records) expect(toHex(encodeVersionEdit(decodeVersionEdit(r.payload)))).toBe(toHex(r.payload))
  })

  it.each(['layered', 'churn', 'v11'])('%s: decoding and re-encoding every edit, then framing them, rebuilds the MANIFEST byte for byte', (db) => {
    const w = new LogWriter({ crc })
    for (const r of manifestRecords(db)) w.addRecord(encodeVersionEdit(decodeVersionEdit(r.payload)))
    expect(Buffer.compare(Buffer.from(w.finish()), readFileSync(join(dbFixture(db), 'MANIFEST-000005')))).toBe(0)
  })

  it.each(['layered', 'churn', 'v11'])('%s: every edit decodes to what ldb manifest_dump printed', (db) => {
    const theirs = parseManifestDump(dbGolden(db, 'manifest_dump')).edits
    const ours = manifestRecords(db).map((r) => decodeVersionEdit(r.payload))
    expect(ours.length).toBe(theirs.length)
    ours.forEach((e, i) => {
      const t = theirs[i]
      expect({
        dbId: e.dbId,
        comparator: e.comparator,
        logNumber: e.logNumber,
        prevLogNumber: e.prevLogNumber,
        nextFileNumber: e.nextFileNumber,
        maxColumnFamily: e.maxColumnFamily,
        minLogNumberToKeep: e.minLogNumberToKeep,
        lastSequence: e.lastSequence,
        columnFamily: e.columnFamily,
        columnFamilyAdd: e.columnFamilyAdd,
        columnFamilyDrop: e.columnFamilyDrop,
        deleted: e.deletedFiles.map((d) => ({ level: d.level, number: d.fileNumber })),
      }).toEqual({
        dbId: t.dbId,
        comparator: t.comparator,
        logNumber: t.logNumber,
        prevLogNumber: t.prevLogNumber,
        nextFileNumber: t.nextFileNumber,
        maxColumnFamily: t.maxColumnFamily,
        minLogNumberToKeep: t.minLogNumberToKeep,
        lastSequence: t.lastSequence,
        columnFamily: t.columnFamily,
        columnFamilyAdd: t.columnFamilyAdd,
        columnFamilyDrop: t.columnFamilyDrop,
        deleted: t.deleted,
      })
      expect(
        e.newFiles.map((f) => [f.level, f.fileNumber, f.fileSize, toHex(f.smallestKey), toHex(f.largestKey), f.oldestAncesterTime, f.fileCreationTime]),
      ).toEqual(t.added.map((f) => [f.level, f.number, f.size, ikeyHex(f.smallest), ikeyHex(f.largest), f.oldestAncesterTime, f.fileCreationTime]))
    })
  })

  it('v11: RocksDB 11 writes epoch numbers, unique ids, tail sizes; 7.8.3 does not write epoch numbers', () => {
    const v11 = manifestRecords('v11').flatMap((r) => decodeVersionEdit(r.payload).newFiles)
    expect(v11.length).toBeGreaterThan(4)
    for (const f of v11) {
      expect(f.encoding).toBe(VersionEditTag.NewFile4)
      expect(f.epochNumber).toBeGreaterThan(0)
      expect(f.uniqueId?.length).toBe(16)
      expect(f.tailSize).toBeGreaterThan(0)
    }
    const old = manifestRecords('layered').flatMap((r) => decodeVersionEdit(r.payload).newFiles)
    for (const f of old) expect(f.epochNumber).toBeUndefined()
  })
})

const file = (extra: Partial<NewFileEntry> = {}): NewFileEntry => ({
  level: 2,
  fileNumber: 77,
  pathId: 0,
  fileSize: 123456,
  smallestKey: encodeInternalKey(new TextEncoder().encode('aaa'), 5, 1),
  largestKey: encodeInternalKey(new TextEncoder().encode('zzz'), 9, 0),
  smallestSeqno: 5n,
  largestSeqno: 9n,
  encoding: 103,
  ...extra,
})

const roundTrip = (e: VersionEdit) => decodeVersionEdit(encodeVersionEdit(e))

describe('VersionEdit: every field round-trips', () => {
  it('top-level fields', () => {
    const e: VersionEdit = {
      ...emptyVersionEdit(),
      dbId: 'db-id',
      comparator: 'leveldb.BytewiseComparator',
      logNumber: 12,
      prevLogNumber: 3,
      nextFileNumber: 99,
      maxColumnFamily: 4,
      minLogNumberToKeep: 11,
      lastSequence: MAX_SEQUENCE_NUMBER,
      compactCursors: [{ level: 3, key: encodeInternalKey(Uint8Array.of(1, 2), 7, 1) }],
      deletedFiles: [
        { level: 1, fileNumber: 5 },
        { level: 2, fileNumber: 6 },
      ],
      blobFileAdditions: [{ blobFileNumber: 30, totalBlobCount: 10, totalBlobBytes: 5000, checksumMethod: 'crc32c', checksumValue: Uint8Array.of(1, 2, 3, 4) }],
      blobFileGarbages: [{ blobFileNumber: 30, garbageBlobCount: 2, garbageBlobBytes: 900 }],
      walAdditions: [{ logNumber: 8, syncedSize: 4096 }, { logNumber: 9 }],
      walDeletion: 7,
      columnFamily: 2,
      columnFamilyAdd: 'events',
      atomicGroupRemaining: 3,
      fullHistoryTsLow: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1),
      persistUserDefinedTimestamps: false,
      subcompactionProgress: Uint8Array.of(1, 9, 9),
      lastCompactedManifestFileSize: 65536,
    }
    expect(roundTrip(e)).toEqual(e)
    const drop = { ...emptyVersionEdit(), columnFamily: 3, columnFamilyDrop: true }
    expect(roundTrip(drop)).toEqual(drop)
  })

  it('kNewFile4 with every custom field', () => {
    const f = file({
      pathId: 2,
      markedForCompaction: true,
      minLogNumberToKeepHack: 11n,
      oldestBlobFileNumber: 30,
      oldestAncesterTime: 1_700_000_000,
      fileCreationTime: 1_700_000_001,
      fileChecksum: Uint8Array.of(9, 8, 7, 6),
      fileChecksumFuncName: 'FileChecksumCrc32c',
      temperature: 0x10,
      minTimestamp: Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0),
      maxTimestamp: Uint8Array.of(2, 0, 0, 0, 0, 0, 0, 0),
      uniqueId: new Uint8Array(16).fill(5),
      epochNumber: 17,
      compensatedRangeDeletionSize: 4000,
      tailSize: 2222,
      userDefinedTimestampsPersisted: false,
      fileOpenMetadata: Uint8Array.of(4, 4),
    })
    const e = { ...emptyVersionEdit(), minLogNumberToKeep: 11, newFiles: [f] }
    expect(roundTrip(e)).toEqual(e)
  })

  it('the MinLogNumberToKeep hack alone sets the edit field', () => {
    const bytes = encodeVersionEdit({ ...emptyVersionEdit(), newFiles: [file({ minLogNumberToKeepHack: 42n })] })
    expect(decodeVersionEdit(bytes).minLogNumberToKeep).toBe(42)
  })

  it('older new-file records: kNewFile (no seqnos: RocksDB defaults), kNewFile2, kNewFile3 (path id)', () => {
    const f1 = roundTrip({ ...emptyVersionEdit(), newFiles: [file({ encoding: 7 })] }).newFiles[0]
    expect([f1.smallestSeqno, f1.largestSeqno]).toEqual([MAX_SEQUENCE_NUMBER, 0n])
    const f2 = file({ encoding: 100 })
    expect(roundTrip({ ...emptyVersionEdit(), newFiles: [f2] }).newFiles).toEqual([f2])
    const f3 = file({ encoding: 102, pathId: 1 })
    expect(roundTrip({ ...emptyVersionEdit(), newFiles: [f3] }).newFiles).toEqual([f3])
  })
})

/** A NewFile4 record of `file()` with one extra custom field (tag, value) before kTerminate. */
function newFileWithCustom(tag: number, value: Uint8Array): Uint8Array {
  const bytes = encodeVersionEdit({ ...emptyVersionEdit(), newFiles: [file()] })
  // The encoding ends with kTerminate (varint 1): put the field before it.
  return Uint8Array.of(...bytes.subarray(0, bytes.length - 1), ...encodeVarint(tag), ...encodeVarint(value.length), ...value, 1)
}

describe('VersionEdit: forward compatibility and corruption', () => {
  it('skips unknown tags with kTagSafeIgnoreMask, rejects others', () => {
    const base = encodeVersionEdit({ ...emptyVersionEdit(), logNumber: 3 })
    const safe = Uint8Array.of(...encodeVarint((1 << 13) | 99), 2, 0xaa, 0xbb, ...base)
    const e = decodeVersionEdit(safe)
    expect(e.logNumber).toBe(3)
    expect(e.ignoredTags).toEqual([(1 << 13) | 99])
    const unsafe = Uint8Array.of(...base, ...encodeVarint(150), 0)
    const err = catchErr(() => decodeVersionEdit(unsafe, 1000, 'MANIFEST: VersionEdit record at offset 993'))
    expect(err.message).toBe(`MANIFEST: VersionEdit record at offset 993: unknown tag 150 (at offset ${1000 + base.length})`)
  })

  it('NewFile4: skips unknown safe custom fields, unknown fields with kCustomTagNonSafeIgnoreMask are NotSupported', () => {
    const f = decodeVersionEdit(newFileWithCustom(40, Uint8Array.of(1, 2, 3))).newFiles[0]
    expect(f.ignoredCustomTags).toEqual([40])
    expect(f.fileNumber).toBe(77)
    try {
      decodeVersionEdit(newFileWithCustom(NewFileCustomTag.PathId + 5, Uint8Array.of(1)))
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(NotSupportedError)
      expect((e as Error).message).toMatch(/new-file custom field 70 of file #77 is not supported/)
    }
  })

  it('truncated fields, bad keys and bad custom field sizes are corruption with offsets', () => {
    const bytes = encodeVersionEdit({ ...emptyVersionEdit(), newFiles: [file()] })
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const e = catchErr(() => decodeVersionEdit(bytes.subarray(0, cut), 500))
      expect(e.offset).toBeGreaterThanOrEqual(500)
      expect(e.offset).toBeLessThanOrEqual(500 + cut)
    }
    const shortKey = Uint8Array.of(VersionEditTag.NewFile4, 0, 5, 10, 3, 1, 2, 3)
    expect(catchErr(() => decodeVersionEdit(shortKey)).message).toContain('smallest key of 3 bytes is not an internal key')
    expect(catchErr(() => decodeVersionEdit(newFileWithCustom(NewFileCustomTag.Temperature, Uint8Array.of(1, 2)))).message).toContain(
      'temperature field of 2 bytes, not 1',
    )
    expect(catchErr(() => decodeVersionEdit(newFileWithCustom(NewFileCustomTag.UniqueId, Uint8Array.of(1)))).message).toContain('unique id of 1 bytes')
  })

  it('blob file addition: a forward incompatible custom field is NotSupported', () => {
    const bytes = encodeVersionEdit({
      ...emptyVersionEdit(),
      blobFileAdditions: [{ blobFileNumber: 1, totalBlobCount: 1, totalBlobBytes: 1, checksumMethod: '', checksumValue: new Uint8Array(0) }],
    })
    const patched = Uint8Array.of(...bytes.subarray(0, bytes.length - 1), 64 + 3, 1, 0, 0)
    expect(() => decodeVersionEdit(patched)).toThrow(NotSupportedError)
  })
})

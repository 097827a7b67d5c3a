import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseView } from '../../src/db/database.js'
import {
  crc32cMasked,
  currentFileText,
  encodeManifest,
  epochNumbers,
  manifestFileName,
  newDbId,
  snapshotOf,
  type ManifestFile,
} from '../../src/db/manifest-writer.js'
import { toHex } from '../../src/format/coding.js'
import { LogReader } from '../../src/format/log-record.js'
import { decodeVersionEdit, encodeVersionEdit } from '../../src/format/version-edit.js'
import { BufferByteSource } from '../../src/io/byte-source.js'
import { ROOT, toolPresent } from '../helpers.js'
import { dbFixture, LDB, parseManifestDump } from './ldb.js'

const SOURCES = [
  dbFixture('layered'),
  dbFixture('churn'),
  dbFixture('v11'),
  join(ROOT, 'examples/db'),
  join(ROOT, 'test/fixtures/found/blob'),
  join(ROOT, 'test/fixtures/found/leveldb'),
  join(ROOT, 'test/fixtures/found/names'),
]

const scratch = mkdtempSync(join(tmpdir(), 'sstkit-manifest-writer-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let made = 0

/** A copy of `dir`'s live tables and blob files under a MANIFEST written from scratch (numbered past the source's files). */
function rewrittenManifest(dir: string): { out: string; view: DatabaseView; dbId: string; manifest: Uint8Array } {
  const view = openDatabase(dir)
  const out = join(scratch, `db${made++}`)
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out)
  for (const f of view.columnFamilies.flatMap((c) => c.levels.flat())) copyFileSync(f.path, join(out, f.path.slice(f.path.lastIndexOf('/') + 1)))
  for (const b of view.columnFamilies.flatMap((c) => c.blobFiles)) copyFileSync(b.path, join(out, b.path.slice(b.path.lastIndexOf('/') + 1)))
  const dbId = newDbId()
  const number = view.nextFileNumber + 1
  const manifest = encodeManifest(snapshotOf(view, { dbId, nextFileNumber: number + 1 }))
  writeFileSync(join(out, manifestFileName(number)), manifest)
  writeFileSync(join(out, 'CURRENT'), currentFileText(number))
  writeFileSync(join(out, 'IDENTITY'), dbId)
  return { out, view, dbId, manifest }
}

/** What a reader sees of each column family: ids, names, comparators, log numbers, every file on its level. */
function shape(v: DatabaseView) {
  return v.columnFamilies.map((cf) => ({
    id: cf.id,
    name: cf.name,
    comparator: cf.comparator ?? 'leveldb.BytewiseComparator',
    logNumber: cf.logNumber,
    levels: cf.levels.map((files) =>
      files.map((f) => ({
        n: f.fileNumber,
        size: f.fileSize,
        smallest: toHex(f.smallestKey),
        largest: toHex(f.largestKey),
        seqnos: f.smallestSeqno <= f.largestSeqno ? [f.smallestSeqno, f.largestSeqno] : null,
        blob: f.oldestBlobFileNumber,
      })),
    ),
    blobs: cf.blobFiles.map((b) => [b.blobFileNumber, b.totalBlobCount, b.totalBlobBytes, b.garbageBlobCount, b.checksumMethod]),
  }))
}

describe('a MANIFEST written from scratch', () => {
  it.each(SOURCES)('%s: replays to the same column families, levels, files and numbers', (dir) => {
    const { out, view, dbId } = rewrittenManifest(dir)
    const back = openDatabase(out)
    const want = shape(view)
    // LevelDB's kNewFile has no seqnos: the new MANIFEST states them (0 here, where no table was rewritten).
    for (const cf of want) for (const l of cf.levels) for (const f of l) f.seqnos ??= [0n, 0n]
    expect(shape(back)).toEqual(want)
    expect(back.dbId).toBe(dbId)
    expect(back.lastSequence).toBe(view.lastSequence)
    expect(back.nextFileNumber).toBe(view.nextFileNumber + 2)
    expect(back.maxColumnFamily).toBe(view.maxColumnFamily)
    expect(back.minLogNumberToKeep).toBe(view.minLogNumberToKeep)
    expect(back.prevLogNumber).toBe(view.prevLogNumber)
    expect(back.missingFiles).toEqual([])
    expect(back.droppedTail).toBeNull()
  })

  it('each record decodes and encodes back to its bytes; every file carries an epoch number and times', () => {
    const { manifest } = rewrittenManifest(join(ROOT, 'examples/db'))
    const reader = new LogReader(new BufferByteSource(manifest), { name: 'MANIFEST', crc: crc32cMasked })
    let files = 0
    for (const r of reader.records()) {
      const edit = decodeVersionEdit(r.payload)
      expect(encodeVersionEdit(edit)).toEqual(r.payload)
      for (const f of edit.newFiles) {
        files++
        expect(f.encoding).toBe(103)
        expect(f.epochNumber).toBeGreaterThan(0)
        expect(f.fileCreationTime).toBeDefined()
        expect(f.oldestAncesterTime).toBeDefined()
        expect(f.fileChecksum).toBeUndefined()
      }
    }
    expect(files).toBe(9)
    expect(reader.droppedTail).toBeNull()
  })

  it('a record longer than a 32 KiB block is cut into fragments RocksDB reassembles', () => {
    const view = openDatabase(join(ROOT, 'examples/db'))
    const snap = snapshotOf(view, { dbId: newDbId() })
    const one = snap.columnFamilies[0].files[0]
    snap.columnFamilies[0].files = Array.from({ length: 2000 }, (_, i) => ({ ...one, fileNumber: 1000 + i, level: 6 }))
    const bytes = encodeManifest(snap)
    const records = [...new LogReader(new BufferByteSource(bytes), { name: 'MANIFEST', crc: crc32cMasked }).records()]
    expect(Math.max(...records.map((r) => r.fragments))).toBeGreaterThan(1)
    const files = records.flatMap((r) => decodeVersionEdit(r.payload).newFiles)
    expect(files.map((f) => f.fileNumber)).toEqual([...snap.columnFamilies.flatMap((c) => c.files.map((f) => f.fileNumber))])
  })

  it('infers epoch numbers as RocksDB does: one per level from the bottom up, then L0 oldest first', () => {
    const file = (level: number, n: number): ManifestFile => ({
      level,
      fileNumber: n,
      fileSize: 1,
      smallestKey: new Uint8Array(8),
      largestKey: new Uint8Array(8),
      smallestSeqno: 0n,
      largestSeqno: 0n,
      epochNumber: null,
      oldestAncesterTime: 0,
      fileCreationTime: 0,
      oldestBlobFileNumber: null,
      temperature: null,
      markedForCompaction: false,
    })
    // L0 newest first, as db/database.ts orders it.
    const files = [file(0, 9), file(0, 8), file(1, 5), file(3, 2), file(3, 3)]
    const epochs = epochNumbers(files)
    expect(files.map((f) => epochs.get(f))).toEqual([4, 3, 2, 1, 1])
    const own = files.map((f, i) => ({ ...f, epochNumber: 10 + i }))
    expect(own.map((f) => epochNumbers(own).get(f))).toEqual([10, 11, 12, 13, 14])
  })
})

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('the real ldb 7.8.3 reads it', () => {
  const ldb = (args: string[]) => spawnSync(LDB!, args, { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })

  // found/names' column families are named with a newline and control bytes, which manifest_dump's text cannot be parsed back from.
  it.each(SOURCES.filter((s) => !s.endsWith('names')))('%s: manifest_dump lists the same files per column family and level', (dir) => {
    const { out, view } = rewrittenManifest(dir)
    const manifest = readdirSync(out).find((n) => n.startsWith('MANIFEST-'))!
    const r = ldb(['manifest_dump', '--verbose', '--hex', `--path=${join(out, manifest)}`])
    expect(r.status, r.stderr).toBe(0)
    const dump = parseManifestDump(r.stdout)
    expect(dump.columnFamilies.map((c) => [c.id, c.name, c.comparator, c.logNumber])).toEqual(
      view.columnFamilies.map((c) => [c.id, c.name, c.comparator ?? 'leveldb.BytewiseComparator', c.logNumber]),
    )
    for (const cf of view.columnFamilies) {
      const theirs = dump.columnFamilies.find((c) => c.id === cf.id)!
      cf.levels.forEach((files, level) => {
        expect((theirs.levels.get(level) ?? []).map((f) => [f.number, f.size])).toEqual(files.map((f) => [f.fileNumber, f.fileSize]))
      })
    }
    expect(dump.lastSequence).toBe(view.lastSequence)
    expect(dump.maxColumnFamily).toBe(view.maxColumnFamily)
  })

  it.each([dbFixture('layered'), join(ROOT, 'examples/db'), join(ROOT, 'test/fixtures/found/blob')])(
    '%s: ldb opens the database and scans every column family as the source',
    (dir) => {
      const { out, view } = rewrittenManifest(dir)
      for (const cf of view.columnFamilies) {
        const scan = (db: string) => ldb([`--db=${db}`, `--column_family=${cf.name}`, 'scan', '--hex'])
        // ldb may write into a database it opens: the source is scanned through a copy.
        const copy = join(scratch, `copy${made++}`)
        spawnSync('cp', ['-r', dir, copy])
        const want = scan(copy)
        const got = scan(out)
        expect(got.status, got.stderr).toBe(0)
        expect(got.stdout).toBe(want.stdout)
        expect(got.stdout.length).toBeGreaterThan(0)
      }
    },
  )
})

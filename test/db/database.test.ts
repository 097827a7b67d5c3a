import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { blockChecksum, ChecksumType } from '../../src/codec/checksum.js'
import { currentManifest, databaseNoteText, isDatabaseDir, openDatabase, type DatabaseView } from '../../src/db/database.js'
import { fromHex, toHex } from '../../src/format/coding.js'
import { CorruptionError } from '../../src/format/errors.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { LogWriter } from '../../src/format/log-record.js'
import { emptyVersionEdit, encodeVersionEdit, type NewFileEntry, type VersionEdit } from '../../src/format/version-edit.js'
import { ROOT, toolPresent } from '../helpers.js'
import { catchErr } from '../format/catch-corruption.js'
import { dbFixture, dbGolden, LDB, ldbOnCopy, parseColumnFamilies, parseLiveFilesMetadata, parseManifestDump, type DumpKey, type ManifestDump } from './ldb.js'

const WITH_GOLDENS = ['layered', 'churn', 'v11', 'layered-damaged-trunc', 'churn-missing']
const EXAMPLE_DB = join(ROOT, 'examples/db')

const ikeyHex = (k: DumpKey) => toHex(encodeInternalKey(fromHex(k.userKeyHex), k.seq, k.type))

/** Every live file of `view` equals ldb's final version: same CFs, levels, order, numbers, sizes, keys, seqnos. */
function expectSameAsDump(view: DatabaseView, dump: ManifestDump): void {
  expect(view.columnFamilies.map((c) => [c.id, c.name])).toEqual(dump.columnFamilies.map((c) => [c.id, c.name]))
  for (const theirs of dump.columnFamilies) {
    const ours = view.columnFamilies.find((c) => c.id === theirs.id)!
    expect(ours.comparator).toBe(theirs.comparator)
    expect(ours.logNumber).toBe(theirs.logNumber)
    const highest = Math.max(-1, ...[...theirs.levels.keys()])
    expect(ours.levels.length).toBe(highest + 1)
    ours.levels.forEach((files, level) => {
      const want = (theirs.levels.get(level) ?? []).map((f) => ({
        fileNumber: f.number,
        fileSize: f.size,
        smallestSeqno: f.smallestSeqno,
        largestSeqno: f.largestSeqno,
        smallestKey: ikeyHex(f.smallest),
        largestKey: ikeyHex(f.largest),
        level,
        columnFamily: theirs.name,
        columnFamilyId: theirs.id,
      }))
      const got = files.map((f) => ({
        fileNumber: f.fileNumber,
        fileSize: f.fileSize,
        smallestSeqno: f.smallestSeqno,
        largestSeqno: f.largestSeqno,
        smallestKey: toHex(f.smallestKey),
        largestKey: toHex(f.largestKey),
        level: f.level,
        columnFamily: f.columnFamily,
        columnFamilyId: f.columnFamilyId,
      }))
      expect(got).toEqual(want)
    })
  }
  // ldb prints VersionSet's next file number, which is the MANIFEST's NextFileNumber + 1.
  expect(view.nextFileNumber + 1).toBe(dump.nextFileNumber)
  expect(view.lastSequence).toBe(dump.lastSequence)
  expect(view.prevLogNumber).toBe(dump.prevLogNumber)
  expect(view.maxColumnFamily).toBe(dump.maxColumnFamily)
  expect(view.minLogNumberToKeep).toBe(dump.minLogNumberToKeep)
}

describe('fixture databases against the ldb 7.8.3 goldens', () => {
  it.each(WITH_GOLDENS)('%s: live files per column family and level equal ldb manifest_dump', (name) => {
    const view = openDatabase(dbFixture(name))
    expect(view.manifestPath).toBe(join(dbFixture(name), 'MANIFEST-000005'))
    expectSameAsDump(view, parseManifestDump(dbGolden(name, 'manifest_dump')))
    expect(view.manifestRecords).toBe((dbGolden(name, 'manifest_dump').match(/^VersionEdit \{$/gm) ?? []).length)
  })

  it.each(WITH_GOLDENS)('%s: column families equal ldb list_column_families', (name) => {
    expect(openDatabase(dbFixture(name)).columnFamilies.map((c) => c.name)).toEqual(parseColumnFamilies(dbGolden(name, 'column_families')))
  })

  it.each(['layered', 'churn', 'layered-damaged-trunc'])('%s: live files equal ldb list_live_files_metadata', (name) => {
    const view = openDatabase(dbFixture(name))
    const ours = view.columnFamilies
      .flatMap((c) => c.levels.flat())
      .map((f) => ({ file: basename(f.path), level: f.level, columnFamily: f.columnFamily }))
      .sort((a, b) => a.file.localeCompare(b.file))
    const theirs = parseLiveFilesMetadata(dbGolden(name, 'live_files_metadata'))
    expect(theirs.length).toBeGreaterThanOrEqual(3)
    expect(ours).toEqual(theirs)
  })

  it('layered: files on L0..L3 of default and L0, L1, L2, L4 of events, all present on disk', () => {
    const view = openDatabase(dbFixture('layered'))
    const shape = view.columnFamilies.map((c) => c.levels.map((l) => l.length))
    expect(shape).toEqual([
      [2, 1, 1, 1],
      [1, 1, 1, 0, 1],
    ])
    expect(view.unlistedFiles).toEqual([])
    expect(view.missingFiles).toEqual([])
    for (const f of view.columnFamilies.flatMap((c) => c.levels.flat())) {
      expect(f.exists).toBe(true)
      expect(f.path).toBe(join(dbFixture('layered'), `${String(f.fileNumber).padStart(6, '0')}.sst`))
    }
    expect(view.options?.path).toBe(join(dbFixture('layered'), 'OPTIONS-000017'))
    expect(view.warnings).toEqual([])
  })

  it('churn: deletions and the dropped column family are applied; stray copies are unlisted', () => {
    const dir = dbFixture('churn')
    const view = openDatabase(dir)
    expect(view.droppedColumnFamilies).toEqual([{ id: 1, name: 'tmp' }])
    expect(view.columnFamilies.map((c) => c.name)).toEqual(['default', 'logs'])
    expect(view.unlistedFiles).toEqual([join(dir, '000900.sst'), join(dir, '000901.ldb')])
    expect(view.missingFiles).toEqual([])
    // The writer's compactions deleted their inputs: none of them is live.
    const compacted = [...dbGolden('churn', 'writer').matchAll(/in=([0-9.,sst]+)/g)].flatMap((m) => m[1].split(','))
    const live = new Set(view.columnFamilies.flatMap((c) => c.levels.flat()).map((f) => basename(f.path)))
    expect(compacted.length).toBeGreaterThan(3)
    for (const f of compacted) expect(live.has(f)).toBe(false)
  })

  it('churn-missing: the deleted live file is reported missing, as ldb fails on it', () => {
    const dir = dbFixture('churn-missing')
    const view = openDatabase(dir)
    expect(view.missingFiles.map((f) => [f.fileNumber, f.exists, f.path])).toEqual([[21, false, join(dir, '000021.sst')]])
    expect(dbGolden('churn-missing', 'live_files_metadata')).toMatch(/Failed: .*No such file or directory.*000021/)
  })

  it('v11 (RocksDB 11.8.1): epoch-numbered L0 files newest first, compaction output on L6', () => {
    const view = openDatabase(dbFixture('v11'))
    const events = view.columnFamilies[1]
    expect(events.levels[0].map((f) => f.fileNumber)).toEqual([16, 13, 12])
    expect(events.levels[0].every((f) => f.epochNumber !== null && f.epochNumber > 0)).toBe(true)
    expect(view.columnFamilies[0].levels.map((l) => l.length)).toEqual([1, 0, 0, 0, 0, 0, 1])
    expect(view.dbId).toMatch(/^[0-9a-f-]{36}$/)
    expect(view.options?.rocksdbVersion).toBe('11.8.1')
  })

  it('layered-damaged-crc: one error naming the MANIFEST, the checksum mismatch and the record offset', () => {
    const offset = Number(/record at (\d+)/.exec(readFileSync(join(dbFixture(''), 'damaged.log'), 'utf8'))![1])
    const dir = dbFixture('layered-damaged-crc')
    const e = catchErr(() => openDatabase(dir))
    expect(e.message).toContain(join(dir, 'MANIFEST-000005'))
    expect(e.message).toContain('checksum mismatch')
    expect(e.offset).toBe(offset)
    expect(e.message).not.toContain('\n')
    expect(dbGolden('layered-damaged-crc', 'live_files_metadata')).toContain('checksum mismatch')
  })

  it('layered-damaged-trunc: the cut last record is dropped (as RocksDB does) and reported', () => {
    const log = readFileSync(join(dbFixture(''), 'damaged.log'), 'utf8')
    const offset = Number(/last record at (\d+)/.exec(log)![1])
    const view = openDatabase(dbFixture('layered-damaged-trunc'))
    expect(view.droppedTail).toEqual({ offset, bytes: 12, reason: 'truncated record payload' })
    expect(view.warnings).toEqual([{ code: 'manifest-tail-ignored', file: view.manifestPath, bytes: 12, offset, reason: 'truncated record payload' }])
    expect(view.warnings.map(databaseNoteText)).toEqual([
      `${view.manifestPath}: the last 12 bytes (from offset ${offset}) are an incomplete record (truncated record payload); ignored, as RocksDB does`,
    ])
    expect(view.manifestRecords).toBe(openDatabase(dbFixture('layered')).manifestRecords - 1)
  })

  it('examples/db: two column families, three or more levels each', () => {
    const view = openDatabase(EXAMPLE_DB)
    expect(view.columnFamilies.map((c) => c.name)).toEqual(['default', 'events'])
    for (const cf of view.columnFamilies) expect(cf.levels.filter((l) => l.length > 0).length).toBeGreaterThanOrEqual(3)
    expect(view.unlistedFiles).toEqual([])
    expect(view.missingFiles).toEqual([])
  })

  it('isDatabaseDir: true for a directory with CURRENT, false otherwise', () => {
    expect(isDatabaseDir(dbFixture('layered'))).toBe(true)
    expect(isDatabaseDir(dbFixture(''))).toBe(false)
    expect(isDatabaseDir(join(dbFixture('layered'), 'CURRENT'))).toBe(false)
  })
})

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('live: the real ldb on a copy of each database', () => {
  it('is ldb 7.8.3', () => {
    expect(ldbOnCopy(dbFixture('layered'), ['--version'])).toMatch(/7\.8\.3/)
  })

  it.each([...WITH_GOLDENS.map((n) => dbFixture(n)), EXAMPLE_DB])('%s: openDatabase equals ldb manifest_dump', (dir) => {
    const manifest = basename(currentManifest(dir))
    const out = ldbOnCopy(dir, ['manifest_dump', '--verbose', '--hex', `--path=DB_DIR/${manifest}`])
    expectSameAsDump(openDatabase(dir), parseManifestDump(out))
  })

  it.each([dbFixture('layered'), dbFixture('churn'), EXAMPLE_DB])('%s: live files equal ldb list_live_files_metadata', (dir) => {
    const theirs = parseLiveFilesMetadata(ldbOnCopy(dir, ['--db=DB_DIR', 'list_live_files_metadata', '--sort_by_filename']))
    const ours = openDatabase(dir)
      .columnFamilies.flatMap((c) => c.levels.flat())
      .map((f) => ({ file: basename(f.path), level: f.level, columnFamily: f.columnFamily }))
      .sort((a, b) => a.file.localeCompare(b.file))
    expect(ours).toEqual(theirs)
  })
})

// ------------------------------------------------------------------ synthetic MANIFESTs

const tmpRoot = mkdtempSync(join(tmpdir(), 'sstkit-db-test-'))
afterAll(() => rmSync(tmpRoot, { recursive: true, force: true }))
let dirCount = 0

const crc = (b: Uint8Array) => blockChecksum(ChecksumType.CRC32c, b)
const ukey = (s: string) => new TextEncoder().encode(s)

function file(level: number, fileNumber: number, from: string, to: string, seqs: [number, number], extra: Partial<NewFileEntry> = {}): NewFileEntry {
  return {
    level,
    fileNumber,
    pathId: 0,
    fileSize: 1000 + fileNumber,
    smallestKey: encodeInternalKey(ukey(from), seqs[0], 1),
    largestKey: encodeInternalKey(ukey(to), seqs[1], 1),
    smallestSeqno: BigInt(seqs[0]),
    largestSeqno: BigInt(seqs[1]),
    encoding: 103,
    ...extra,
  }
}

const edit = (e: Partial<VersionEdit>): VersionEdit => ({ ...emptyVersionEdit(), ...e })
const BASE = edit({ comparator: 'leveldb.BytewiseComparator', logNumber: 4, nextFileNumber: 50, lastSequence: 100n })

/** A synthetic database directory: CURRENT, MANIFEST-000001 of `edits`, empty table files. */
function syntheticDb(edits: VersionEdit[], tableFiles: string[] = []): string {
  const dir = join(tmpRoot, `db${dirCount++}`)
  const w = new LogWriter({ crc })
  for (const e of edits) w.addRecord(encodeVersionEdit(e))
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir)
  writeFileSync(join(dir, 'CURRENT'), 'MANIFEST-000001\n')
  writeFileSync(join(dir, 'MANIFEST-000001'), w.finish())
  for (const f of tableFiles) writeFileSync(join(dir, f), '')
  return dir
}

describe('replay rules (synthetic MANIFESTs)', () => {
  it('applies deletions before additions, across column families', () => {
    const dir = syntheticDb(
      [
        BASE,
        edit({ newFiles: [file(0, 7, 'a', 'c', [1, 5]), file(0, 8, 'b', 'd', [6, 9])] }),
        edit({ columnFamily: 1, columnFamilyAdd: 'cf1', maxColumnFamily: 1 }),
        edit({ columnFamily: 1, newFiles: [file(2, 9, 'x', 'z', [0, 0])] }),
        edit({
          deletedFiles: [
            { level: 0, fileNumber: 7 },
            { level: 0, fileNumber: 8 },
          ],
          newFiles: [file(1, 10, 'a', 'd', [0, 0])],
        }),
      ],
      ['000009.sst', '000010.ldb', '000007.sst'],
    )
    const view = openDatabase(dir)
    expect(view.columnFamilies.map((c) => c.levels.map((l) => l.map((f) => f.fileNumber)))).toEqual([
      [[], [10]],
      [[], [], [9]],
    ])
    expect(view.columnFamilies[1].levels[2][0].path).toBe(join(dir, '000009.sst'))
    expect(view.columnFamilies[0].levels[1][0].path).toBe(join(dir, '000010.ldb'))
    expect(view.unlistedFiles).toEqual([join(dir, '000007.sst')])
    expect(view.maxColumnFamily).toBe(1)
  })

  it('orders L0 by epoch number when every file has one, else by sequence numbers; L1+ by smallest key', () => {
    const byEpoch = openDatabase(
      syntheticDb([BASE, edit({ newFiles: [file(0, 7, 'a', 'b', [50, 60], { epochNumber: 3 }), file(0, 8, 'a', 'b', [70, 80], { epochNumber: 2 })] })]),
    )
    expect(byEpoch.columnFamilies[0].levels[0].map((f) => f.fileNumber)).toEqual([7, 8])
    const bySeq = openDatabase(syntheticDb([BASE, edit({ newFiles: [file(0, 7, 'a', 'b', [50, 60], { epochNumber: 3 }), file(0, 8, 'a', 'b', [70, 80])] })]))
    expect(bySeq.columnFamilies[0].levels[0].map((f) => f.fileNumber)).toEqual([8, 7])
    const l1 = openDatabase(syntheticDb([BASE, edit({ newFiles: [file(1, 7, 'm', 'n', [0, 0]), file(1, 8, 'c', 'd', [0, 0]), file(1, 9, 'x', 'y', [0, 0])] })]))
    expect(l1.columnFamilies[0].levels[1].map((f) => f.fileNumber)).toEqual([8, 7, 9])
  })

  it('applies an atomic group only when complete; a group cut short at the end is dropped', () => {
    const group = [
      edit({ atomicGroupRemaining: 1, newFiles: [file(1, 7, 'a', 'b', [0, 0])] }),
      edit({ atomicGroupRemaining: 0, newFiles: [file(1, 8, 'c', 'd', [0, 0])] }),
    ]
    expect(openDatabase(syntheticDb([BASE, ...group])).columnFamilies[0].levels[1].map((f) => f.fileNumber)).toEqual([7, 8])
    const cut = openDatabase(syntheticDb([BASE, edit({ newFiles: [file(0, 6, 'a', 'b', [1, 2])] }), group[0]]))
    expect(cut.columnFamilies[0].levels.map((l) => l.map((f) => f.fileNumber))).toEqual([[6]])
  })

  it('rejects a normal edit inside an atomic group and a wrong group count', () => {
    const a = catchErr(() => openDatabase(syntheticDb([BASE, edit({ atomicGroupRemaining: 1 }), edit({ newFiles: [file(1, 8, 'c', 'd', [0, 0])] })])))
    expect(a.message).toMatch(/corrupted atomic group \(a normal edit inside the group started at offset \d+\)/)
    const b = catchErr(() => openDatabase(syntheticDb([BASE, edit({ atomicGroupRemaining: 2 }), edit({ atomicGroupRemaining: 0 })])))
    expect(b.message).toContain('corrupted atomic group')
  })

  it('names the record for each inconsistency RocksDB rejects', () => {
    const cases: [VersionEdit[], RegExp][] = [
      [
        [BASE, edit({ deletedFiles: [{ level: 1, fileNumber: 9 }] })],
        /cannot delete table file #9 from level 1 of column family "default": it is not in the LSM tree/,
      ],
      [[BASE, edit({ newFiles: [file(2, 9, 'a', 'b', [0, 0])] }), edit({ deletedFiles: [{ level: 1, fileNumber: 9 }] })], /it is on level 2/],
      [
        [BASE, edit({ newFiles: [file(2, 9, 'a', 'b', [0, 0])] }), edit({ newFiles: [file(3, 9, 'a', 'b', [0, 0])] })],
        /cannot add table file #9 to level 3 .* already on level 2/,
      ],
      [[BASE, edit({ columnFamily: 0, columnFamilyAdd: 'default' })], /adds column family 0 \("default"\) a second time/],
      [[BASE, edit({ columnFamily: 3, columnFamilyDrop: true })], /drops column family 3, which does not exist/],
      [[BASE, edit({ columnFamily: 5, newFiles: [file(1, 9, 'a', 'b', [0, 0])] })], /refers to column family 5, which does not exist/],
    ]
    for (const [edits, message] of cases) {
      const dir = syntheticDb(edits)
      const e = catchErr(() => openDatabase(dir))
      expect(e.message).toMatch(message)
      expect(e.message).toMatch(new RegExp(`^${join(dir, 'MANIFEST-000001')}: VersionEdit record at offset \\d+: `))
      expect(e.offset).toBeGreaterThan(0)
    }
  })

  it('requires log number, next file number and last sequence', () => {
    const e = catchErr(() => openDatabase(syntheticDb([edit({ comparator: 'leveldb.BytewiseComparator', logNumber: 3 })])))
    expect(e.message).toMatch(/MANIFEST-000001: no next_file_number, last_sequence entry in MANIFEST$/)
  })

  it('keeps a column family log number from moving backwards, like RocksDB', () => {
    const view = openDatabase(syntheticDb([BASE, edit({ logNumber: 9 }), edit({ logNumber: 6 })]))
    expect(view.columnFamilies[0].logNumber).toBe(9)
    expect(view.logNumber).toBe(9)
  })

  it('replays an edit larger than a 32 KiB block (fragmented record)', () => {
    const many = Array.from({ length: 1500 }, (_, i) => file(1, 100 + i, `k${String(i).padStart(5, '0')}a`, `k${String(i).padStart(5, '0')}b`, [0, 0]))
    const big = edit({ newFiles: many })
    expect(encodeVersionEdit(big).length).toBeGreaterThan(40000)
    const view = openDatabase(syntheticDb([BASE, big]))
    expect(view.columnFamilies[0].levels[1].length).toBe(1500)
    expect(view.missingFiles.length).toBe(1500)
  })

  it('a bad tag inside a record: error with the exact file offset of the tag', () => {
    const dir = syntheticDb([BASE])
    const manifest = join(dir, 'MANIFEST-000001')
    const good = encodeVersionEdit(BASE)
    const w = new LogWriter({ crc })
    w.addRecord(good)
    const bad = Uint8Array.of(...good, 77, 1) // tag 77 does not exist and has no safe-ignore bit
    w.addRecord(bad)
    writeFileSync(manifest, w.finish())
    const e = catchErr(() => openDatabase(dir))
    const recordOffset = 7 + good.length
    expect(e.offset).toBe(recordOffset + 7 + good.length)
    expect(e.message).toContain(`VersionEdit record at offset ${recordOffset}: unknown tag 77`)
  })

  it('warns of files past num_levels, column families missing from OPTIONS, files in other db_paths', () => {
    const dir = syntheticDb([
      BASE,
      edit({ newFiles: [file(5, 7, 'a', 'b', [0, 0]), file(1, 8, 'c', 'd', [0, 0], { pathId: 2 })] }),
      edit({ columnFamily: 1, columnFamilyAdd: 'extra' }),
    ])
    writeFileSync(join(dir, 'OPTIONS-000004'), '[DBOptions]\n[CFOptions "default"]\n  num_levels=3\n')
    const warnings = openDatabase(dir).warnings
    expect(warnings).toEqual([
      { code: 'column-family-beyond-num-levels', columnFamily: 'default', level: 5, numLevels: 3 },
      { code: 'column-family-files-elsewhere', columnFamily: 'default', files: 1, firstFileNumber: 8, pathId: 2, dir },
      { code: 'column-family-without-options', columnFamily: 'extra', file: join(dir, 'OPTIONS-000004') },
    ])
    expect(warnings.map(databaseNoteText)).toEqual([
      'column family "default" has files on level 5 but num_levels is 3 (RocksDB would not open it with these options)',
      `column family "default": 1 file(s) (first #8) live in db_paths/cf_paths[2], outside ${dir}`,
      `column family "extra" has no [CFOptions] section in ${join(dir, 'OPTIONS-000004')}`,
    ])
  })

  it('CURRENT must name a MANIFEST and end with a newline', () => {
    const dir = syntheticDb([BASE])
    writeFileSync(join(dir, 'CURRENT'), 'MANIFEST-000001')
    expect(catchErr(() => openDatabase(dir)).message).toMatch(/CURRENT: CURRENT file does not end with a newline/)
    writeFileSync(join(dir, 'CURRENT'), 'OPTIONS-000001\n')
    expect(catchErr(() => openDatabase(dir)).message).toMatch(/CURRENT names 'OPTIONS-000001', not a MANIFEST-NNNNNN file/)
    writeFileSync(join(dir, 'CURRENT'), 'MANIFEST-000009\n')
    expect(catchErr(() => openDatabase(dir)).message).toContain('MANIFEST-000009, which does not exist')
    expect(catchErr(() => openDatabase(tmpRoot))).toBeInstanceOf(CorruptionError)
  })
})

/**
 * `sstkit rewrite --ingestible` against the real RocksDB 7.8.3 (`ldb`): the output of a file taken
 * from a live DB is ingested into a fresh DB (`ldb ingest_extern_sst`), and that DB reads exactly
 * what the source DB read (`ldb scan`), apart from what the rewrite says it dropped.
 *
 * - test/fixtures/db/versions: one real flush under snapshots (several versions per key, deletes,
 *   single deletes, merges over puts and lone merges, overlapping range deletions with puts newer
 *   than them); the source DB is read with its own OPTIONS (stringappend merge operator).
 * - test/fixtures/db/layered: each column family's files, rewritten and ingested oldest level
 *   first (each ingestion gets a newer global seqno), read back equal to the source's column family.
 * - every real fixture of test/fixtures/real: its ingestible rewrite is ingested, every put and merge read.
 * Also: a plain rewrite of a DB file says in one line why it is not ingestible and ldb refuses it;
 * the external-file properties; the types SstFileWriter 7.8.3 does not write (single deletes,
 * blob values, wide-column entities).
 */
import { spawnSync } from 'node:child_process'
import { cpSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultRewriteOptions, openTable, parseInternalKey, rewriteFile } from '../../src/index.js'
import { dbFixture, dbGolden, LDB } from '../db/ldb.js'
import { fixturePath, fixtures, sstkit, toolPresent } from '../helpers.js'
import { scratchSpace } from './scratch.js'

const { scratch } = scratchSpace('sstkit-ingestible-')

const ldb = (args: string[]) => {
  const r = spawnSync(LDB!, args, { encoding: 'latin1', maxBuffer: 64 << 20 })
  return { status: r.status, out: r.stdout + r.stderr }
}

/** `ldb scan --hex` of a copy of `db` (ldb opening a DB writes into it), with the DB's own options. */
function scanSource(db: string, columnFamily = 'default'): string {
  const copy = join(scratch(), 'db')
  cpSync(db, copy, { recursive: true })
  const r = ldb([`--db=${copy}`, '--try_load_options', `--column_family=${columnFamily}`, 'scan', '--hex'])
  expect(r.status).toBe(0)
  return r.out
}

/** Rewrite each file --ingestible, ingest them in order into a fresh DB; returns its `ldb scan --hex` and the notes. */
function ingestAll(files: string[]): { scan: string; notes: string[] } {
  const dir = scratch()
  const db = join(dir, 'db')
  const notes: string[] = []
  files.forEach((file, i) => {
    const out = join(dir, `${i}.sst`)
    const r = sstkit(['rewrite', file, '-o', out, '--ingestible'])
    expect(r.status, r.stderr).toBe(0)
    notes.push(...r.stderr.split('\n').filter((l) => l.includes('note:')))
    const ingest = ldb([`--db=${db}`, '--create_if_missing', 'ingest_extern_sst', out])
    expect(ingest.out).toContain('external SST files ingested')
  })
  const scan = ldb([`--db=${db}`, 'scan', '--hex'])
  expect(scan.status).toBe(0)
  return { scan: scan.out, notes }
}

/** `0xKEY : 0xVALUE` lines of an ldb hex scan, by key. */
function scanMap(scan: string): Map<string, string> {
  const m = new Map<string, string>()
  for (const line of scan.split('\n')) {
    const hit = /^0x([0-9A-F]*) : 0x([0-9A-F]*)$/.exec(line)
    if (hit) m.set(hit[1], hit[2])
  }
  return m
}

const hex = (s: string) => Buffer.from(s).toString('hex').toUpperCase()
const VERSIONS = join(dbFixture('versions'), '000008.sst')

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('rewrite --ingestible, ingested by ldb 7.8.3', () => {
  it('versions: the fresh DB reads what the source DB read, except the merges it says it could not resolve', () => {
    expect(dbGolden('versions', 'live_files_metadata')).toContain('000008.sst : level 0')
    const want = scanMap(scanSource(dbFixture('versions')))
    const { scan, notes } = ingestAll([VERSIONS])
    const got = scanMap(scan)
    const merges = Array.from({ length: 10 }, (_, i) => hex(`k07${i}`))
    // Every merge over a put is dropped and named; nothing else differs.
    for (const k of merges) {
      expect(want.get(k)).toMatch(/2C6D2D/) // the source resolves "v1-07x,m-7x"
      expect(got.has(k)).toBe(false)
    }
    const rest = [...want].filter(([k]) => !merges.includes(k))
    expect(rest.length).toBeGreaterThan(140)
    expect([...got].sort()).toEqual(rest.sort())
    // The cases the fixture holds really are there: overwrites, deletes, single deletes, ranges, lone merges.
    expect(got.get(hex('k000'))).toBe(hex('v2-00'))
    for (const k of ['k050', 'k060', 'k100', 'k120', 'k129']) expect(got.has(hex(k))).toBe(false)
    expect(got.get(hex('k130'))).toBe(hex('v1-130'))
    expect(got.get(hex('k107'))).toBe(hex('v3-107'))
    expect(got.get(hex('k202'))).toBe(hex('lone-202'))
    expect(notes).toContain(
      `sstkit: ${VERSIONS}: note: ingestible: dropped 10 user keys whose newest entries are merge operands over older entries (resolving them needs the merge operator): 'k070', 'k071', 'k072', ...`,
    )
    expect(notes.some((l) => l.endsWith('ingestible: wrote 5 single deletes as deletes (SstFileWriter writes no single deletes)'))).toBe(true)
    expect(notes.some((l) => /dropped 80 older versions/.test(l))).toBe(true)
    expect(notes.some((l) => /dropped 25 user keys a newer range tombstone covers/.test(l))).toBe(true)
  })

  it.each(['default', 'events'])('layered %s: every file rewritten and ingested oldest level first reads as the source column family', (cf) => {
    const listing = dbGolden('layered', 'live_files_metadata')
    const files = [...listing.matchAll(/DB_DIR\/(\d+\.sst) : level (\d+), column family '(\w+)'/g)]
      .filter((m) => m[3] === cf)
      .map((m) => ({ file: join(dbFixture('layered'), m[1]), level: Number(m[2]), number: m[1] }))
      // Oldest first: the bottom level first; within L0 the lower file number (older) first.
      .sort((a, b) => b.level - a.level || (a.level === 0 ? a.number.localeCompare(b.number) : 0))
    expect(files.length).toBe(cf === 'default' ? 5 : 4)
    const want = scanSource(dbFixture('layered'), cf)
    const { scan } = ingestAll(files.map((f) => f.file))
    expect(scanMap(scan).size).toBeGreaterThan(500)
    expect(scan).toBe(want)
  })

  it('a plain rewrite of a DB file says in one line why it is not ingestible, and ldb refuses it', () => {
    const dir = scratch()
    const out = join(dir, 'plain.sst')
    const r = sstkit(['rewrite', VERSIONS, '-o', out])
    expect(r.status).toBe(0)
    const lines = r.stderr.split('\n').filter((l) => l.includes('not ingestible'))
    expect(lines).toEqual([
      `sstkit: ${VERSIONS}: note: the output is not ingestible (IngestExternalFile needs rocksdb.external_sst_file.version and every entry at sequence number 0; this is a DB file): use --ingestible`,
    ])
    const ingest = ldb([`--db=${join(dir, 'db')}`, '--create_if_missing', 'ingest_extern_sst', out])
    expect(ingest.out).toContain('External file version not found')
    // An SstFileWriter file stays ingestible through a plain rewrite: no such note.
    const external = sstkit(['rewrite', fixturePath('sstfilewriter-mixed'), '-o', join(dir, 'ext.sst')])
    expect(external.status).toBe(0)
    expect(external.stderr).not.toContain('not ingestible')
  })

  it('entry-types (a real 7.8.3 flush with every point type): ingested; the output holds one entry per user key at seq 0', () => {
    const dir = scratch()
    const out = join(dir, 'et.sst')
    expect(sstkit(['rewrite', fixturePath('entry-types'), '-o', out, '--ingestible']).status).toBe(0)
    expect(ldb([`--db=${join(dir, 'db')}`, '--create_if_missing', 'ingest_extern_sst', out]).out).toContain('external SST files ingested')
    const t = openTable(out)
    try {
      const user = t.properties.user
      expect(Buffer.from(user.get('rocksdb.external_sst_file.version')!).toString('hex')).toBe('02000000')
      expect(Buffer.from(user.get('rocksdb.external_sst_file.global_seqno')!).toString('hex')).toBe('0000000000000000')
      const props = t.properties.known
      expect(props.get('rocksdb.column.family.id')).toBe(0x7fffffff)
      expect(props.get('rocksdb.creating.db.identity')).toBe('SST Writer')
      const users = new Set<string>()
      const types = new Set<number>()
      const it = t.iterator()
      for (it.seekToFirst(); it.valid; it.next()) {
        const p = parseInternalKey(it.key)
        expect(p.seq).toBe(0)
        types.add(p.type)
        const u = Buffer.from(p.userKey).toString('hex')
        expect(users.has(u)).toBe(false)
        users.add(u)
      }
      // Put, delete (single deletes became deletes), merge; no single delete.
      expect([...types].sort()).toEqual([0, 1, 2])
      expect(t.rangeTombstones().every((r) => r.seq === 0)).toBe(true)
      expect(t.rangeTombstones().length).toBeGreaterThan(0)
    } finally {
      t.close()
    }
  })

  it.each([
    ['v11-fv7-blob', 'dropped 12 user keys whose value is in a blob file (not carried over)'],
    ['wide-columns', 'dropped 112 user keys whose newest entry is a wide-column entity'],
  ])('%s: what SstFileWriter 7.8.3 cannot write is dropped and said; the rest is ingested', (name, note) => {
    const dir = scratch()
    const out = join(dir, 'o.sst')
    const r = sstkit(['rewrite', fixturePath(name), '-o', out, '--ingestible', '--format-version', '5'])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain(note)
    const db = join(dir, 'db')
    expect(ldb([`--db=${db}`, '--create_if_missing', 'ingest_extern_sst', out]).out).toContain('external SST files ingested')
    expect(scanMap(ldb([`--db=${db}`, 'scan', '--hex']).out).size).toBeGreaterThan(30)
  })

  it('every real fixture: its ingestible rewrite (format_version 5) is ingested by ldb 7.8.3, which reads every put and merge of it', () => {
    const names = fixtures().map((f) => f.name)
    expect(names.length).toBeGreaterThan(50)
    for (const name of names) {
      const dir = scratch()
      const out = join(dir, 'o.sst')
      rewriteFile(fixturePath(name), out, defaultRewriteOptions({ ingestible: true, formatVersion: 5 }))
      const db = join(dir, 'db')
      expect(ldb([`--db=${db}`, '--create_if_missing', 'ingest_extern_sst', out]).out, name).toContain('external SST files ingested')
      let visible = 0
      const t = openTable(out)
      // ldb's fresh DB compares bytewise: a file under another comparator (udt-u64ts) is only ingested.
      const bytewise = t.comparatorName === 'leveldb.BytewiseComparator'
      try {
        const it = t.iterator()
        for (it.seekToFirst(); it.valid; it.next()) {
          const type = parseInternalKey(it.key).type
          if (type === 1 || type === 2) visible++
        }
      } finally {
        t.close()
      }
      // A fresh DB holds nothing else; a file's own tombstones do not cover its points (one seqno).
      const scan = ldb([`--db=${db}`, 'scan', '--hex'])
        .out.split('\n')
        .filter((l) => l.startsWith('0x'))
      if (bytewise) expect(scan.length, name).toBe(visible)
    }
  })

  it('--ingestible with --keep-blocks is a usage error (exit 2, one line)', () => {
    const r = sstkit(['rewrite', VERSIONS, '-o', join(scratch(), 'x.sst'), '--ingestible', '--keep-blocks'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})

// The fixture file is exactly what the committed generator wrote (one flush, one file).
it('versions fixture: one table file holding several versions per key', () => {
  const t = openTable(VERSIONS)
  try {
    expect(t.properties.known.get('rocksdb.num.entries')).toBeGreaterThan(200)
    expect(t.rangeTombstones({ applyGlobalSeqno: false }).length).toBe(3)
    expect(readFileSync(join(dbFixture('versions'), 'CURRENT'), 'utf8')).toMatch(/^MANIFEST-/)
  } finally {
    t.close()
  }
})

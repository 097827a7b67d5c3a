/**
 * A LevelDB database closed with entries still in its log (test/fixtures/found/leveldb-log, LevelDB
 * 1.23 through generate-leveldb-log.sh: new keys, overwrites and deletes that are in no table),
 * rewritten: RocksDB 11.8.1, which refuses the source's tables, opens the output, replays the
 * carried-over log, and reads exactly what LevelDB itself read with its log replayed
 * (found/leveldb-log.scan.txt); so does ldb 7.8.3.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/db/database.js'
import { openTable } from '../../src/table/reader.js'
import { assertFreshBuild, ROOT, sstkit, toolPresent } from '../helpers.js'
import { LDB } from '../db/ldb.js'
import { type Entry, Rocks, rocksdbJs } from './rocksdb-js.js'
import { copyDir } from './scratch.js'

assertFreshBuild()
const SOURCE = join(ROOT, 'test/fixtures/found/leveldb-log')
const work = mkdtempSync(join(tmpdir(), 'sstkit-leveldb-log-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const copy = (dir: string) => copyDir(work, dir)

/** LevelDB's own read of the source, its log replayed (`0xKEY : 0xVALUE` lines). */
const leveldbScan = readFileSync(join(ROOT, 'test/fixtures/found/leveldb-log.scan.txt'), 'latin1')
const want: Entry[] = leveldbScan
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [k, v] = line.split(' : ')
    return { key: k.slice(2).toLowerCase(), value: v.slice(2).toLowerCase() }
  })

/** Every user key of the source's tables (hex), newest version's value, as sstkit reads them. */
function tableEntries(dir: string): Map<string, string | null> {
  const out = new Map<string, string | null>()
  for (const f of openDatabase(dir).columnFamilies[0].levels.flat()) {
    const t = openTable(f.path)
    try {
      const it = t.iterator()
      for (it.seekToFirst(); it.valid; it.next()) {
        const user = Buffer.from(it.key.subarray(0, it.key.length - 8)).toString('hex')
        const type = it.key[it.key.length - 8]
        // L0 is newer than the levels below; within a file the newest entry of a key comes first.
        if (f.level === 0 || !out.has(user)) out.set(user, type === 1 ? Buffer.from(it.value).toString('hex') : null)
      }
    } finally {
      t.close()
    }
  }
  return out
}

describe.runIf(toolPresent('@harperfast/rocksdb-js-linux-x64-glibc', rocksdbJs !== null, 'npm run rocksdb11, on linux x64'))(
  'a LevelDB database with an unflushed log',
  () => {
    const out = join(work, 'out')
    beforeAll(() => {
      const r = sstkit(['rewrite', SOURCE, '-o', out])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/write-ahead logs copied, replayed by RocksDB when it opens .*: 000008\.log/)
    }, 120_000)

    it('the fixture holds entries that are only in the log: new keys, overwritten values and deletes', () => {
      const tables = tableEntries(SOURCE)
      const logOnly = want.filter((e) => !tables.has(e.key))
      const overwritten = want.filter((e) => tables.has(e.key) && tables.get(e.key) !== e.value)
      const deleted = [...tables].filter(([k, v]) => v !== null && !want.some((e) => e.key === k))
      expect(logOnly.length).toBe(150)
      expect(overwritten.length).toBeGreaterThan(50)
      expect(deleted.length).toBeGreaterThan(50)
      expect(readdirSync(SOURCE).filter((f) => f.endsWith('.log'))).toEqual(['000008.log'])
    })

    it('RocksDB 11.8.1 refuses the source, then opens the output, replays its log and reads what LevelDB read', () => {
      const source = copy(SOURCE)
      cpSync(join(out, readdirSync(out).find((f) => f.startsWith('OPTIONS-'))!), join(source, 'OPTIONS-000099'))
      expect(() => new Rocks(source).entries()).toThrow(/legacy magic number|Corruption|Not implemented/)
      const db = new Rocks(copy(out))
      try {
        expect(db.entries()).toEqual(want)
      } finally {
        db.close()
      }
    })

    it.runIf(LDB !== null)('ldb 7.8.3 reads the same from the output', () => {
      const r = spawnSync(LDB!, [`--db=${copy(out)}`, 'scan', '--hex'], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toBe(leveldbScan)
    })
  },
)

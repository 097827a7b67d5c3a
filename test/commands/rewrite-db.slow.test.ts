/**
 * `sstkit rewrite DB -o OUT` against real RocksDB: databases written by RocksDB 7.8.3 with table
 * format_version 0 and 1 (a BlobDB column family, an unflushed WAL: test/fixtures/legacy) and by
 * LevelDB 1.23 (test/fixtures/found/leveldb), which RocksDB 11.8.1 refuses to open, are rewritten;
 * then RocksDB 11.8.1 opens the output and every column family holds exactly what ldb 7.8.3 reads
 * from the source (ldb replays the source's WAL as RocksDB 11 replays the copied one), and ldb
 * 7.8.3's manifest_dump of the output lists the source's files on the source's levels.
 */
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/db/database.js'
import { assertFreshBuild, ROOT, sstkit, toolPresent } from '../helpers.js'
import { LDB, parseManifestDump } from '../db/ldb.js'
import { Rocks, rocksdbJs, type Entry } from '../rewrite/rocksdb-js.js'
import { v11WithTableOption } from '../rewrite/v11-options.js'
import { copyDir } from '../rewrite/scratch.js'

assertFreshBuild()
const work = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-db-slow-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
let n = 0
/** A copy to open: RocksDB and ldb write into a database they open (a new MANIFEST, the WAL flushed). */
const copy = (dir: string) => copyDir(work, dir)

/** Every entry of a column family as ldb 7.8.3 reads it (WAL replayed), in the binding's form. */
function ldbEntries(dir: string, cf: string): Entry[] {
  const r = spawnSync(LDB!, [`--db=${copy(dir)}`, `--column_family=${cf}`, 'scan', '--hex'], { encoding: 'latin1', maxBuffer: 256 * 1024 * 1024 })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [k, v] = line.split(' : ')
      return { key: k.slice(2).toLowerCase(), value: v.slice(2).toLowerCase() }
    })
}

function rocks11Entries(dir: string, cf: string): Entry[] {
  const db = new Rocks(copy(dir), { name: cf })
  try {
    return db.entries()
  } finally {
    db.close()
  }
}

const EXAMPLE = join(ROOT, 'examples/db')
const FOUND = join(ROOT, 'test/fixtures/found')
const LEGACY = join(ROOT, 'test/fixtures/legacy/v7-fv01')
const LEVELDB = join(ROOT, 'test/fixtures/found/leveldb')

describe.runIf(
  toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools') &&
    toolPresent('@harperfast/rocksdb-js-linux-x64-glibc', rocksdbJs !== null, 'npm run rocksdb11, on linux x64'),
)('RocksDB 11.8.1 opens what sstkit rewrote', () => {
  it('refuses the sources first: format_version 0 tables, and LevelDB tables', () => {
    expect(() => rocks11Entries(LEGACY, 'default')).toThrow(/legacy magic number/)
    // LevelDB's database has no OPTIONS file, which the binding needs; with the rewritten OPTIONS file beside them its tables are still refused.
    const leveldb = copy(LEVELDB)
    const out = join(work, `opts${n++}`)
    expect(sstkit(['rewrite', LEVELDB, '-o', out]).status).toBe(0)
    const options = readdirSync(out).find((f) => f.startsWith('OPTIONS-'))!
    cpSync(join(out, options), join(leveldb, options))
    expect(() => rocks11Entries(leveldb, 'default')).toThrow(/legacy magic number|Corruption|Not implemented/)
  })

  it.each([
    [LEGACY, ['default', 'events', 'blobs'], true],
    [LEVELDB, ['default'], false],
    [join(ROOT, 'examples/db'), ['default', 'events'], false],
    [join(ROOT, 'test/fixtures/found/blob'), ['default', 'meta'], false],
  ] as const)('%s: every column family equals the source as ldb 7.8.3 reads it; files on their levels', (dir, cfs, wal) => {
    const out = join(work, `out${n++}`)
    const r = sstkit(['rewrite', dir, '-o', out])
    expect(r.status, r.stderr).toBe(0)
    if (wal) expect(r.stdout).toMatch(/write-ahead logs copied, replayed by RocksDB when it opens/)
    for (const cf of cfs) {
      const want = ldbEntries(dir, cf)
      expect(want.length).toBeGreaterThan(0)
      expect(rocks11Entries(out, cf)).toEqual(want)
    }
    const manifest = readdirSync(out).find((f) => f.startsWith('MANIFEST-'))!
    const dump = spawnSync(LDB!, ['manifest_dump', '--verbose', '--hex', `--path=${join(out, manifest)}`], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })
    expect(dump.status, dump.stderr).toBe(0)
    const theirs = parseManifestDump(dump.stdout)
    for (const cf of openDatabase(dir).columnFamilies) {
      const levels = theirs.columnFamilies.find((c) => c.name === cf.name)!.levels
      for (const [level, files] of cf.levels.entries()) expect((levels.get(level) ?? []).map((f) => f.number)).toEqual(files.map((f) => f.fileNumber))
    }
  })

  it('the v11 database with separate_key_value_in_data_block and enable_index_compression=false in its OPTIONS: RocksDB 11 reads the rewrite as the source', () => {
    const src = v11WithTableOption(join(work, `v11-${n++}`), [
      { cf: 'default', option: 'enable_index_compression', value: 'false' },
      { cf: 'events', option: 'separate_key_value_in_data_block', value: 'true' },
    ])
    const out = join(work, `out${n++}`)
    const r = sstkit(['rewrite', src, '-o', out])
    expect(r.status, r.stderr).toBe(0)
    for (const cf of ['default', 'events']) {
      const want = rocks11Entries(src, cf)
      expect(want.length).toBeGreaterThan(100)
      expect(rocks11Entries(out, cf)).toEqual(want)
    }
  })

  it('the README example: examples/db rewritten under its advice, opened by RocksDB 11', () => {
    const advice = sstkit(['advise', join(ROOT, 'examples/db'), '--json'])
    expect(advice.status).toBe(0)
    const adviceFile = join(work, 'advice.json')
    writeFileSync(adviceFile, advice.stdout)
    const out = join(work, `advised${n++}`)
    const r = sstkit(['rewrite', join(ROOT, 'examples/db'), '-o', out, '--advice', adviceFile])
    expect(r.status, r.stderr).toBe(0)
    for (const cf of ['default', 'events']) expect(rocks11Entries(out, cf)).toEqual(ldbEntries(join(ROOT, 'examples/db'), cf))
  })
})

describe.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('the real ldb 7.8.3 opens the output', () => {
  const ldb = (db: string, args: string[]) => spawnSync(LDB!, [`--db=${db}`, ...args], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })

  it.each([EXAMPLE, join(FOUND, 'blob'), join(FOUND, 'names'), join(FOUND, 'leveldb')])(
    '%s: scan of every column family equals the source, dump_live_files lists the same files',
    (dir) => {
      const out = join(work, `out${n++}`)
      expect(sstkit(['rewrite', dir, '-o', out, '--compression', 'zstd']).status).toBe(0)
      for (const cf of openDatabase(dir).columnFamilies) {
        const want = ldb(copy(dir), [`--column_family=${cf.name}`, 'scan', '--hex'])
        const got = ldb(copy(out), [`--column_family=${cf.name}`, 'scan', '--hex'])
        expect(got.status, got.stderr).toBe(0)
        expect(got.stdout).toBe(want.stdout)
      }
      const live = ldb(copy(out), ['dump_live_files'])
      expect(live.status, live.stderr).toBe(0)
      const numbers = (text: string) => [...text.matchAll(/^ (\d+):\d+\[/gm)].map((m) => Number(m[1])).sort((a, b) => a - b)
      const sourceNumbers = openDatabase(dir)
        .columnFamilies.flatMap((c) => c.levels.flat().map((f) => f.fileNumber))
        .sort((a, b) => a - b)
      expect(numbers(live.stdout)).toEqual(sourceNumbers)
    },
  )
})

describe.runIf(toolPresent('db_bench', existsSync('/usr/bin/db_bench'), 'apt-get install rocksdb-tools'))('a signal during a database rewrite', () => {
  it('SIGTERM while tables are written: the run ends by the signal, nothing is left beside OUT, the source is untouched', async () => {
    const db = join(work, 'bench-db')
    const gen = spawnSync('/usr/bin/db_bench', [
      '--benchmarks=fillseq',
      `--db=${db}`,
      '--num=300000',
      '--value_size=200',
      '--compression_type=none',
      // 4 MiB memtables: flushed into tables while it runs (with the default 64 MiB one, db_bench 7.8.3 may close with every entry still in the WAL, and the rewrite has no table to be stopped in).
      '--write_buffer_size=4194304',
      '--target_file_size_base=4194304',
      '--seed=1',
      '--statistics=0',
      '--histogram=0',
    ])
    expect(gen.status).toBe(0)
    for (const f of readdirSync(db)) if (f === 'LOCK' || f.startsWith('LOG')) rmSync(join(db, f))
    const before = readdirSync(db).sort()
    const parent = join(work, 'signal-out')
    mkdirSync(parent)
    const child = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'rewrite', db, '-o', join(parent, 'db'), '--level', '19'], { stdio: 'ignore' })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
    // Wait for the temporary directory beside OUT to hold a table being written, then signal.
    const deadline = Date.now() + 60_000
    for (;;) {
      const tmp = readdirSync(parent).find((f) => f.startsWith('.db.sstkit-'))
      if (tmp && readdirSync(join(parent, tmp)).length > 0) break
      if (Date.now() > deadline) throw new Error('the rewrite never started writing')
      await new Promise((r) => setTimeout(r, 20))
    }
    child.kill('SIGTERM')
    expect(await exited).toBe('SIGTERM')
    expect(readdirSync(parent)).toEqual([])
    expect(readdirSync(db).sort()).toEqual(before)
  })
})

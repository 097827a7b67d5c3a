/**
 * The options advise writes for a database whose only data is on its bottommost level (test/fixtures/found/bottom-only,
 * RocksDB 7.8.3), given to the real ldb 7.8.3: a flush stays as today, a compaction into the level takes the advice.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, sstkit, toolPresent } from '../helpers.js'
import { LDB } from '../db/ldb.js'

const FEW = ['--types', 'lz4,zstd', '--levels', 'default', '--dict', 'none']
const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-empty-levels-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const tables = (db: string) => readdirSync(db).filter((f) => f.endsWith('.sst'))
const compressionOf = (file: string) => JSON.parse(sstkit(['props', file, '--json']).stdout).properties['rocksdb.compression'] as string

describe('all data on L1, the bottommost level (bottom-only: LZ4 today)', () => {
  const db = join(ROOT, 'test/fixtures/found/bottom-only')

  it.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))(
    'under the written OPTIONS file the real RocksDB flushes LZ4 as today and compacts into L1 with zstd',
    () => {
      const copy = join(tmp, 'bottom-only')
      cpSync(db, copy, { recursive: true })
      const written = join(copy, 'OPTIONS-999999')
      expect(sstkit(['advise', copy, '--write-options', written, ...FEW]).status).toBe(0)
      const text = readFileSync(written, 'utf8')
      expect(text).toMatch(/^ {2}compression=kLZ4Compression$/m)
      expect(text).not.toMatch(/compression_per_level=/)
      expect(text).toMatch(/^ {2}bottommost_compression=kZSTD$/m)
      // db-writer created the database with error_if_exists=true, which ldb --try_load_options would honour.
      writeFileSync(written, text.replace('error_if_exists=true', 'error_if_exists=false'))
      const ldb = (...args: string[]) => {
        const r = spawnSync(LDB!, [`--db=${copy}`, '--try_load_options', ...args], { encoding: 'utf8' })
        expect(r.status, r.stdout + r.stderr).toBe(0)
      }
      const before = tables(copy)
      // A put goes to the WAL; the next open replays it into a new L0 table (a flush).
      ldb('put', 'sstkit-k1', 'v1')
      ldb('put', 'sstkit-k2', 'v2')
      const flushed = tables(copy).filter((f) => !before.includes(f))
      expect(flushed).toHaveLength(1)
      expect(compressionOf(join(copy, flushed[0]))).toBe('LZ4')
      ldb('compact')
      const compacted = tables(copy)
      expect(compacted.filter((f) => before.includes(f) || flushed.includes(f))).toEqual([])
      for (const f of compacted) expect(compressionOf(join(copy, f)), f).toBe('ZSTD')
    },
  )
})

/**
 * The advice applied by real RocksDB: `--write-options` writes the database's newest OPTIONS file
 * with the advice in it; ldb 7.8.3 opens a copy of the database with that file, compacts every
 * column family with it and persists the new values; and the bytes RocksDB writes come true to
 * the projection and its interval.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { newestOptionsFile } from '../../src/db/options.js'
import { parseOptionMap, parseOptionsFile } from '../../src/format/options-file.js'
import { openTable } from '../../src/table/reader.js'
import { LDB } from '../db/ldb.js'
import { ROOT, sstkit } from '../helpers.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-apply-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Run ldb on `db`, failing the test on a non-zero exit. */
function ldb(db: string, ...args: string[]): void {
  const r = spawnSync(LDB!, [`--db=${db}`, '--try_load_options', ...args], { encoding: 'utf8' })
  expect(r.status, r.stdout + r.stderr).toBe(0)
}

/** The example database was created with error_if_exists=true, which its OPTIONS files keep: an open of the existing copy needs false. */
function openable(text: string): string {
  return text.replace('error_if_exists=true', 'error_if_exists=false')
}

function compactAll(db: string): void {
  ldb(db, 'compact')
  ldb(db, '--column_family=events', 'compact')
}

/** Per column family: bytes of data blocks and dictionary blocks in its table files (trailers included), as RocksDB wrote them. */
function writtenBytes(db: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const name of readdirSync(db).filter((n) => n.endsWith('.sst'))) {
    const t = openTable(join(db, name))
    try {
      const cf = String(t.properties.known.get('rocksdb.column.family.name'))
      // The dictionary block is stored uncompressed: its bytes and a 5-byte trailer.
      const dict = t.dictionary()?.length ?? 0
      out.set(cf, (out.get(cf) ?? 0) + Number(t.properties.known.get('rocksdb.data.size')) + (dict > 0 ? dict + 5 : 0))
    } finally {
      t.close()
    }
  }
  return out
}

describe('sstkit advise --write-options, applied by real RocksDB', () => {
  const db = join(tmp, 'db')
  const written = join(tmp, 'OPTIONS-advised')
  let advice: Advice
  let before: string

  beforeAll(() => {
    expect(LDB).not.toBeNull()
    // A copy of the example, compacted once with today's options: every column family's data in one file at its bottom,
    // so that compacting again with the advice rewrites the same blocks, each file with its own dictionary.
    cpSync(join(ROOT, 'examples/db'), db, { recursive: true })
    const today = newestOptionsFile(db)!
    writeFileSync(today, openable(readFileSync(today, 'utf8')))
    compactAll(db)
    before = readFileSync(newestOptionsFile(db)!, 'utf8')
    const r = sstkit(['advise', db, '--time-budget', '60s', '--write-options', written, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    advice = JSON.parse(r.stdout) as Advice
  }, 240_000)

  it("prints the change against today's section, and writes today's newest OPTIONS file with it applied (nothing else changed)", () => {
    const after = parseOptionsFile(readFileSync(written, 'utf8'))
    const was = parseOptionsFile(before)
    expect(after.sections.map((s) => `${s.title} ${s.argument}`)).toEqual(was.sections.map((s) => `${s.title} ${s.argument}`))
    for (const cf of advice.columnFamilies) {
      expect(cf.optionsChange?.length).toBeGreaterThan(0)
      const section = after.sections.find((s) => s.title === 'CFOptions' && s.argument === cf.name)!
      const old = was.sections.find((s) => s.title === 'CFOptions' && s.argument === cf.name)!
      for (const c of cf.optionsChange!) {
        expect(c.today).toBe(old.entries.get(c.key) ?? null)
        expect(section.entries.get(c.key)).toBe(c.advised)
      }
      const changed = new Set(cf.optionsChange!.map((c) => c.key))
      for (const [k, value] of old.entries) if (!changed.has(k)) expect(section.entries.get(k)).toBe(value)
    }
    // The JSON's budget: the same matrix, and time enough on a busy machine to sample every level.
    const text = sstkit(['advise', db, '--time-budget', '60s'])
    const first = advice.columnFamilies[0].optionsChange![0]
    if (first.today !== null) expect(text.stdout).toContain(`\n-  ${first.key}=${first.today}\n`)
    expect(text.stdout).toContain(`\n+  ${first.key}=${first.advised}\n`)
    expect(text.stdout).toMatch(/written for RocksDB 7\.8\.3 \(the OPTIONS file's rocksdb_version\)/)
  }, 180_000)

  it('ldb opens a copy with the written file, compacts with it, and persists the advised values', () => {
    writeFileSync(join(db, 'OPTIONS-999999'), openable(readFileSync(written, 'utf8')))
    compactAll(db)
    const persisted = parseOptionsFile(readFileSync(newestOptionsFile(db)!, 'utf8'))
    for (const cf of advice.columnFamilies) {
      const section = persisted.sections.find((s) => s.title === 'CFOptions' && s.argument === cf.name)!
      for (const [key, value] of Object.entries(cf.options)) {
        if (!key.endsWith('_opts')) expect(section.entries.get(key), `${cf.name} ${key}`).toBe(value)
        else for (const [k, v] of parseOptionMap(value)) expect(parseOptionMap(section.entries.get(key)!).get(k), `${cf.name} ${key}.${k}`).toBe(v)
      }
    }
  })

  it('writes the advised block_size into the table section, and ldb persists it', () => {
    const after = parseOptionsFile(readFileSync(written, 'utf8'))
    const persisted = parseOptionsFile(readFileSync(newestOptionsFile(db)!, 'utf8'))
    for (const cf of advice.columnFamilies) {
      const b = cf.blockSize!
      const table = (f: typeof after) => f.sections.find((s) => s.title === 'TableOptions/BlockBasedTable' && s.argument === cf.name)!.entries.get('block_size')
      expect(table(after), cf.name).toBe(String(b.recommended ?? b.today))
      expect(table(persisted), cf.name).toBe(String(b.recommended ?? b.today))
    }
  })

  it('the bytes RocksDB wrote come true to the projection (at the advised block size where it changes), within its interval (±0.1% for dictionary framing)', () => {
    const bytes = writtenBytes(db)
    for (const cf of advice.columnFamilies) {
      const levels = cf.levels.filter((l) => l.dataBlocks > 0)
      expect(levels.map((l) => l.bottommost)).toEqual([true])
      // --write-options wrote the block size too: the block size advice's projection of that level at it.
      const b = cf.blockSize!
      const k = b.candidates.findIndex((c) => c.blockSize === (b.recommended ?? b.today))
      const projected = b.recommended === null ? levels[0].recommended.estimate.bytes : b.levels.find((l) => l.level === levels[0].level)!.bytes[k]
      const real = bytes.get(cf.name)!
      expect(real, cf.name).toBeGreaterThanOrEqual(projected.low * 0.999)
      expect(real, cf.name).toBeLessThanOrEqual(projected.high * 1.001)
    }
  })
})

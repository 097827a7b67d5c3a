/**
 * `sstkit rewrite DB -o OUT` on real databases (examples/db and test/fixtures/found, written by
 * RocksDB 7.8.3 and LevelDB 1.23): the output replays to the same column families, levels and
 * files; every table holds the source table's entries; the real ldb 7.8.3 scans every column
 * family as it scans the source's (rewrite-db.slow.test.ts, with RocksDB 11.8.1 and the old-format sources).
 */
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/db/database.js'
import { tableLayout } from '../../src/table/layout.js'
import { openTable } from '../../src/table/reader.js'
import { EntryDigest } from '../../src/rewrite/entry-digest.js'
import { feedEntries } from '../../src/rewrite/rewrite.js'
import { Property } from '../../src/format/properties.js'
import { assertFreshBuild, ROOT, sstkit } from '../helpers.js'
import { v11WithTableOption } from '../rewrite/v11-options.js'

assertFreshBuild()
const EXAMPLE = join(ROOT, 'examples/db')
const FOUND = join(ROOT, 'test/fixtures/found')
const work = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-db-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
let n = 0
const fresh = () => join(work, `out${n++}`)

/** Every file's name, size and content hash: a directory that must not change. */
function snapshot(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map(
      (f) =>
        `${f} ${createHash('sha256')
          .update(readFileSync(join(dir, f)))
          .digest('hex')}`,
    )
}

function digest(path: string): string {
  const t = openTable(path)
  try {
    const d = new EntryDigest()
    feedEntries(t, {}, d)
    return `${d.points}/${d.tombstones}/${d.finish()}`
  } finally {
    t.close()
  }
}

/** The output holds the source's version: column families, levels, file numbers, key ranges, seqnos; each table the same entries. */
function expectSameDatabase(source: string, out: string): void {
  const a = openDatabase(source)
  const b = openDatabase(out)
  expect(b.missingFiles).toEqual([])
  expect(b.columnFamilies.map((c) => [c.id, c.name, c.logNumber])).toEqual(a.columnFamilies.map((c) => [c.id, c.name, c.logNumber]))
  expect(b.lastSequence).toBe(a.lastSequence)
  a.columnFamilies.forEach((cf, i) => {
    const files = (v: typeof cf) =>
      v.levels.map((l) =>
        l.map((f) => ({ n: f.fileNumber, level: f.level, s: Buffer.from(f.smallestKey).toString('hex'), l: Buffer.from(f.largestKey).toString('hex') })),
      )
    expect(files(b.columnFamilies[i])).toEqual(files(cf))
    for (const [j, f] of cf.levels.flat().entries()) {
      const g = b.columnFamilies[i].levels.flat()[j]
      expect(g.path.endsWith('.sst')).toBe(true)
      expect(digest(g.path)).toBe(digest(f.path))
      if (f.smallestSeqno <= f.largestSeqno) expect([g.smallestSeqno, g.largestSeqno]).toEqual([f.smallestSeqno, f.largestSeqno])
    }
  })
}

describe('sstkit rewrite DB -o OUT', () => {
  it("writes each column family's tables in the layout its OPTIONS gives: separate_key_value_in_data_block, enable_index_compression", () => {
    // Of each column family's tables: how many hold the values after the keys in their data blocks, and how many have a compressed index block.
    const layouts = (dir: string) =>
      openDatabase(dir).columnFamilies.map((cf) => {
        const tables = cf.levels.flat().map((f) => {
          const t = openTable(f.path)
          try {
            const index = tableLayout(t, { decompress: false, dataBlocks: false }).blocks.filter((b) => b.kind === 'index')
            return {
              separated: Number(t.properties.known.get(Property.SeparateKeyValueInDataBlock) ?? 0) === 1,
              indexCompressed: index.some((b) => b.compressionType !== 0),
            }
          } finally {
            t.close()
          }
        })
        return {
          cf: cf.name,
          tables: tables.length,
          separated: tables.filter((x) => x.separated).length,
          indexCompressed: tables.filter((x) => x.indexCompressed).length,
        }
      })
    // As RocksDB 11.8.1 wrote it (its defaults): inline, index blocks compressed where that saves enough; and so rewritten.
    const plain = fresh()
    expect(sstkit(['rewrite', join(ROOT, 'test/fixtures/db/v11'), '-o', plain]).status).toBe(0)
    expect(layouts(plain)).toEqual([
      { cf: 'default', tables: 2, separated: 0, indexCompressed: 2 },
      { cf: 'events', tables: 3, separated: 0, indexCompressed: 0 },
    ])
    // Its OPTIONS edited: index blocks stored raw in "default", values after the keys in "events".
    const src = v11WithTableOption(fresh(), [
      { cf: 'default', option: 'enable_index_compression', value: 'false' },
      { cf: 'events', option: 'separate_key_value_in_data_block', value: 'true' },
    ])
    const out = fresh()
    const r = sstkit(['rewrite', src, '-o', out])
    expect(r.status, r.stderr).toBe(0)
    expect(layouts(out)).toEqual([
      { cf: 'default', tables: 2, separated: 0, indexCompressed: 0 },
      { cf: 'events', tables: 3, separated: 3, indexCompressed: 0 },
    ])
    expectSameDatabase(src, out)
    // A flag still says otherwise for every column family.
    const flagged = fresh()
    expect(sstkit(['rewrite', src, '-o', flagged, '--separate-key-value']).status).toBe(0)
    expect(layouts(flagged).map((l) => l.separated)).toEqual([2, 3])
  })

  it('examples/db: every table rewritten on its level, the source untouched, no LOCK taken, nothing left beside OUT', () => {
    const before = snapshot(EXAMPLE)
    const out = fresh()
    const r = sstkit(['rewrite', EXAMPLE, '-o', out, '--compression', 'lz4'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/MANIFEST-\d+, OPTIONS-\d+, CURRENT, IDENTITY written\n/)
    // The check reads every table of the output and of the source again: as many entries as the source's tables hold.
    const sourceEntries = openDatabase(EXAMPLE)
      .columnFamilies.flatMap((c) => c.levels.flat())
      .reduce((sum, f) => {
        const t = openTable(f.path)
        const k = Number(t.properties.known.get(Property.NumEntries)) - Number(t.properties.known.get(Property.NumRangeDeletions) ?? 0)
        t.close()
        return sum + k
      }, 0)
    expect(r.stdout).toContain(`read back beside a second read of the source: 9 table(s), ${sourceEntries} entries and 0 range tombstones the same`)
    expectSameDatabase(EXAMPLE, out)
    expect(snapshot(EXAMPLE)).toEqual(before)
    expect(existsSync(join(EXAMPLE, 'LOCK'))).toBe(false)
    expect(readdirSync(work).filter((f) => f.startsWith('.'))).toEqual([])
    const db = openDatabase(out)
    for (const f of db.columnFamilies.flatMap((c) => c.levels.flat())) {
      const t = openTable(f.path)
      expect(t.properties.known.get(Property.Compression)).toBe('LZ4')
      t.close()
    }
    expect(readFileSync(join(out, 'IDENTITY'), 'utf8')).not.toBe(readFileSync(join(EXAMPLE, 'IDENTITY'), 'utf8'))
  })

  it('--advice: each level gets its recommended setting, lands on the projection, and OPTIONS carries the advice', () => {
    const adviceFile = join(work, 'advice.json')
    const a = sstkit(['advise', EXAMPLE, '--json'])
    expect(a.status).toBe(0)
    writeFileSync(adviceFile, a.stdout)
    const advice = JSON.parse(a.stdout)
    const out = fresh()
    const r = sstkit(['rewrite', EXAMPLE, '-o', out, '--advice', adviceFile, '--json'])
    expect(r.status, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout)
    expectSameDatabase(EXAMPLE, out)
    const db = openDatabase(out)
    for (const cf of advice.columnFamilies) {
      for (const level of cf.levels) {
        const want = level.recommended.estimate.setting
        const written = result.columnFamilies.find((c: { name: string }) => c.name === cf.name).levels.find((l: { level: number }) => l.level === level.level)
        expect(written.setting).toBe(want.label)
        // With a block size advised, the level is projected at that size under its setting (the block size advice's).
        const bs = cf.blockSize
        const at =
          bs && bs.recommended !== null && bs.recommended !== bs.today
            ? bs.candidates.findIndex((c: { blockSize: number }) => c.blockSize === bs.recommended)
            : -1
        const projected = at < 0 ? level.recommended.estimate.bytes : bs.levels.find((l: { level: number }) => l.level === level.level).bytes[at]
        expect(written.projected.estimate).toBe(projected.estimate)
        // examples/db is small: advise reads every block, and the bytes written are its projection.
        expect(written.projected.within).toBe(true)
        for (const f of db.columnFamilies.find((c) => c.name === cf.name)!.levels[level.level]) {
          const t = openTable(f.path)
          const names: Record<string, string> = { none: 'NoCompression', lz4: 'LZ4', snappy: 'Snappy', zstd: 'ZSTD', zlib: 'Zlib' }
          expect(t.properties.known.get(Property.Compression)).toBe(names[want.type])
          t.close()
        }
      }
    }
    const options = readFileSync(join(out, result.options), 'utf8')
    for (const cf of advice.columnFamilies)
      for (const [k, v] of Object.entries(cf.options)) if (k === 'compression_per_level') expect(options).toContain(`${k}=${v}`)
    for (const cf of advice.columnFamilies) if (cf.blockSize?.recommended) expect(options).toContain(`block_size=${cf.blockSize.recommended}\n`)
  })

  it('the check reads both databases again (range tombstones too); --no-verify skips it', () => {
    const db = join(ROOT, 'test/fixtures/db/versions')
    const r = sstkit(['rewrite', db, '-o', fresh(), '--json'])
    expect(r.status, r.stderr).toBe(0)
    const v = JSON.parse(r.stdout).verification
    const t = openTable(join(db, '000008.sst'))
    const ranges = Number(t.properties.known.get(Property.NumRangeDeletions))
    expect(v).toEqual({
      tables: 1,
      entries: Number(t.properties.known.get(Property.NumEntries)) - ranges,
      rangeTombstones: ranges,
      blobValues: 0,
      filesCompared: expect.any(Number),
      bytesCompared: expect.any(Number),
    })
    t.close()
    const skipped = sstkit(['rewrite', db, '-o', fresh(), '--json', '--no-verify'])
    expect(skipped.status, skipped.stderr).toBe(0)
    expect(JSON.parse(skipped.stdout)).toMatchObject({ verified: false, verification: null })
  })

  it('a LevelDB database becomes a RocksDB database: .sst tables with properties, a RocksDB MANIFEST', () => {
    const out = fresh()
    const r = sstkit(['rewrite', join(FOUND, 'leveldb'), '-o', out])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/no OPTIONS file \(LevelDB has none\)/)
    expectSameDatabase(join(FOUND, 'leveldb'), out)
    for (const f of openDatabase(out).columnFamilies[0].levels.flat()) {
      const t = openTable(f.path)
      expect(t.properties.raw.some((p) => p.name === Property.NumEntries)).toBe(true)
      expect(t.formatVersion).toBe(5)
      t.close()
    }
  })

  it('a BlobDB column family: blob files copied as they are, the blob references kept', () => {
    const out = fresh()
    const r = sstkit(['rewrite', join(FOUND, 'blob'), '-o', out, '--json'])
    expect(r.status, r.stderr).toBe(0)
    expectSameDatabase(join(FOUND, 'blob'), out)
    const db = openDatabase(out)
    expect(db.columnFamilies[0].blobFiles.map((b) => b.blobFileNumber)).toEqual(
      openDatabase(join(FOUND, 'blob')).columnFamilies[0].blobFiles.map((b) => b.blobFileNumber),
    )
    for (const b of db.columnFamilies[0].blobFiles) expect(readFileSync(b.path)).toEqual(readFileSync(join(FOUND, 'blob', b.path.slice(-11))))
    expect(db.columnFamilies[0].levels.flat().map((f) => f.oldestBlobFileNumber)).toEqual(
      openDatabase(join(FOUND, 'blob'))
        .columnFamilies[0].levels.flat()
        .map((f) => f.oldestBlobFileNumber),
    )
  })

  it('OUT must not exist; --force replaces only an empty directory; the source must not hold OUT', () => {
    const out = fresh()
    mkdirSync(out)
    const r = sstkit(['rewrite', EXAMPLE, '-o', out])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/exists \(the output must be a new directory; --force replaces an empty one\)\n$/)
    expect(sstkit(['rewrite', EXAMPLE, '-o', out, '--force']).status).toBe(0)
    expect(openDatabase(out).columnFamilies.length).toBe(2)
    const r2 = sstkit(['rewrite', EXAMPLE, '-o', out, '--force'])
    expect(r2.status).toBe(2)
    expect(r2.stderr).toMatch(/--force replaces only an empty directory/)
    expect(sstkit(['rewrite', EXAMPLE, '-o', join(EXAMPLE, 'sub')]).status).toBe(2)
    expect(sstkit(['rewrite', join(ROOT, 'examples/sample.sst'), '-o', fresh(), '--advice', 'x.json']).stderr).toMatch(/--advice needs a database directory/)
    const conflict = sstkit(['rewrite', EXAMPLE, '-o', fresh(), '--advice', 'x.json', '--compression', 'lz4'])
    expect(conflict.status).toBe(2)
    const notAdvice = join(work, 'not-advice.json')
    writeFileSync(notAdvice, '{"version": 2}')
    const bad = sstkit(['rewrite', EXAMPLE, '-o', fresh(), '--advice', notAdvice])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/not the JSON of `sstkit advise --json`/)
  })

  it('a damaged source table stops the run with one line naming it; no OUT, nothing left beside it', () => {
    const src = join(work, 'damaged-src')
    cpSync(EXAMPLE, src, { recursive: true })
    const victim = join(src, '000021.sst')
    const bytes = readFileSync(victim)
    bytes[100] ^= 0xff
    writeFileSync(victim, bytes)
    const dir = join(work, 'damaged-out')
    mkdirSync(dir)
    const out = join(dir, 'db')
    const r = sstkit(['rewrite', src, '-o', out])
    expect(r.status).toBe(1)
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    expect(r.stderr).toContain(victim)
    expect(r.stderr).toMatch(/refusing to rewrite a damaged input/)
    expect(readdirSync(dir)).toEqual([])
    const s = sstkit(['rewrite', src, '-o', out, '--salvage'])
    expect(s.status).toBe(1)
    expect(openDatabase(out).columnFamilies.flatMap((c) => c.levels.flat()).length).toBe(9)
  })
})

/**
 * advise's projection comes true on every level: real RocksDB 7.8.3 opens a copy of a small real
 * database with the OPTIONS file `advise --write-options` wrote and rewrites each table file on its
 * own level (test/fixtures/level-rewriter.cc: CompactFiles of the file to its level, compression
 * as the options give that level); per level, the data and dictionary bytes RocksDB wrote lie
 * inside the projection's 95% interval (EXACT_TOLERANCE where every block was compressed and the
 * interval is one point). Where advise also changes block_size (written with the rest), each level
 * is held to the block size advice's projection at the advised size, under the same setting (its
 * zstd levels within BLOCK_SIZE_ZSTD_TOLERANCE). A full compaction (advise-apply.test.ts) checks the
 * bottommost level only.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { openTable } from '../../src/table/reader.js'
import {
  BLOCK_SIZE_ZSTD_TOLERANCE,
  compareLevels,
  DICT_ZSTD_TOLERANCE,
  EXACT_TOLERANCE,
  type LevelComeTrue,
  measureLevels,
  type Rewritten,
  rewriteLevels,
} from '../fixtures/level-rewriter.mjs'
import { ROOT, sstkit } from '../helpers.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-levels-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

type Row = LevelComeTrue

/** advise on a copy of `source` (writing its OPTIONS file), then every level rewritten by RocksDB under it. */
function applied(name: string, source: string, args: string[]): { advice: Advice; rows: Row[]; rewritten: Rewritten } {
  const db = join(tmp, name)
  const written = join(tmp, `${name}.OPTIONS`)
  cpSync(source, db, { recursive: true })
  const r = sstkit(['advise', db, '--write-options', written, '--json', ...args])
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  const advice = JSON.parse(r.stdout) as Advice
  const rewritten = rewriteLevels(db, written)
  return { advice, rows: compareLevels(advice, measureLevels(db, rewritten, openTable)), rewritten }
}

// examples/db: small enough that advise compresses every block (exact projections), with the block size it
// advises (every file re-cut: exact too); db-medium (40 times more data): advise samples its larger levels, so
// their projections are intervals, held to them at today's block size (--block-size none: re-cut, every level's
// projection would be the block size's).
describe.each([
  { name: 'examples/db', source: 'examples/db', args: [], sampledLevels: 0 },
  { name: 'db-medium', source: 'test/fixtures/db-medium', args: ['--block-size', 'none'], sampledLevels: 2 },
])('advise --write-options on $name, every level rewritten in place by real RocksDB', ({ name, source, args, sampledLevels }) => {
  let advice: Advice
  let rows: Row[]
  let rewritten: Rewritten

  beforeAll(() => {
    ;({ advice, rows, rewritten } = applied(name.replace('/', '-'), join(ROOT, source), args))
  }, 120_000)

  it('rewrites every level advise read, file for file, on the same level', () => {
    const withData = advice.columnFamilies.flatMap((cf) => cf.levels.filter((l) => l.dataBlocks > 0).map((l) => ({ cf: cf.name, l })))
    expect(withData.length).toBeGreaterThan(4)
    expect(rows.map((r) => `${r.columnFamily} L${r.level}`)).toEqual(withData.map(({ cf, l }) => `${cf} L${l.level}`))
    for (const { cf, l } of withData) {
      const level = rewritten.columnFamilies.find((c) => c.name === cf)!.levels.find((x) => x.level === l.level)!
      expect(level.before.length, `${cf} L${l.level}`).toBe(l.files)
      expect(level.after.length, `${cf} L${l.level}`).toBe(l.files)
      expect(level.after.map((f) => f.name).filter((n) => level.before.some((b) => b.name === n))).toEqual([])
    }
  })

  it('writes each level with the setting advise recommended for it (type, level, dictionary)', () => {
    for (const cf of advice.columnFamilies) {
      for (const l of cf.levels.filter((x) => x.dataBlocks > 0)) {
        const row = rows.find((r) => r.columnFamily === cf.name && r.level === l.level)!
        const s = l.recommended.estimate.setting
        const what = `${cf.name} L${l.level} (${s.label})`
        expect(row.compressions, what).toEqual([{ none: 'NoCompression', snappy: 'Snappy', lz4: 'LZ4', lz4hc: 'LZ4HC', zlib: 'Zlib', zstd: 'ZSTD' }[s.type]])
        if (s.type !== 'none' && s.level !== null) for (const o of row.compressionOptions) expect(o, what).toContain(` level=${s.level};`)
        expect(row.filesWithDictionary, what).toBe(s.dict === 'none' ? 0 : l.files)
      }
    }
  })

  it('writes each level within its projection (at the advised block size where it changes): inside the 95% interval, or within the tolerance of an exact one', () => {
    for (const r of rows) {
      const what = `${r.columnFamily} L${r.level} ${r.setting}${r.blockSize === null ? '' : ` at block_size ${r.blockSize}`}: wrote ${r.written} B, projected ${r.projected?.estimate} [${r.projected?.low}, ${r.projected?.high}]`
      expect(r.projected, what).not.toBeNull()
      expect(r.written, what).not.toBeNull()
      expect(r.inside, what).toBe(true)
      if (r.exact) expect(Math.abs(r.deviation!), what).toBeLessThanOrEqual(r.tolerance)
      const zstd = r.setting!.startsWith('zstd')
      expect(r.tolerance).toBe(
        r.blockSize !== null && zstd ? BLOCK_SIZE_ZSTD_TOLERANCE : zstd && r.setting!.includes('dict=') ? DICT_ZSTD_TOLERANCE : EXACT_TOLERANCE,
      )
    }
    expect(rows.filter((r) => !r.exact).length).toBeGreaterThanOrEqual(sampledLevels)
    // examples/db's block size changes (every column family's): its levels were held to that projection.
    if (args.length === 0) expect(rows.every((r) => r.blockSize !== null)).toBe(true)
    else expect(advice.columnFamilies.every((cf) => cf.blockSize === undefined)).toBe(true)
  })
})

/**
 * advise's plan for an online database (advise/apply-plan.ts), carried out by the real ldb 7.8.3:
 * the command it names compacts a copy of examples/db, whose OPTIONS file holds the advice, and
 * every table then sits on one level under the bottommost setting, as the plan says.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { openDatabase } from '../../src/db/database.js'
import { Property } from '../../src/format/properties.js'
import { openTable } from '../../src/table/reader.js'
import { LDB } from '../db/ldb.js'
import { ROOT, sstkit, toolPresent } from '../helpers.js'

const work = mkdtempSync(join(tmpdir(), 'sstkit-apply-plan-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('the apply plan of a database', () => {
  const db = join(work, 'db')
  cpSync(join(ROOT, 'examples/db'), db, { recursive: true })
  const text = sstkit(['advise', db])
  const r = sstkit(['advise', db, '--json', '--write-options', join(db, 'OPTIONS-999999')])
  // db-writer created examples/db with error_if_exists=true, which ldb --try_load_options would honour.
  writeFileSync(join(db, 'OPTIONS-999999'), readFileSync(join(db, 'OPTIONS-999999'), 'utf8').replace('error_if_exists=true', 'error_if_exists=false'))
  const advice = JSON.parse(r.stdout) as Advice

  it('names the levels the advice changes, every table byte a full compaction rewrites, and the command', () => {
    expect(r.status, r.stderr).toBe(0)
    const plan = advice.applyPlan!
    expect(plan.columnFamilies.map((c) => c.name)).toEqual(['default', 'events'])
    for (const cf of plan.columnFamilies) {
      const levels = advice.columnFamilies.find((c) => c.name === cf.name)!.levels
      // examples/db's OPTIONS say what its files are: a level changes where the recommended setting is not today's.
      const want = levels.filter((l) => l.today?.setting.label !== l.recommended.estimate.setting.label).map((l) => l.level)
      expect(cf.changedLevels).toEqual(want)
      // The advised block size is written by the same compaction.
      const b = advice.columnFamilies.find((c) => c.name === cf.name)!.blockSize!
      expect(cf.blockSize).toBe(b.recommended)
      expect(cf.rewriteBytes).toBe(levels.reduce((s, l) => s + l.fileBytes, 0))
      expect(cf.bottommostSetting).toBe(levels.at(-1)!.recommended.estimate.setting.label)
      expect(cf.temporaryBytes).toBeGreaterThan(0)
      expect(cf.ldb).toBe(`ldb --db=${db} --try_load_options --column_family=${cf.name} compact`)
      expect(cf.online).toContain('bottommost_level_compaction=kForceOptimized')
    }
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(`ldb --db=${db} --try_load_options --column_family=default compact`)
    const b = advice.columnFamilies[0].blockSize!
    if (b.recommended !== null)
      expect(text.stdout.replace(/\s+/g, ' ')).toMatch(new RegExp(`column family "default" \\(the advice changes [^)]*block_size to ${b.recommended}\\)`))
  })

  it.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('ldb runs it: every table on one level, under the bottommost setting', () => {
    for (const cf of advice.applyPlan!.columnFamilies) {
      const [, ...args] = cf.ldb.split(' ')
      const c = spawnSync(LDB!, args, { encoding: 'utf8' })
      expect(c.status, c.stderr).toBe(0)
    }
    const after = openDatabase(db)
    const names: Record<string, string> = { none: 'NoCompression', snappy: 'Snappy', lz4: 'LZ4', zstd: 'ZSTD', zlib: 'Zlib' }
    for (const cf of after.columnFamilies) {
      const bottommost = advice.applyPlan!.columnFamilies.find((c) => c.name === cf.name)!.bottommostSetting.split(' ')[0]
      const used = cf.levels.map((l, i) => (l.length > 0 ? i : -1)).filter((i) => i >= 0)
      expect(used).toHaveLength(1)
      for (const f of cf.levels.flat()) {
        const t = openTable(f.path)
        expect(t.properties.known.get(Property.Compression)).toBe(names[bottommost])
        t.close()
      }
    }
    expect(readdirSync(db).some((f) => f.endsWith('.sst'))).toBe(true)
  })
})

/** advise writes options for the database's own RocksDB release: the release's source, what it may recommend, its syntax. */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { atLeast, parseRocksdbVersion } from '../../src/db/option-syntax.js'
import { needsOpts, optionsNeed, sharesOpts } from '../../src/db/compression-options.js'
import { optionName } from '../../src/decide/settings.js'
import { LDB } from '../db/ldb.js'
import { adviseJson } from './advise-run.js'
import { ROOT, sstkit } from '../helpers.js'

const EXAMPLE = join(ROOT, 'examples/db')
const FILES = readdirSync(EXAMPLE)
  .filter((n) => n.endsWith('.sst'))
  .map((n) => join(EXAMPLE, n))
const ZSTD3 = ['--types', 'zstd', '--levels', '3', '--dict', 'none,finalize', '--sample', '100%']
// Tables whose levels compress smaller with a finalized dictionary, its CPU allowed: finalize (RocksDB ≥ 7.3) wins.
const MEDIUM = join(ROOT, 'test/fixtures/db-medium')
const MEDIUM_FILES = readdirSync(MEDIUM)
  .filter((n) => n.endsWith('.sst'))
  .map((n) => join(MEDIUM, n))
const FINALIZE_WINS = [...MEDIUM_FILES, ...ZSTD3, '--max-compress-cpu-ratio', '1000']
const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-release-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('sstkit advise for a RocksDB release', () => {
  it('recommends only what 7.2 parses, and says what 7.3 would save (finalize dictionaries)', () => {
    const free = adviseJson(FINALIZE_WINS)
    const old = adviseJson([...FINALIZE_WINS, '--rocksdb-version', '7.2'])
    expect(old.source.rocksdbVersion).toEqual({ version: '7.2', from: 'flag' })
    const wanted = free.columnFamilies.flatMap((cf) => cf.levels).filter((l) => l.recommended.estimate.setting.dict === 'finalize')
    expect(wanted.length).toBeGreaterThan(0)
    let newer = 0
    for (const cf of old.columnFamilies) {
      expect(cf.optionsText).not.toContain('use_zstd_dict_trainer')
      for (const l of cf.levels) {
        expect(l.recommended.estimate.setting.dict).not.toBe('finalize')
        const before = free.columnFamilies.find((c) => c.name === cf.name)!.levels.find((x) => x.level === l.level)!.recommended.estimate
        if (before.setting.dict === 'finalize' && before.bytes.estimate < l.recommended.estimate.bytes.estimate) {
          newer++
          expect(l.newerRelease?.since).toBe('7.3')
          expect(l.newerRelease?.setting.label).toBe(before.setting.label)
          expect(l.newerRelease?.savedBytes).toBeCloseTo(l.recommended.estimate.bytes.estimate - before.bytes.estimate, 0)
          expect(l.newerRelease?.savedBytes).toBeGreaterThan(0)
        }
      }
    }
    expect(newer).toBeGreaterThan(0)
    const text = sstkit(['advise', ...FINALIZE_WINS, '--rocksdb-version', '7.2']).stdout
    expect(text).toMatch(/with RocksDB ≥ 7\.3: .*zstd 3 dict=finalize, −\d+\.\d% more/)
    expect(text).toContain('written for RocksDB 7.2 (--rocksdb-version)')
  })

  it("writes 6.2's colon form of compression_opts", () => {
    const a = adviseJson([...FILES, '--types', 'zstd', '--levels', '3', '--dict', 'none', '--time-budget', '10s', '--rocksdb-version', '6.2.4'])
    // window_bits:level:strategy (today's own setting, zstd 6 on one column family, is evaluated too).
    for (const cf of a.columnFamilies) expect(cf.options.compression_opts).toMatch(/^-14:(3|6):0$/)
  })

  it('before 5.15 the bottommost level shares compression_opts with the others; before 4.9 compression_per_level alone sets it', () => {
    // A copy without OPTIONS files or LOG: the release comes from the flag.
    const db = join(tmp, 'no-release')
    cpSync(EXAMPLE, db, { recursive: true })
    for (const n of readdirSync(db)) if (n.startsWith('OPTIONS-') || n.startsWith('LOG')) rmSync(join(db, n))
    for (const release of ['5.3', '4.8']) {
      const a = adviseJson([db, '--time-budget', '20s', '--rocksdb-version', release])
      expect(a.source.rocksdbVersion).toEqual({ version: release, from: 'flag' })
      for (const cf of a.columnFamilies) {
        expect(Object.keys(cf.options)).not.toContain('bottommost_compression_opts')
        if (release === '4.8') expect(Object.keys(cf.options)).not.toContain('bottommost_compression')
        // every line parses in the release
        for (const need of optionsNeed(cf.options)) expect(atLeast(parseRocksdbVersion(release)!, need.since), `${cf.name} ${need.key}`).toBe(true)
        // every sampled level's choice behaves as evaluated under the one compression_opts written
        const carrier = cf.levels.map((l) => l.recommended.estimate.setting).find((s) => needsOpts(s))
        if (carrier) for (const l of cf.levels) expect(sharesOpts(l.recommended.estimate.setting, carrier), `${cf.name} L${l.level}`).toBe(true)
        const bottom = cf.levels.find((l) => l.bottommost)!
        expect(cf.options.compression_per_level.split(':').at(-1)).toBe(optionName(bottom.recommended.estimate.setting))
      }
    }
  })

  it('without a release: the newest syntax, and each option says the release it needs', () => {
    const a = adviseJson(FINALIZE_WINS)
    expect(a.source.rocksdbVersion).toBeNull()
    const finalize = a.columnFamilies.find((cf) => cf.levels.some((l) => l.recommended.estimate.setting.dict === 'finalize'))!
    expect(finalize.optionsNeed?.find((n) => n.key === 'compression_opts')).toEqual({ key: 'compression_opts', since: '7.3', why: ['use_zstd_dict_trainer'] })
    const text = sstkit(['advise', ...FINALIZE_WINS]).stdout
    expect(text).toContain('compression_opts as written needs RocksDB ≥ 7.3 (use_zstd_dict_trainer)')
  })

  it("a database's own release wins over the flag; without OPTIONS files it is read from the LOG's header", () => {
    const own = adviseJson([EXAMPLE, ...ZSTD3, '--rocksdb-version', '6.2'])
    expect(own.source.rocksdbVersion).toEqual({ version: '7.8.3', from: 'OPTIONS' })
    expect(own.notes).toContainEqual({
      code: 'rocksdb-version-flag-ignored',
      flag: '6.2',
      from: 'OPTIONS',
      version: '7.8.3',
      text: "--rocksdb-version 6.2 left aside: the database's OPTIONS says RocksDB 7.8.3, and the options are written for it",
    })
    // A copy opened once by the real ldb 7.8.3 (which writes a LOG), then without its OPTIONS files.
    expect(LDB).not.toBeNull()
    const db = join(tmp, 'db')
    cpSync(EXAMPLE, db, { recursive: true })
    const withoutOptions = () => {
      for (const n of readdirSync(db)) if (n.startsWith('OPTIONS-')) rmSync(join(db, n))
    }
    // (its OPTIONS files say error_if_exists=true, so ldb opens it with its own defaults)
    withoutOptions()
    const r = spawnSync(LDB!, [`--db=${db}`, 'put', 'sstkit-test-key', 'v'], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    withoutOptions()
    expect(readdirSync(db)).toContain('LOG')
    const fromLog = adviseJson([db, ...ZSTD3])
    expect(fromLog.source.rocksdbVersion).toEqual({ version: '7.8.3', from: 'LOG' })
  })

  it('a release that is not X.Y[.Z] is a usage error', () => {
    const r = sstkit(['advise', ...FILES, '--rocksdb-version', 'seven'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe("sstkit: --rocksdb-version: 'seven' is not a release (X.Y or X.Y.Z)")
  })
})

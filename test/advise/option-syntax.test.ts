import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { applyAdvice, mergeCompressionOpts, optionsChange } from '../../src/db/apply-options.js'
import type { SettingSpec } from '../../src/types/advice.js'
import { atLeast, compressionOptsValue, minimumRelease, parseRocksdbVersion, supportedBy } from '../../src/db/option-syntax.js'
import { OPTION_VERSIONS } from '../../src/db/option-versions.js'
import { compressionOptsFields, optionsFor, optionsNeed } from '../../src/db/compression-options.js'
import { spec } from '../../src/decide/settings.js'
import { newestOptionsFile } from '../../src/db/options.js'
import { encodeOptionsFile, parseOptionsFile } from '../../src/format/options-file.js'
import { ROOT } from '../helpers.js'
import { LDB } from '../db/ldb.js'
import { RUN_DICT } from './options.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-option-syntax-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const EXAMPLE = join(ROOT, 'examples/db')
const v = (s: string) => parseRocksdbVersion(s)!

/** Every kind of setting advise recommends, bottommost and not. */
const SETTINGS: SettingSpec[] = [
  spec('none', null, 'none', false),
  spec('snappy', null, 'none', false),
  spec('lz4', null, 'none', false),
  spec('lz4', null, 'raw', false),
  spec('lz4hc', 9, 'none', false),
  spec('zlib', 6, 'raw', false),
  spec('zstd', 3, 'none', false),
  spec('zstd', -1, 'none', false),
  spec('zstd', 6, 'raw', false),
  spec('zstd', 9, 'train', false),
  spec('zstd', 19, 'finalize', false),
  spec('zstd', 3, 'none', true),
  spec('zstd', 3, 'finalize', false, { maxCompressedBytesPerKb: 900 }),
]

/** Whether the real ldb (7.8.3) opens a copy of examples/db with `section` (key → value) set in every column family. */
function ldbLoads(options: Record<string, string>): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmp, 'db-'))
  cpSync(EXAMPLE, dir, { recursive: true })
  const newest = newestOptionsFile(dir)!
  const { file } = applyAdvice(parseOptionsFile(readFileSync(newest, 'utf8')), [
    { name: 'default', options },
    { name: 'events', options },
  ])
  // The example was created with error_if_exists=true, which its OPTIONS file keeps: an open of the existing copy needs false.
  writeFileSync(join(dir, 'OPTIONS-999999'), encodeOptionsFile(file).replace('error_if_exists=true', 'error_if_exists=false'))
  const r = spawnSync(LDB!, [`--db=${dir}`, '--try_load_options', 'scan', '--max_keys=1'], { encoding: 'utf8' })
  rmSync(dir, { recursive: true, force: true })
  return { ok: r.status === 0, output: r.stdout + r.stderr }
}

describe('the first RocksDB release of each option, derived from its sources', () => {
  it('has the releases its changelog names for the fields advise writes', () => {
    expect(OPTION_VERSIONS.compressionOptsBraceForm).toBe('6.12')
    expect(OPTION_VERSIONS.compressionOptsBraceFields).toMatchObject({
      max_dict_buffer_bytes: '6.18',
      use_zstd_dict_trainer: '7.3',
      max_compressed_bytes_per_kb: '8.2',
      checksum: '8.6',
    })
    expect(OPTION_VERSIONS.columnFamilyOptions.bottommost_compression_opts).toBe('5.15')
    expect(OPTION_VERSIONS.compressionTypes.kZSTD).toBe('4.12')
    // Auto-skip (CompressionOptions::auto_skip) is in no release the table was derived from.
    expect('auto_skip' in OPTION_VERSIONS.compressionOptsBraceFields).toBe(false)
  })

  it('a setting needs the release of its newest field', () => {
    expect(minimumRelease(spec('zstd', 3, 'finalize', false))).toBe('7.3')
    expect(minimumRelease(spec('zstd', 3, 'none', true))).toBe('8.6')
    // a trained dictionary needs zstd_max_train_bytes (5.14), a raw one max_dict_bytes (4.8)
    expect(minimumRelease(spec('zstd', 3, 'train', false))).toBe('5.14')
    expect(minimumRelease(spec('lz4', null, 'raw', false))).toBe('4.8')
    expect(supportedBy(v('7.2.2'), spec('zstd', 3, 'finalize', false))).toBe(false)
    expect(supportedBy(v('7.3'), spec('zstd', 3, 'finalize', false))).toBe(true)
    expect(supportedBy(v('8.5.4'), spec('zstd', 3, 'none', true))).toBe(false)
    expect(atLeast(v('10.0'), '9.11')).toBe(true)
    expect(parseRocksdbVersion('7.8.3-rc1')).toBeNull()
  })

  it('compression_opts in the syntax of each release: the colon form before 6.12, fields a release lacks left out', () => {
    const train = compressionOptsFields(spec('zstd', 3, 'train', false), RUN_DICT, true)
    expect(compressionOptsValue(train, v('6.2.4'))).toBe('-14:3:0:16384:1638400:true')
    expect(compressionOptsValue(train, v('5.3.6'))).toBe('-14:3:0:16384')
    expect(compressionOptsValue(train, v('6.12'))).toBe('{level=3;max_dict_bytes=16384;zstd_max_train_bytes=1638400;enabled=true;}')
    expect(compressionOptsValue(train, v('7.8.3'))).toBe(
      '{level=3;max_dict_bytes=16384;zstd_max_train_bytes=1638400;max_dict_buffer_bytes=67108864;enabled=true;}',
    )
    const plain = compressionOptsFields(spec('zstd', 6, 'none', false), RUN_DICT, false)
    expect(compressionOptsValue(plain, v('6.2'))).toBe('-14:6:0')
  })

  it('without a release, each option says the one it needs', () => {
    const options = optionsFor({ columnFamily: 'default', levels: null, single: spec('zstd', 19, 'finalize', false), dynamicLevels: null }, RUN_DICT)
    const need = optionsNeed(options)
    expect(need.find((n) => n.key === 'compression_opts')).toEqual({ key: 'compression_opts', since: '7.3', why: ['use_zstd_dict_trainer'] })
    expect(need.find((n) => n.key === 'compression')?.since).toBe('4.12')
  })

  it("merges into today's compression_opts field by field, turning off a checksum and a finalize the advice does not want", () => {
    const today = '{checksum=true;level=32767;use_zstd_dict_trainer=false;parallel_threads=4;}'
    expect(mergeCompressionOpts(today, '{level=3;max_dict_bytes=16384;zstd_max_train_bytes=1638400;}')).toBe(
      '{checksum=false;level=3;use_zstd_dict_trainer=true;parallel_threads=4;max_dict_bytes=16384;zstd_max_train_bytes=1638400;}',
    )
    expect(optionsChange({ compression: 'kZSTD' }, { compression: 'kZSTD', bottommost_compression: 'kZSTD' })).toEqual([
      { key: 'bottommost_compression', today: null, advised: 'kZSTD' },
    ])
  })

  it('the real RocksDB 7.8.3 (ldb) loads every setting as written for 7.8.3, bottommost and not, and the colon form of 6.2', { timeout: 120_000 }, () => {
    expect(LDB).not.toBeNull()
    const release = v('7.8.3')
    for (const s of SETTINGS) {
      if (!supportedBy(release, s)) continue
      const plan = {
        columnFamily: 'default',
        levels: [
          { level: 1, bottommost: false, setting: s },
          { level: 3, bottommost: true, setting: s },
        ],
        single: null,
        dynamicLevels: null,
      }
      for (const version of [release, v('6.2.4')]) {
        if (!supportedBy(version, s)) continue
        const r = ldbLoads(optionsFor(plan, RUN_DICT, version))
        expect(r.output, `${s.label} for ${version.join('.')}`).not.toMatch(/Failed|Invalid/)
        expect(r.ok, `${s.label} for ${version.join('.')}: ${r.output}`).toBe(true)
      }
    }
  })

  it('and rejects what a later release added (the check can fail): the newest syntax with a checksum', () => {
    const s = spec('zstd', 3, 'none', true)
    expect(supportedBy(v('7.8.3'), s)).toBe(false)
    const r = ldbLoads(optionsFor({ columnFamily: 'default', levels: null, single: s, dynamicLevels: null }, RUN_DICT, null))
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/checksum/)
  })
})

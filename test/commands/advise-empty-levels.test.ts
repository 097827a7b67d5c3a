/**
 * advise on databases whose levels above the data hold nothing (RocksDB 7.8.3, test/fixtures/found/README.md):
 * the options change no level that was not sampled, and print no compression_per_level that changes nothing.
 * advise-empty-levels.slow.test.ts has the real ldb 7.8.3 write under the options written.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { ROOT, sstkit } from '../helpers.js'
import { optionName } from '../../src/decide/settings.js'

const FOUND = join(ROOT, 'test/fixtures/found')
const FEW = ['--types', 'lz4,zstd', '--levels', 'default', '--dict', 'none']

describe('all data on L1, the bottommost level (bottom-only: LZ4 today)', () => {
  const db = join(FOUND, 'bottom-only')

  it('advises bottommost_compression alone: compression, which flushes and the empty levels above use, stays as it is', () => {
    const r = sstkit(['advise', db, '--json', ...FEW])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    const [cf] = a.columnFamilies
    expect(cf.levels.map((l) => [l.level, l.bottommost, l.todayCompression])).toEqual([[1, true, 'LZ4']])
    expect(cf.levels[0].recommended.estimate.setting.type).toBe('zstd')
    expect(Object.keys(cf.options)).toEqual(['bottommost_compression', 'bottommost_compression_opts'])
    expect(cf.optionsChange?.map((c) => c.key)).toEqual(['bottommost_compression', 'bottommost_compression_opts'])
    expect(a.notes).toContainEqual({
      code: 'only-bottommost-level',
      columnFamily: 'default',
      level: 1,
      text: 'default: only L1, the bottommost level, holds data: compression (flushes and the levels above it) is left as it is, with no data there to decide on',
    })
  })
})

describe('all data on L0 (names: one flush per column family, no compression_per_level today)', () => {
  it('prints no compression_per_level: its one entry is what compression gives', () => {
    const r = sstkit(['advise', join(FOUND, 'names'), '--json', ...FEW])
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    const populated = a.columnFamilies.filter((cf) => cf.levels.some((l) => l.dataBlocks > 0))
    expect(populated.length).toBe(6)
    for (const cf of populated) {
      expect(cf.levels.map((l) => l.level)).toEqual([0])
      expect(cf.options.compression, cf.name).toBe(optionName(cf.levels[0].recommended.estimate.setting))
      expect(cf.options.compression_per_level, cf.name).toBeUndefined()
      expect(cf.optionsChange?.map((c) => c.key) ?? [], cf.name).not.toContain('compression_per_level')
    }
  })
})

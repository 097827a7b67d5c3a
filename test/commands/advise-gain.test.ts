/**
 * No change without a gain, also where upper levels share compression_opts: a level the largest
 * upper level's options would make change (its today's setting does not behave as evaluated under
 * them) for less than MIN_GAIN keeps today's, and the shared options are today's of that level.
 * db-medium's default L1 holds incompressible data stored with LZ4; its L2 gains from a finalized
 * dictionary, which would give LZ4 a raw dictionary.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MIN_GAIN } from '../../src/decide/rule.js'
import type { Advice } from '../../src/types/advice.js'
import { ROOT, sstkit } from '../helpers.js'

const MEDIUM = join(ROOT, 'test/fixtures/db-medium')

describe('advise: a change that does not pay is never recommended', () => {
  it('under explicit limits, with compression_opts shared by the upper levels', () => {
    const r = sstkit([
      'advise',
      MEDIUM,
      '--types',
      'zstd',
      '--levels',
      '3',
      '--dict',
      'none,finalize',
      '--max-compress-cpu-ratio',
      '1000',
      '--sample',
      '100%',
      '--json',
    ])
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    const levels = a.columnFamilies.flatMap((cf) => cf.levels.map((l) => ({ cf: cf.name, ...l })))
    let kept = 0
    for (const l of levels) {
      if (!l.today || l.recommended.estimate.setting.label === l.today.setting.label) {
        kept++
        continue
      }
      // Storing raw what does not compress pays in CPU, not bytes.
      if (l.recommended.estimate.setting.type === 'none') continue
      expect(l.recommended.estimate.bytes.estimate, `${l.cf} L${l.level}`).toBeLessThanOrEqual(l.today.bytes.estimate * (1 - MIN_GAIN))
    }
    expect(kept).toBeGreaterThan(0)
    const l1 = levels.find((l) => l.cf === 'default' && l.level === 1)!
    expect(l1.todayCompression).toBe('LZ4')
    expect(l1.recommended.estimate.setting.label).toBe('lz4')
    // Today's LZ4 keeps no dictionary: the shared compression_opts have none.
    const def = a.columnFamilies.find((cf) => cf.name === 'default')!
    expect(def.optionsText).toMatch(/compression_per_level=\S*kLZ4Compression/)
    expect(def.optionsText).toMatch(/^ {2}compression_opts=\{[^}]*max_dict_bytes=0;/m)
  })
})

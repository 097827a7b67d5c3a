/**
 * A level whose next round would read most of its blocks is read whole (a
 * census): its totals are the exhaustive ones exactly, with zero-width
 * intervals, and it says it stopped on all blocks. On
 * test/fixtures/db-medium (written by real RocksDB), default L2 has 402 blocks
 * and events L4 392: a first round of 256 blocks would be 64% of either, so
 * both are read whole; default L3 (950 blocks) is sampled, at under half.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { adviseGroups } from '../../src/advise/engine.js'
import { resolveInputs } from '../../src/advise/inputs.js'
import type { Advice } from '../../src/types/advice.js'
import { CENSUS_SHARE, roundRate } from '../../src/advise/sampling.js'
import { spec } from '../../src/decide/settings.js'
import { ROOT } from '../helpers.js'
import { testAdviseOptions } from './options.js'

const DB = join(ROOT, 'test/fixtures/db-medium')
const SETTINGS = [spec('lz4', null, 'none', false), spec('zstd', 3, 'none', false), spec('zstd', 3, 'finalize', false)]

async function run(fixedRate: number | null): Promise<Advice> {
  const inputs = resolveInputs([DB])
  return adviseGroups(inputs.groups, testAdviseOptions(inputs, SETTINGS, { fixedRate }))
}

const levelsOf = (a: Advice) => new Map(a.columnFamilies.flatMap((c) => c.levels.map((l) => [`${c.name} L${l.level}`, l] as const)))

describe('census: most of a level means all of it', () => {
  it('takes the whole level once a round would reach half of it', () => {
    expect(roundRate(CENSUS_SHARE - 0.01)).toBe(CENSUS_SHARE - 0.01)
    expect(roundRate(CENSUS_SHARE)).toBe(1)
    expect(roundRate(0.9)).toBe(1)
  })

  it('reads db-medium’s default L2 and events L4 whole: exact totals, zero-width intervals, stopped on all blocks', async () => {
    const truth = levelsOf(await run(1))
    const adaptive = levelsOf(await run(null))
    for (const name of ['default L2', 'events L4'] as const) {
      const l = adaptive.get(name)!
      expect(l.dataBlocks, name).toBeGreaterThan(256)
      expect(l.sample.stopped, name).toBe('all-blocks')
      expect(l.sample.share, name).toBe(1)
      expect(l.sample.blocks, name).toBe(l.dataBlocks)
      l.matrix.forEach((m, i) => {
        const exact = truth.get(name)!.matrix[i].bytes.estimate
        expect(m.bytes, `${name} ${m.setting.label}`).toEqual({ estimate: exact, low: exact, high: exact })
      })
    }
    // A level that reaches the precision on under half of its blocks is still sampled.
    const sampled = adaptive.get('default L3')!
    expect(sampled.sample.share).toBeLessThan(CENSUS_SHARE)
    expect(sampled.sample.stopped).toBe('precision')
  }, 300_000)
})

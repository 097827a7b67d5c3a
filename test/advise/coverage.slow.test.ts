/**
 * The estimates against the truth, on a database written by real RocksDB
 * (test/fixtures/db-medium): each sampled estimate lies close to the exhaustive
 * figure and its 95% interval covers it at about the stated rate. A 95% interval
 * misses 5% of the time by definition, so the test asks for the rate, not for
 * every pair; the seeds are fixed, so the test is deterministic.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { adviseGroups } from '../../src/advise/engine.js'
import { resolveInputs } from '../../src/advise/inputs.js'
import type { Advice } from '../../src/types/advice.js'
import { spec } from '../../src/decide/settings.js'
import { ROOT } from '../helpers.js'
import { testAdviseOptions } from './options.js'

const DB = join(ROOT, 'test/fixtures/db-medium')

const SETTINGS = [
  spec('none', null, 'none', false),
  spec('snappy', null, 'none', false),
  spec('lz4', null, 'none', false),
  spec('zstd', 1, 'none', false),
  spec('zstd', 3, 'none', false),
  spec('zstd', 9, 'none', false),
  spec('zstd', 3, 'finalize', false),
  spec('zstd', 9, 'finalize', false),
  spec('zstd', 3, 'raw', false),
  spec('zstd', 3, 'train', false),
  spec('zstd', 3, 'none', true),
]

async function run(fixedRate: number, seed: number): Promise<Advice> {
  const inputs = resolveInputs([DB])
  return adviseGroups(inputs.groups, testAdviseOptions(inputs, SETTINGS, { fixedRate, seed }))
}

function byKey(a: Advice) {
  return new Map(a.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.matrix.map((m) => [`${c.name} L${l.level} ${m.setting.label}`, { m, l }] as const))))
}

describe('advise estimates against the exhaustive evaluation of the same live files', () => {
  it('at 20% of the blocks: every estimate within 1%, and ≥ 95% of the intervals cover the truth', async () => {
    const truth = byKey(await run(1, 0))
    const sampledLevels = [...truth.values()].filter(({ l }) => l.dataBlocks > 256)
    expect(sampledLevels.length).toBeGreaterThan(0)
    let pairs = 0
    let covered = 0
    for (const seed of [0, 1, 2, 3]) {
      const est = byKey(await run(0.2, seed))
      for (const [key, { m, l }] of est) {
        const t = truth.get(key)!.m.bytes.estimate
        if (l.dataBlocks <= 256) {
          // Small levels are evaluated whole: exact.
          expect(m.bytes.estimate, key).toBe(t)
          continue
        }
        expect(l.sample.share).toBeLessThan(0.5)
        expect(Math.abs(m.bytes.estimate / t - 1), key).toBeLessThan(0.01)
        pairs++
        if (m.bytes.low <= t && t <= m.bytes.high) covered++
      }
    }
    expect(pairs).toBeGreaterThan(100)
    expect(covered / pairs).toBeGreaterThanOrEqual(0.95)
  }, 300_000)
})

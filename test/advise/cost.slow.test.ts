/**
 * advise --objective cost at the extremes of its prices, and without a measured workload, through
 * the built CLI on databases db_bench 7.8.3 wrote (test/fixtures/workload-log.mjs).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Advice, LevelAdvice } from '../../src/types/advice.js'
import { speedsOf } from '../../src/decide/cost.js'
import { jsonNoteTexts, sstkit, toolPresent } from '../helpers.js'
// @ts-expect-error: a plain .mjs generator without declarations
import { DB_BENCH, writeWorkload } from '../fixtures/workload-log.mjs'

const WHOLE = ['--sample', '100%']

function advise(args: string[]): Advice {
  const r = sstkit(['advise', ...args, '--json'])
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Advice
}

const levelsOf = (a: Advice): LevelAdvice[] => a.columnFamilies.flatMap((c) => c.levels)

describe.runIf(toolPresent('db_bench', DB_BENCH !== null, 'apt-get install rocksdb-tools'))('advise --objective cost', () => {
  let dir: string
  const dbs: Record<string, string> = {}
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-cost-slow-'))
    for (const name of ['overwrite', 'quiet', 'statistics']) dbs[name] = writeWorkload(name, join(dir, name))
  }, 120_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('free CPU buys the smallest setting; dear CPU stores raw where the LOG saw writes', () => {
    const storage = advise([dbs.overwrite, ...WHOLE, '--objective', 'cost', '--cpu-price', '0', '--storage-price', '1000', '--write-rate', '20GB'])
    for (const l of levelsOf(storage)) {
      const smallest = Math.min(...l.matrix.map((x) => x.bytes.estimate))
      expect(l.recommended.estimate.bytes.estimate).toBe(smallest)
    }
    const cpu = advise([dbs.overwrite, ...WHOLE, '--objective', 'cost', '--cpu-price', '1000000', '--storage-price', '0', '--write-rate', '20GB'])
    const priced = levelsOf(cpu).filter((l) => l.cost)
    expect(priced.length).toBeGreaterThan(0)
    for (const l of priced) expect(l.recommended.estimate.setting.type).toBe('none')
  }, 300_000)

  it('statistics on: reads priced on the bottommost level from rocksdb.block.cache.data.miss, and said so', () => {
    const a = advise([dbs.statistics, ...WHOLE])
    const w = a.workload!
    const reads = w.measured!.reads!
    expect(reads.dataBlockMissesPerSec).toBeGreaterThan(0)
    expect(w.readsNote).toMatchObject({ code: 'reads-measured', dataBlockMissesPerSec: reads.dataBlockMissesPerSec })
    expect((w.readsNote as { text?: string }).text).toMatch(/rocksdb\.block\.cache\.data\.miss .* put on each column family's bottommost level/)
    let bottom = 0
    for (const l of levelsOf(a)) {
      if (!l.cost) continue
      for (const [i, s] of l.cost.settings.entries()) {
        const x = l.matrix[i]
        if (!l.bottommost) expect(s.readCores).toBeNull()
        else if (x.setting.type === 'none') expect(s.readCores).toBe(0)
        else {
          const mbps = speedsOf(x).decompressMBps!
          const meanBlock = l.sample.uncompressedBytes / l.sample.blocks
          expect(s.readCores).toBeCloseTo((reads.dataBlockMissesPerSec * meanBlock) / (mbps * 1e6), 12)
          bottom++
        }
      }
    }
    expect(bottom).toBeGreaterThan(0)
  }, 300_000)

  it('without a measured workload: says so, and the balanced rules decide', () => {
    const cost = advise([dbs.quiet, ...WHOLE, '--objective', 'cost'])
    const balanced = advise([dbs.quiet, ...WHOLE])
    expect(cost.notes.map((n) => n.code)).toContain('cost-without-workload')
    expect(jsonNoteTexts(cost).some((n) => /objective cost without a measured workload: .* the balanced rules decide/.test(n))).toBe(true)
    expect(levelsOf(cost).map((l) => l.recommended.estimate.setting.label)).toEqual(levelsOf(balanced).map((l) => l.recommended.estimate.setting.label))
    for (const l of levelsOf(cost)) expect(l.recommended.reason).not.toMatch(/least total/)
  }, 120_000)
})

// Advise's runs that must not depend on --jobs, --seed or sharding: several full runs each, so
// under `npm run test:slow`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { adviseJson } from './advise-run.js'
import { ROOT, sstkit } from '../helpers.js'

const EXAMPLE = join(ROOT, 'examples/db')
/** Levels of hundreds of blocks (layered at 40x), so that a --sample share really samples. */
const MEDIUM = join(ROOT, 'test/fixtures/db-medium')
/** A small matrix: these tests are about which blocks are evaluated, not about the settings. */
const FEW = ['--types', 'zstd,lz4', '--levels', 'default', '--dict', 'none,finalize']
const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-shards-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** What must not depend on jobs, shards or timings: every size figure of every level and setting. */
function sizes(a: Advice) {
  return a.columnFamilies.flatMap((cf) =>
    cf.levels.flatMap((l) =>
      l.matrix.map((m) => ({
        where: `${cf.name} L${l.level}`,
        setting: m.setting.label,
        bytes: m.bytes,
        n: m.sums.n,
        sumC: m.sums.sumC,
        sumCC: m.sums.sumCC,
        dict: m.dictBytes,
        blocks: l.sample.blocks,
        share: l.sample.share,
      })),
    ),
  )
}

// Each test runs advise several times (up to 76 s under load 13 on 2 cores): a timeout of its own.
describe('sstkit advise: --jobs, --seed and shards', () => {
  it('the same seed gives the same sizes for any --jobs', () => {
    const one = adviseJson([MEDIUM, ...FEW, '--sample', '30%', '--jobs', '1'])
    const two = adviseJson([MEDIUM, ...FEW, '--sample', '30%', '--jobs', '2'])
    expect(sizes(two)).toEqual(sizes(one))
    expect(sizes(one).some((x) => x.bytes.high > x.bytes.low)).toBe(true)
    // The block size too: each level re-cut under the compression advised for it (which the measured speeds may move
    // between runs); where the two runs advised the same, the same files re-cut (30% of each level's), the same bytes.
    const settings = (a: Advice) => a.columnFamilies.map((cf) => cf.blockSize!.levels.map((l) => l.setting))
    for (const a of [one, two])
      for (const cf of a.columnFamilies)
        for (const l of cf.blockSize!.levels) expect(l.setting).toBe(cf.levels.find((x) => x.level === l.level)!.recommended.estimate.setting.label)
    const blockSizes = (a: Advice) => a.columnFamilies.map((cf) => [cf.blockSize!.files, cf.blockSize!.candidates.map((c) => c.bytes)])
    if (JSON.stringify(settings(one)) === JSON.stringify(settings(two))) expect(blockSizes(two)).toEqual(blockSizes(one))
    const other = adviseJson([MEDIUM, ...FEW, '--sample', '30%', '--seed', '7', '--block-size', 'none'])
    expect(sizes(other)).not.toEqual(sizes(one))
  }, 300_000)

  it('N shards merged give the one-run sizes exactly', () => {
    // Shards do not advise block size (a column family's files are spread over them): the one run leaves it out too.
    const whole = adviseJson([MEDIUM, ...FEW, '--sample', '30%', '--block-size', 'none'])
    expect(sizes(whole).some((x) => x.bytes.high > x.bytes.low)).toBe(true)
    const parts = [0, 1, 2].map((k) => {
      const r = sstkit(['advise', MEDIUM, ...FEW, '--sample', '30%', '--shard', `${k}/3`, '--json'])
      expect(r.status).toBe(0)
      const file = join(tmp, `part${k}.json`)
      writeFileSync(file, r.stdout)
      return file
    })
    const merged = sstkit(['advise', '--merge', ...parts, '--json'])
    expect(merged.status).toBe(0)
    expect(sizes(JSON.parse(merged.stdout) as Advice)).toEqual(sizes(whole))
    const missing = sstkit(['advise', '--merge', parts[0], parts[1]])
    expect(missing.status).toBe(2)
    expect(missing.stderr).toMatch(/1 of 3 shards missing/)
  }, 300_000)

  it("shards merged keep the info LOG's workload: the same costs and the same rate-weighted choices as one run, in the database's release syntax", () => {
    const whole = adviseJson([EXAMPLE, '--sample', '50%', '--block-size', 'none'])
    expect(whole.workload?.measured).toBeTruthy()
    const parts = [0, 1].map((k) => {
      const r = sstkit(['advise', EXAMPLE, '--sample', '50%', '--shard', `${k}/2`, '--json'])
      expect(r.status).toBe(0)
      const file = join(tmp, `logged${k}.json`)
      writeFileSync(file, r.stdout)
      return file
    })
    const merged = JSON.parse(sstkit(['advise', '--merge', ...parts, '--json']).stdout) as Advice
    expect(merged.workload).toEqual(whole.workload)
    const levels = (a: Advice) => a.columnFamilies.flatMap((c) => c.levels)
    // (dictionary building is timed in each run: the reasons' lists of what it rules out may differ, not the weighting)
    const weighted = (a: Advice) =>
      levels(a).map((l) => [l.recommended.estimate.setting.label, /weighted by this level's measured write rate/.test(l.recommended.reason)])
    expect(weighted(merged)).toEqual(weighted(whole))
    expect(levels(merged).every((l) => l.cost?.recommended.label === l.recommended.estimate.setting.label)).toBe(true)
    // The workload's note among the merged notes once, with its sentence (compared as code and values, not words).
    expect(merged.notes.filter((n) => n.code === whole.workload!.note.code)).toEqual([whole.workload!.note])
    expect(merged.columnFamilies.map((c) => c.optionsText)).toEqual(whole.columnFamilies.map((c) => c.optionsText))
  }, 300_000)
})

/**
 * End to end on synthetic files (real SSTs written by sstkit's writer): the
 * auto-skip regimes 1 (incompressible), 2 (compressible) and 4 (high-payoff
 * mix), and the storage bound on a marginal mix (regime 3).
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { SST_DUMP, sstkit, toolPresent } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-autoskip-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function regime(name: string, fraction: number, ratio: number) {
  const file = join(dir, `${name}.sst`)
  const w = sstkit(['synth', '-o', file, '--size', '6MB', '--compressible-fraction', String(fraction), '--compressible-ratio', String(ratio), '--seed', '3'])
  expect(w.status, w.stderr).toBe(0)
  const r = sstkit(['recompress', file, '--levels', '3', '--dict', 'none', '--checksum', 'off', '--auto-skip', 'rate,ratio', '--json', '--jobs', '1'])
  expect(r.status, r.stderr).toBe(0)
  const rows = JSON.parse(r.stdout).results
  const by = (s: string | null) => rows.find((x: { autoSkip: string | null }) => x.autoSkip === s)
  return { base: by(null), rate: by('rate'), ratio: by('ratio') }
}

describe('auto-skip regimes', () => {
  it('1 incompressible: both strategies attempt under half the blocks, at no storage cost', () => {
    const { base, rate, ratio } = regime('incompressible', 0, 0.3)
    for (const s of [rate, ratio]) {
      expect(s.blocksAttempted).toBeLessThan(base.blocksAttempted / 2)
      expect(s.dataBytes).toBe(base.dataBytes)
    }
  })
  it('2 compressible: neither skips', () => {
    const { base, rate, ratio } = regime('compressible', 1, 0.3)
    expect(rate.blocksBypassed).toBe(0)
    expect(ratio.blocksBypassed).toBe(0)
    expect(ratio.dataBytes).toBe(base.dataBytes)
  })
  it('4 high-payoff mix: ratio keeps the baseline storage, rate gives up a large share', () => {
    const { base, rate, ratio } = regime('high-payoff', 0.5, 0.3)
    // A few blocks may be skipped while the first samples come in: within 1% of the baseline.
    expect(ratio.dataBytes).toBeLessThanOrEqual(base.dataBytes * 1.01)
    expect(rate.dataBytes).toBeGreaterThan(base.dataBytes * 1.1)
  })
  it('3 marginal mix: ratio skips, and gives up less than (1024 - 896)/1024 of the skipped bytes', () => {
    const { base, ratio } = regime('marginal', 0.5, 0.86)
    expect(ratio.blocksBypassed).toBeGreaterThan(base.blocks / 2)
    const skippedBytes = (ratio.blocksBypassed / ratio.blocks) * ratio.uncompressedBytes
    expect(ratio.dataBytes - base.dataBytes).toBeLessThanOrEqual(((1024 - 896) / 1024) * skippedBytes)
  })
  it('rewrite --auto-skip ratio writes a verified file with the decisions applied', () => {
    const file = join(dir, 'incompressible.sst')
    const out = join(dir, 'skipped.sst')
    const r = sstkit(['rewrite', file, '-o', out, '--auto-skip', 'ratio', '--format-version', '7', '--json', '--force'])
    expect(r.status, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j.blocksBypassed).toBeGreaterThan(j.dataBlocks / 2)
    const props = JSON.parse(sstkit(['props', out, '--json']).stdout)
    expect(props.properties['rocksdb.num.data.blocks.compression.bypassed']).toBe(j.blocksBypassed)
  })
})

describe('auto-skip across a run', () => {
  const run = join(dir, 'run')
  mkdirSync(run, { recursive: true })
  const synth = (name: string, fraction: number) =>
    expect(sstkit(['synth', '-o', join(run, name), '--size', '2MB', '--compressible-fraction', String(fraction), '--seed', '5']).status).toBe(0)

  it('carries q_hat from one file to the next unless --no-carry, and is the same whatever --jobs', () => {
    synth('a-compressible.sst', 1)
    synth('b-incompressible.sst', 0)
    const args = ['recompress', run, '--levels', '3', '--dict', 'none', '--checksum', 'off', '--auto-skip', 'ratio,rate', '--json']
    const carried = JSON.parse(sstkit([...args, '--jobs', '1']).stdout)
    const fresh = JSON.parse(sstkit([...args, '--jobs', '1', '--no-carry']).stdout)
    const twoJobs = JSON.parse(sstkit([...args, '--jobs', '2']).stdout)
    const ratioOf = (reports: { results: { autoSkip: string | null; blocksAttempted: number }[] }[], i: number) =>
      reports[i].results.find((r) => r.autoSkip === 'ratio')!.blocksAttempted
    // Coming from compressible data, the incompressible file takes a few blocks to learn it.
    expect(ratioOf(carried, 1)).toBeGreaterThan(ratioOf(fresh, 1))
    const decisions = (reports: { results: Record<string, unknown>[] }[]) =>
      reports.map((r) => r.results.map((x) => [x.autoSkip, x.blocksAttempted, x.blocksBypassed, x.dataBytes]))
    expect(decisions(twoJobs)).toEqual(decisions(carried))
  })

  it.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))(
    'a rewrite with auto-skip applied is verified by the real sst_dump',
    () => {
      const out = join(dir, 'skipped-fv5.sst')
      const r = sstkit(['rewrite', join(dir, 'marginal.sst'), '-o', out, '--auto-skip', 'ratio', '--format-version', '5', '--force'])
      expect(r.status, r.stderr).toBe(0)
      const v = spawnSync(SST_DUMP!, [`--file=${out}`, '--command=verify', '--verify_checksum'], { encoding: 'utf8' })
      expect(v.stdout + v.stderr).toContain('The file is ok')
    },
  )
})

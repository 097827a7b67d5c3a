/**
 * The same database and seed give the same advice on every run, on a busy machine too: a database
 * db_bench 7.8.3 wrote (fillrandom then overwrite, LZ4, L0 to L2, its LOG with the write workload)
 * is advised several times with default flags (a time budget long enough for every level to reach
 * its precision however loaded the machine) while another db_bench writes and compacts beside
 * it; every run recommends the same setting for every level and writes a byte-identical
 * --write-options file. Decisions rank on the reference speeds (docs/cpu.md), never on a run's own
 * timings, which differ from run to run.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { sstkit, toolPresent } from '../helpers.js'
// @ts-expect-error: a plain .mjs generator without declarations
import { DB_BENCH } from '../fixtures/workload-log.mjs'

const RUNS = 4
const WRITE = ['--value_size=200', '--compression_ratio=0.5', '--seed=42', '--threads=1', '--histogram=0']
const LSM = ['--write_buffer_size=2097152', '--target_file_size_base=2097152', '--max_bytes_for_level_base=8388608']

describe.runIf(toolPresent('db_bench', DB_BENCH !== null, 'apt-get install rocksdb-tools'))('advise gives the same answer every run', () => {
  let dir: string
  let db: string
  let beside: ChildProcess | null = null
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-same-answer-'))
    db = join(dir, 'db')
    const r = spawnSync(
      DB_BENCH,
      ['--benchmarks=fillrandom,overwrite', '--num=120000', '--compression_type=lz4', '--block_size=4096', `--db=${db}`, ...WRITE, ...LSM],
      { encoding: 'utf8', timeout: 180_000 },
    )
    expect(r.status, r.stderr).toBe(0)
    // Another database written and compacted for as long as the runs take: RocksDB busy beside advise.
    beside = spawn(
      'sh',
      [
        '-c',
        `while :; do "${DB_BENCH}" --benchmarks=fillrandom,compact --num=200000 --compression_type=zstd --db=${join(dir, 'beside')} ${[...WRITE, ...LSM].join(' ')} >/dev/null 2>&1; done`,
      ],
      { stdio: 'ignore', detached: true },
    )
  }, 240_000)
  afterAll(() => {
    if (beside?.pid) process.kill(-beside.pid, 'SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('the same recommendation per level and a byte-identical --write-options file, with db_bench writing beside', () => {
    expect(readdirSync(db).filter((f) => f.endsWith('.sst')).length).toBeGreaterThan(3)
    const files: string[] = []
    const picks: string[] = []
    for (let i = 0; i < RUNS; i++) {
      const out = join(dir, `OPTIONS-${i}`)
      const r = sstkit(['advise', db, '--json', '--write-options', out, '--time-budget', '300s'], { timeout: 400_000 })
      expect(r.status, r.stderr).toBe(0)
      const advice = JSON.parse(r.stdout) as Advice
      const levels = advice.columnFamilies.flatMap((c) => c.levels)
      // Every level sampled to its own end, not cut by the clock: else the sample, not the decision, would differ.
      expect(levels.map((l) => l.sample.stopped).filter((s) => s === 'time-budget')).toEqual([])
      expect(levels.every((l) => l.cpuBasis === 'reference')).toBe(true)
      picks.push(levels.map((l) => `${l.columnFamily} L${l.level}: ${l.recommended.estimate.setting.label}`).join('; '))
      files.push(readFileSync(out, 'utf8'))
    }
    expect(new Set(picks).size, picks.join('\n')).toBe(1)
    expect(new Set(files).size).toBe(1)
    // Something was advised: the file changes today's compression somewhere.
    expect(files[0]).toMatch(/compression/)
  }, 1_800_000)
})

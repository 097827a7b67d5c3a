/**
 * Under level_compaction_dynamic_level_bytes, RocksDB reads compression_per_level from the base
 * level: entry 0 is L0's, entry i > 0 is level base_level + i - 1's (GetCompressionType). A
 * database db_bench 7.8.3 wrote with dynamic levels and small level targets holds data on L0 and
 * L3-L6, base level 3 by its own LOG ("Level summary: base level N"); advise finds the same base
 * level and writes one entry per level from it, each the level's recommendation.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { optionName } from '../../src/decide/settings.js'
import type { Advice } from '../../src/types/advice.js'
import { sstkit, toolPresent } from '../helpers.js'
// @ts-expect-error: a plain .mjs generator without declarations
import { DB_BENCH } from '../fixtures/workload-log.mjs'

describe.runIf(toolPresent('db_bench', DB_BENCH !== null, 'apt-get install rocksdb-tools'))('compression_per_level under dynamic level bytes', () => {
  let dir: string
  let db: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sstkit-dynamic-'))
    db = join(dir, 'db')
    const r = spawnSync(
      DB_BENCH,
      [
        '--benchmarks=fillrandom',
        '--num=100000',
        '--value_size=200',
        '--compression_ratio=0.5',
        '--seed=42',
        '--threads=1',
        '--histogram=0',
        '--compression_type=lz4',
        '--block_size=4096',
        `--db=${db}`,
        '--write_buffer_size=131072',
        '--target_file_size_base=131072',
        '--max_bytes_for_level_base=131072',
        '--max_bytes_for_level_multiplier=4',
        '--level_compaction_dynamic_level_bytes=true',
      ],
      { encoding: 'utf8', timeout: 180_000 },
    )
    expect(r.status, r.stderr).toBe(0)
  }, 240_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("counts entries from RocksDB's base level, each the level's recommendation", () => {
    const summaries = [...readFileSync(join(db, 'LOG'), 'utf8').matchAll(/Level summary: base level (\d+) .*? files\[([\d ]+)\]/g)]
    const last = summaries.at(-1)!
    const base = Number(last[1])
    const files = last[2].split(' ').map(Number)
    expect(base).toBeGreaterThan(1)
    const r = sstkit(['advise', db, '--json', '--seed', '7', '--block-size', 'none'], { timeout: 600_000 })
    expect(r.status, r.stderr).toBe(0)
    const cf = (JSON.parse(r.stdout) as Advice).columnFamilies[0]
    // The LOG's last summary is the state the MANIFEST holds.
    expect(cf.levels.map((l) => l.level)).toEqual(files.flatMap((n, level) => (n > 0 ? [level] : [])))
    expect(cf.dynamicLevels).toBe(true)
    expect(cf.baseLevel).toBe(base)
    const entries = cf.options.compression_per_level.split(':')
    const deepest = Math.max(...cf.levels.map((l) => l.level!))
    expect(entries.length).toBe(1 + deepest - base + 1)
    for (const l of cf.levels) {
      if (l.bottommost) {
        expect(cf.options.bottommost_compression).toBe(optionName(l.recommended.estimate.setting))
        continue
      }
      const index = l.level === 0 ? 0 : l.level! - base + 1
      expect(entries[index], `L${l.level}`).toBe(optionName(l.recommended.estimate.setting))
    }
  }, 700_000)
})

/**
 * advise on a database a real writer (db_bench) is filling and compacting, run after run: each
 * run must exit 0 with advice, name the version it advised and what changed under it, and leave
 * nothing behind (in the database directory or the temporary directory).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { startWriter } from '../db/live-writer.js'
import { sstkit } from '../helpers.js'

export async function adviseWhileWriting(runs: number, budget: string, writerSeconds: number): Promise<Advice[]> {
  const root = mkdtempSync(join(tmpdir(), 'sstkit-advise-live-'))
  const own = join(root, 'tmp')
  const dir = join(root, 'db')
  mkdirSync(own)
  const writer = await startWriter(dir, writerSeconds, { minFiles: 12 })
  const out: Advice[] = []
  try {
    for (let i = 0; i < runs; i++) {
      const r = sstkit(['advise', dir, '--time-budget', budget, '--types', 'zstd,lz4', '--dict', 'none', '--json'], { env: { TMPDIR: own } })
      expect(r.stderr, `run ${i + 1}`).toBe('')
      expect(r.status, `run ${i + 1}`).toBe(0)
      const advice = JSON.parse(r.stdout) as Advice
      expect(advice.problems).toEqual([])
      expect(advice.columnFamilies[0].levels.length).toBeGreaterThan(0)
      const v = advice.source.version
      expect(v?.heldBy).toBe('hard-links')
      expect(v?.manifest).toMatch(/^MANIFEST-\d+$/)
      expect(v?.manifestBytes).toBeGreaterThan(0)
      expect(v?.changedDuringRun).not.toBeNull()
      // No path of the held copies leaks into the output.
      expect(r.stdout).not.toContain(own)
      expect(readdirSync(own)).toEqual([])
      expect(readdirSync(dir).filter((n) => n.includes('sstkit'))).toEqual([])
      out.push(advice)
    }
    expect(writer.process.exitCode).toBeNull()
  } finally {
    await writer.stop()
    rmSync(root, { recursive: true, force: true })
  }
  return out
}

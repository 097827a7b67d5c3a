/**
 * Parallel scan of a 43 MB synthetic file (written by sstkit's writer, ~10 s under load): without
 * test knobs the CLI scan goes parallel and prints what the serial scan prints; a scan that waits
 * for its worker has the worker print chunks; a reader that stops early ends the scan quietly.
 * The small-file cases are test/scan/parallel.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type * as ScanModule from '../../src/scan/scan.js'
import type * as ReaderModule from '../../src/table/reader.js'
import type * as WriterModule from '../../src/report/line-writer.js'
import { assertFreshBuild, ROOT, sstkit } from '../helpers.js'

assertFreshBuild()
const dist = (p: string) => join(ROOT, 'dist', p)
const { scanTable } = (await import(dist('scan/scan.js'))) as typeof ScanModule
const { openTable } = (await import(dist('table/reader.js'))) as typeof ReaderModule
const { LineWriter } = (await import(dist('report/line-writer.js'))) as typeof WriterModule

describe('a 43 MB synthetic file (parallel by default, no test knobs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-parallel-'))
  const file = join(dir, 'synthetic-60mb.sst')
  beforeAll(async () => {
    const { writeSynth } = (await import(dist('synth/synth.js'))) as typeof import('../../src/synth/synth.js')
    writeSynth(file, {
      sizeBytes: 60e6,
      valueSize: 200,
      compressibleFraction: 0.6,
      runLength: 1,
      compressibleRatio: 0.3,
      seed: 1,
      compressionType: 1,
      blockSize: 4096,
    })
  }, 120_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const sha = (s: string) => createHash('sha256').update(s).digest('hex')

  it('workers take chunks, and the output equals the serial scan', () => {
    const serial = sstkit(['scan', file, '--jobs', '1'])
    const parallel = sstkit(['scan', file])
    expect(serial.status).toBe(0)
    expect(parallel.status).toBe(0)
    expect(sha(parallel.stdout)).toBe(sha(serial.stdout))
    expect(serial.stdout.split('\n').length - 1).toBe(300_000)
    // On a loaded machine the main thread can be through the file before the worker has started,
    // so whether a worker printed a chunk is asked of a scan that waits for the worker to start.
    const stats = { chunks: 0, chunksByWorkers: 0 }
    const t = openTable(file)
    const w = new LineWriter(() => {})
    scanTable(t, { format: 'text', hex: true }, w, { jobs: 2, stats, awaitWorkers: true })
    t.close()
    expect(stats.chunks).toBeGreaterThan(20)
    expect(stats.chunksByWorkers).toBeGreaterThan(0)
  })

  it('a reader that stops early (| head) ends the scan quietly: exit 0, nothing on stderr', () => {
    for (let i = 0; i < 3; i++) {
      const r = spawnSync('bash', ['-c', `node ${join(ROOT, 'bin/run.js')} scan ${file} | head -3; echo "status \${PIPESTATUS[0]}" >&2`], { encoding: 'utf8' })
      expect(r.stdout.split('\n').length).toBe(4)
      expect(r.stderr).toBe('status 0\n')
    }
  })
})

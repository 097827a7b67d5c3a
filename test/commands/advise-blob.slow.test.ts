/**
 * advise on a larger BlobDB database generated on demand by the real db_bench 7.8.3 (about 36 MB
 * of zstd blob files in three files, 38k records): the blob records are sampled, and every
 * candidate's interval is checked against the exhaustive figure (every record compressed), with
 * today's codec exact.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BlobAdvice } from '../../src/types/advice.js'
import { BLOB_CANDIDATES } from '../../src/advise/blob.js'
import { openBlobFile } from '../../src/blob/reader.js'
import { FileByteSource } from '../../src/io/byte-source.js'
import { blobMatrixReport, defaultBlobSettings, sampleBlobFile } from '../../src/recompress/blob-matrix.js'
import { ROOT } from '../helpers.js'

const work = mkdtempSync(join(tmpdir(), 'sstkit-advise-blob-slow-'))
const db = join(work, 'db')
afterAll(() => rmSync(work, { recursive: true, force: true }))

beforeAll(() => {
  const r = spawnSync(
    'db_bench',
    [
      '--benchmarks=fillrandom,flush',
      `--db=${db}`,
      '--num=60000',
      '--seed=11',
      '--threads=1',
      '--value_size=2000',
      '--compression_ratio=0.5',
      '--enable_blob_files',
      '--min_blob_size=1000',
      '--blob_compression_type=zstd',
      '--blob_file_size=16777216',
      '--compression_type=lz4',
      '--disable_wal=1',
      '--statistics=0',
      '--write_buffer_size=134217728',
    ],
    { cwd: work, encoding: 'utf8' },
  )
  if (r.status !== 0) throw new Error(`db_bench failed: ${r.stderr}`)
}, 120_000)

describe('advise on a sampled BlobDB database (db_bench 7.8.3, generated)', () => {
  it('samples the records; each interval holds the exhaustive size (today exact)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), 'advise', db, '--json', '--time-budget', '60s'], { encoding: 'utf8', maxBuffer: 64 << 20 })
    expect(r.status).toBe(0)
    const [b] = JSON.parse(r.stdout).blobs as BlobAdvice[]
    expect(b.status).toBe('advised')
    expect(b.sampledRecords).toBeLessThan(b.records / 4)
    expect(b.filesRead).toBe(3)

    const settings = defaultBlobSettings(BLOB_CANDIDATES)
    const truth = settings.map(() => 0)
    for (const f of ['000009.blob', '000010.blob', '000011.blob']) {
      const blob = openBlobFile(new FileByteSource(join(db, f)))
      try {
        blobMatrixReport(blob, settings, sampleBlobFile(blob, settings, { rate: 1 })).results.forEach((x, i) => {
          truth[i] += x.fileBytes.estimate
        })
      } finally {
        blob.close()
      }
    }
    let covered = 0
    for (const [i, c] of b.candidates.entries()) {
      expect(Math.abs(c.bytes.estimate - truth[i]) / truth[i]).toBeLessThan(0.002)
      if (c.bytes.low <= truth[i] && truth[i] <= c.bytes.high) covered++
      if (c.option === 'kZSTD') expect(c.bytes).toEqual({ estimate: b.bytes, low: b.bytes, high: b.bytes })
    }
    // 95% intervals: all six, or five, hold the exhaustive figure.
    expect(covered).toBeGreaterThanOrEqual(5)
  }, 300_000)
})

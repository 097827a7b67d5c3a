/**
 * advise on BlobDB databases written by real RocksDB (test/fixtures/blob: db_bench 7.8.3 and
 * RocksDB 11.8.1, generate-blob.sh): blob_compression_type per column family, its estimates
 * against the files RocksDB wrote with each codec from the same values, the options text, and
 * what happens when the blob files cannot be sampled or the release does not parse the option.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { BlobAdvice } from '../../src/types/advice.js'
import { ROOT, sstkit } from '../helpers.js'

const FIX = join(ROOT, 'test/fixtures/blob')
const size = (f: string) => statSync(join(FIX, f)).size
const work = mkdtempSync(join(tmpdir(), 'sstkit-advise-blob-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function advise(db: string, ...args: string[]) {
  const r = sstkit(['advise', db, '--json', '--time-budget', '30s', ...args])
  return { r, j: r.stdout ? JSON.parse(r.stdout) : null }
}
const bytesOf = (b: BlobAdvice, option: string) => b.candidates.find((c) => c.option === option)?.bytes

describe('advise on a BlobDB database', () => {
  it('db_bench 7.8.3, lz4 blob files: every candidate projected exactly, as the same values RocksDB wrote with each codec', () => {
    const { r, j } = advise(join(FIX, 'dbbench-lz4'))
    expect(r.status).toBe(0)
    const [b] = j.blobs as BlobAdvice[]
    expect(b).toMatchObject({ columnFamily: 'default', files: 2, filesRead: 2, records: 16, sampledRecords: 16, today: 'kLZ4Compression', status: 'advised' })
    // two files here, one file in the other databases: one blob file header (30) and footer (32) more
    const lz4 = size('dbbench-lz4/000009.blob') + size('dbbench-lz4/000010.blob')
    expect(bytesOf(b, 'kLZ4Compression')).toEqual({ estimate: lz4, low: lz4, high: lz4 })
    expect(bytesOf(b, 'kZSTD')?.estimate).toBe(size('dbbench-zstd/000009.blob') + 62)
    expect(bytesOf(b, 'kSnappyCompression')?.estimate).toBe(size('dbbench-snappy/000009.blob') + 62)
    expect(bytesOf(b, 'kNoCompression')?.estimate).toBe(size('dbbench-none/000009.blob') + 62)
    expect(b.bytes).toBe(lz4)
    // The recommendation is a candidate, written into the column family's options and its change.
    const cf = j.columnFamilies.find((c: { name: string }) => c.name === 'default')
    expect(b.inOptions).toBe(true)
    expect(cf.options.blob_compression_type).toBe(b.recommended)
    expect(cf.optionsText).toContain(`blob_compression_type=${b.recommended}`)
    expect(cf.optionsNeed.find((n: { key: string }) => n.key === 'blob_compression_type').since).not.toBeNull()
    if (b.recommended !== 'kLZ4Compression')
      expect(cf.optionsChange).toContainEqual({ key: 'blob_compression_type', today: 'kLZ4Compression', advised: b.recommended })
  })

  it('RocksDB 11.8.1, two column families: each advised on its own blob files, exact for its own codec (LZ4 one-shot)', () => {
    const { r, j } = advise(join(FIX, 'v11'))
    expect(r.status).toBe(0)
    const blobs = j.blobs as BlobAdvice[]
    expect(blobs.map((b) => [b.columnFamily, b.today])).toEqual([
      ['default', 'kLZ4Compression'],
      ['events', 'kZSTD'],
    ])
    expect(bytesOf(blobs[0], 'kLZ4Compression')?.estimate).toBe(size('v11/000009.blob'))
    expect(bytesOf(blobs[1], 'kZSTD')?.estimate).toBe(size('v11/000013.blob'))
    for (const b of blobs) expect(b.candidates.map((c) => c.change.estimate).some((x) => x === 0)).toBe(true)
  })

  it('text and Markdown show the blob section and the option', () => {
    const text = sstkit(['advise', join(FIX, 'dbbench-zstd'), '--time-budget', '30s'])
    expect(text.status).toBe(0)
    expect(text.stdout).toContain('Blob files (blob_compression_type)')
    expect(text.stdout).toMatch(/column family "default": 1 blob file\(s\), [\d.]+ KiB, no garbage; every record of 16 measured/)
    expect(text.stdout).toMatch(/blob_compression_type=k\w+/)
    const md = sstkit(['advise', join(FIX, 'dbbench-zstd'), '--time-budget', '30s', '--format', 'markdown'])
    expect(md.stdout).toContain('### Blob files (blob_compression_type)')
    expect(md.stdout).toMatch(/\| zstd +\| +8\.\d+ KiB \|/)
  })

  it('blob files missing: the column family is not sampled and keeps its setting; each missing file is a finding (exit 1)', () => {
    const db = join(work, 'no-blobs')
    cpSync(join(FIX, 'dbbench-lz4'), db, { recursive: true })
    for (const f of readdirSync(db)) if (f.endsWith('.blob') || f.endsWith('.txt')) rmSync(join(db, f))
    const { r, j } = advise(db)
    expect(r.status).toBe(1)
    const [b] = j.blobs as BlobAdvice[]
    expect(b).toMatchObject({ status: 'not sampled', recommended: null, inOptions: false, candidates: [], today: 'kLZ4Compression' })
    expect(j.columnFamilies[0].options.blob_compression_type).toBeUndefined()
    expect(r.stderr).toContain('000009.blob: live blob file the MANIFEST lists is missing on disk')
    expect(r.stderr).toContain('000010.blob: live blob file the MANIFEST lists is missing on disk')
    const text = sstkit(['advise', db, '--time-budget', '30s'])
    expect(text.stdout).toMatch(/not sampled; no blob record could be read: blob_compression_type stays kLZ4Compression/)
  })

  it('a release before 6.13 does not parse blob_compression_type: advised, not written', () => {
    const db = join(work, 'old-release')
    cpSync(join(FIX, 'dbbench-zstd'), db, { recursive: true })
    for (const f of readdirSync(db)) if (f.startsWith('OPTIONS-')) rmSync(join(db, f))
    const { r, j } = advise(db, '--rocksdb-version', '6.12')
    expect(r.status).toBe(0)
    const [b] = j.blobs as BlobAdvice[]
    expect(b.status).toBe('advised')
    expect(b.inOptions).toBe(false)
    // no OPTIONS: today's setting is the files' own
    expect(b.today).toBe('kZSTD')
    expect(b.reason).toContain('RocksDB 6.12.0 does not parse blob_compression_type (6.13 and later do)')
    expect(JSON.stringify(j.columnFamilies)).not.toContain('blob_compression_type')
  })

  it('--write-options writes blob_compression_type into the OPTIONS copy', () => {
    const out = join(work, 'OPTIONS-advised')
    const { r, j } = advise(join(FIX, 'dbbench-none'), '--write-options', out)
    expect(r.status).toBe(0)
    const rec = (j.blobs as BlobAdvice[])[0].recommended
    expect(readFileSync(out, 'utf8')).toContain(`blob_compression_type=${rec}`)
  })

  it('--shard and --merge: the merged advice keeps the blob advice and its option', () => {
    const db = join(FIX, 'v11')
    const parts = [0, 1].map((k) => {
      const r = sstkit(['advise', db, '--sample', '50%', '--shard', `${k}/2`, '--json'])
      expect(r.status).toBe(0)
      const path = join(work, `part${k}.json`)
      writeFileSync(path, r.stdout)
      return path
    })
    const m = sstkit(['advise', '--merge', ...parts, '--json'])
    expect(m.status).toBe(0)
    const j = JSON.parse(m.stdout)
    const blobs = j.blobs as BlobAdvice[]
    expect(blobs.map((b) => b.columnFamily)).toEqual(['default', 'events'])
    for (const b of blobs) {
      const cf = j.columnFamilies.find((c: { name: string }) => c.name === b.columnFamily)
      expect(cf.options.blob_compression_type).toBe(b.recommended)
    }
    // The shards' notes, compared as code and values: each once in the merge, with its sentence.
    const key = ({ text: _, ...n }: { text: string }) => JSON.stringify(n)
    expect(new Set(j.notes.map(key)).size).toBe(j.notes.length)
    for (const n of parts.flatMap((p) => JSON.parse(readFileSync(p, 'utf8')).notes)) expect(j.notes).toContainEqual(n)
    // A shard whose notes are sentences (an earlier sstkit's JSON) is not merged.
    const old = JSON.parse(readFileSync(parts[1], 'utf8'))
    writeFileSync(parts[1], JSON.stringify({ ...old, notes: ['no OPTIONS file: today is what the files themselves say'] }))
    const refused = sstkit(['advise', '--merge', ...parts, '--json'])
    expect(refused.status).toBe(2)
    expect(refused.stderr).toBe('sstkit: --merge: shard 1/2 was written by an earlier sstkit (its notes are sentences): run every shard with this one\n')
  })
})

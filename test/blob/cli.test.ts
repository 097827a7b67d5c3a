/**
 * props, layout, scan and verify on blob files through the built CLI, against the real ldb's
 * dumps (test/fixtures/blob, generate-blob.sh); damaged copies are synthetic.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compressionOptionName, compressionTypeName } from '../../src/format/compression-type.js'
import { ROOT, sstkit } from '../helpers.js'
import { blobFixtureFiles, ldbBlobDump } from './ldb-dump.js'

const files = blobFixtureFiles()
const work = mkdtempSync(join(tmpdir(), 'sstkit-blob-cli-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A copy of `file` under `name` in the work directory, with `damage` applied to its bytes. */
function damaged(file: string, name: string, damage: (b: Uint8Array) => Uint8Array): string {
  const path = join(work, name)
  writeFileSync(path, damage(Uint8Array.from(readFileSync(join(ROOT, file)))))
  return path
}

describe('blob files through the CLI, against ldb dump', () => {
  it('props --json: header, footer and sizes of every blob file as ldb counts them', () => {
    const r = sstkit(['props', ...files, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const all = JSON.parse(r.stdout)
    expect(all).toHaveLength(files.length)
    files.forEach((file, i) => {
      const ldb = ldbBlobDump(file)
      const j = all[i]
      expect(j).toMatchObject({
        file,
        kind: 'blob',
        header: { version: 1, columnFamilyId: ldb.header.columnFamilyId, expirationRange: 'nil', hasTtl: false },
        footer: { blobCount: ldb.footer?.blobCount, expirationRange: 'nil' },
        records: ldb.summary.records,
        keyBytes: ldb.summary.keyBytes,
        storedValueBytes: ldb.summary.blobBytes,
        rawValueBytes: ldb.summary.rawBlobBytes ?? ldb.summary.blobBytes,
      })
      expect(compressionOptionName(j.header.compressionType)).toBe(ldb.header.compression)
      expect(compressionTypeName(j.header.compressionType)).toBe(j.header.compression)
      expect(j.problems).toBeUndefined()
    })
  })

  it('scan --hex: every record of every blob file, key and uncompressed value, as ldb dumps them', () => {
    const expected = (file: string) => {
      const ldb = ldbBlobDump(file)
      return ldb.header.compression === 'kNoCompression' ? ldbBlobDump(file, 'stored').records : ldb.records
    }
    const r = sstkit(['scan', ...files, '--hex', '--format', 'jsonl'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual(
      files.flatMap((file) => expected(file).map((x) => ({ file, key: x.keyHex.toLowerCase(), offset: x.offset, value: x.blobHex.toLowerCase() }))),
    )
    const file = 'test/fixtures/blob/dbbench-none/000009.blob'
    const text = sstkit(['scan', file, '--hex'])
    expect(text.status).toBe(0)
    expect(text.stdout).toBe(
      expected(file)
        .map((x) => `0x${x.keyHex.toLowerCase()} => 0x${x.blobHex.toLowerCase()}\n`)
        .join(''),
    )
  })

  it('scan --format jsonl: key, offset and value of each record; --limit and --prefix apply', () => {
    const file = 'test/fixtures/blob/v11/000013.blob'
    const ldb = ldbBlobDump(file)
    const r = sstkit(['scan', file, '--format', 'jsonl', '--limit', '2'])
    expect(r.status).toBe(0)
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual(
      ldb.records.slice(0, 2).map((x) => ({
        key: Buffer.from(x.keyHex, 'hex').toString('utf8'),
        offset: x.offset,
        value: Buffer.from(x.blobHex, 'hex').toString('utf8'),
      })),
    )
    const key = Buffer.from(ldb.records[3].keyHex, 'hex').toString('utf8')
    const p = sstkit(['scan', file, '--prefix', key.slice(0, 6)])
    expect(
      p.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' => ')[0]),
    ).toEqual([`'${key}'`])
  })

  it('verify: every blob file of every fixture database is OK, and a directory includes its blob files', () => {
    const r = sstkit(['verify', 'test/fixtures/blob/v11', 'test/fixtures/blob/dbbench-lz4', '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const all = JSON.parse(r.stdout) as { file: string; ok: boolean; kind?: string; records?: number }[]
    expect(all.map((x) => x.file.replace(/.*\//, ''))).toEqual([
      '000008.sst',
      '000012.sst',
      '000009.blob',
      '000013.blob',
      '000008.sst',
      '000009.blob',
      '000010.blob',
    ])
    expect(all.every((x) => x.ok)).toBe(true)
    for (const x of all.filter((x) => x.kind === 'blob')) expect(x.records).toBe(ldbBlobDump(x.file).summary.records)
    const text = sstkit(['verify', ...files])
    expect(text.status).toBe(0)
    expect(text.stdout.trim().split('\n')).toHaveLength(files.length)
    expect(text.stdout).toMatch(
      /^test\/fixtures\/blob\/dbbench-zstd\/000009.blob: OK \(blob file, 16 records, 16 values decompressed, footer blob count 16\)$/m,
    )
  })

  it('layout: header, records and footer cover the file', () => {
    const r = sstkit(['layout', ...files, '--json'])
    expect(r.status).toBe(0)
    const all = JSON.parse(r.stdout)
    files.forEach((file, i) => {
      const j = all[i]
      const parts = j.parts as { kind: string; offset: number; size: number; count?: number }[]
      expect(parts.map((p) => p.kind)).toEqual(['header', 'records', 'footer'])
      expect(parts.reduce((n, p) => n + p.size, 0)).toBe(j.fileSize)
      expect(parts[1].count).toBe(ldbBlobDump(file).summary.records)
    })
    const text = sstkit(['layout', files[0]])
    expect(text.stdout).toMatch(/^records +30 /m)
  })
})

describe('damaged blob files through the CLI (synthetic damage)', () => {
  const file = 'test/fixtures/blob/dbbench-snappy/000009.blob'
  const ldb = ldbBlobDump(file)

  it('a flipped value byte: verify names the record by its offset, exit 1; scan prints the records before it, then one line, exit 1', () => {
    const third = ldb.records[2]
    const path = damaged(file, 'synthetic-value-flip.blob', (b) => {
      b[third.offset + 32 + third.keySize + 5] ^= 0x10
      return b
    })
    const v = sstkit(['verify', path])
    expect(v.status).toBe(1)
    expect(v.stdout.startsWith(`${path}: CORRUPT (1 problem)\n`)).toBe(true)
    expect(v.stdout).toMatch(
      new RegExp(
        `^  record at offset ${third.offset}: blob record: blob CRC mismatch over key and value \\(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\\)$`,
        'm',
      ),
    )
    const s = sstkit(['scan', path, '--hex'])
    expect(s.status).toBe(1)
    expect(s.stdout.trim().split('\n')).toHaveLength(2)
    expect(s.stderr).toMatch(new RegExp(`^sstkit: ${path}: blob record: blob CRC mismatch .*\\(at offset ${third.offset}\\)\\n$`))
  })

  it('a file cut short: no footer and a record past the end, exit 1; props says so, exit 1', () => {
    const path = damaged(file, 'synthetic-truncated.blob', (b) => b.subarray(0, ldb.records[4].offset + 40))
    const v = sstkit(['verify', path, '--json'])
    expect(v.status).toBe(1)
    const j = JSON.parse(v.stdout)
    expect(j.problems.map((p: { block: string }) => p.block)).toEqual(['record', 'footer'])
    expect(j.problems[0].offset).toBe(ldb.records[4].offset)
    const p = sstkit(['props', path])
    expect(p.status).toBe(1)
    expect(p.stdout).toMatch(/footer +none \(the file was not closed\)/)
    expect(p.stdout).toMatch(new RegExp(`problem: record at offset ${ldb.records[4].offset}: blob record: key length`))
  })

  it('not a blob file, or a legacy TTL file: one line, exit 2', () => {
    const sst = join(work, 'synthetic-table.blob')
    copyFileSync(join(ROOT, 'test/fixtures/blob/v11/000008.sst'), sst)
    const r = sstkit(['verify', sst])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/^sstkit: .*synthetic-table.blob: blob file header: magic number 0x[0-9a-f]{8}, expected 0x00248f37 \(at offset 0\)\n$/)
    const ttl = damaged(file, 'synthetic-ttl.blob', (b) => {
      b[12] = 1
      return b
    })
    const t = sstkit(['props', ttl])
    expect(t.status).toBe(2)
    expect(t.stderr).toMatch(/has_ttl is set: a TTL file of the legacy stacked BlobDB \(utilities\/blob_db\), which sstkit does not read/)
    expect(t.stderr.split('\n')).toHaveLength(2)
  })

  it('rewrite refuses a blob file in one line, exit 2, and writes nothing', () => {
    const file = 'test/fixtures/blob/v11/000009.blob'
    const out = join(work, 'rewritten.blob')
    const w = sstkit(['rewrite', file, '-o', out])
    expect(w.status).toBe(2)
    expect(w.stderr).toBe(`sstkit: ${file}: a BlobDB blob file: rewrite rebuilds SST files only and does not rewrite blob files\n`)
    expect(existsSync(out)).toBe(false)
  })
})

describe('recompress FILE.blob', () => {
  const none = 'test/fixtures/blob/dbbench-none/000009.blob'
  const size = (f: string) => readFileSync(join(ROOT, f)).length

  it('--json: every codec projects the file db_bench 7.8.3 wrote with it from the same values', () => {
    const r = sstkit(['recompress', none, '--types', 'none,snappy,lz4,zstd', '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j).toMatchObject({ kind: 'blob', compression: 'none', records: 16, sampledRecords: 16, exact: true, release: '7.8.3', lz4: 'stream' })
    const bytes = Object.fromEntries(j.results.map((x: { label: string; fileBytes: { estimate: number } }) => [x.label, x.fileBytes.estimate]))
    expect(bytes).toEqual({
      none: size(none),
      snappy: size('test/fixtures/blob/dbbench-snappy/000009.blob'),
      // two files there (--blob_file_size=6000): one header and footer fewer in one file
      lz4: size('test/fixtures/blob/dbbench-lz4/000009.blob') + size('test/fixtures/blob/dbbench-lz4/000010.blob') - 62,
      zstd: size('test/fixtures/blob/dbbench-zstd/000009.blob'),
    })
    expect(j.results.find((x: { smallest: boolean }) => x.smallest).label).toBe('zstd')
  })

  it('the default matrix: every type at its default level; text table with the stored row and notes', () => {
    const r = sstkit(['recompress', 'test/fixtures/blob/v11/000013.blob', '--bytes'])
    expect(r.status).toBe(0)
    const lines = r.stdout.split('\n')
    for (const t of ['stored (zstd)', 'none', 'snappy', 'zlib', 'bzip2', 'lz4', 'lz4hc', 'zstd']) expect(lines.some((l) => l.startsWith(`│ ${t} `))).toBe(true)
    expect(lines.find((l) => l.startsWith('│ zstd '))).toContain(` ${size('test/fixtures/blob/v11/000013.blob')} │`)
    expect(r.stdout).toContain("LZ4 compressed one-shot, as RocksDB 10.8 and later do (the database's release: 11.8.1).")
  })

  it('--sample 50: half the records measured, each interval holds the exhaustive size', () => {
    const all = JSON.parse(sstkit(['recompress', none, '--json']).stdout)
    const half = JSON.parse(sstkit(['recompress', none, '--json', '--sample', '50']).stdout)
    expect(half).toMatchObject({ exact: false, sampledRecords: 8, records: 16 })
    for (const [i, x] of half.results.entries()) {
      expect(x.fileBytes.low).toBeLessThanOrEqual(all.results[i].fileBytes.estimate)
      expect(x.fileBytes.high).toBeGreaterThanOrEqual(all.results[i].fileBytes.estimate)
    }
  })

  it('flags of SST blocks and dictionaries are usage errors (exit 2, one line)', () => {
    for (const args of [
      ['--dict', 'raw'],
      ['--block-size', '4096'],
      ['--dict-file', 'x.dict'],
    ]) {
      const r = sstkit(['recompress', none, ...args])
      expect(r.status).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stdout).toBe('')
    }
  })

  it('a damaged record: one line with its offset, exit 1', () => {
    // Synthetic: one byte of the second record's value flipped (its blob CRC no longer matches).
    const path = damaged(none, 'synthetic-recompress-flip.blob', (b) => {
      b[30 + 32 + 16 + 1000 + 32 + 16 + 10] ^= 0xff
      return b
    })
    const r = sstkit(['recompress', path])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^sstkit: .*synthetic-recompress-flip\.blob: blob record: blob CRC mismatch .*\(at offset 1078\)\n$/)
  })
})

describe('browse FILE.blob', () => {
  it('one line naming the commands that read blob files, exit 2; --json the file error entry', () => {
    const file = 'test/fixtures/blob/v11/000013.blob'
    const r = sstkit(['browse', file])
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      `sstkit: ${file}: a BlobDB blob file: browse shows SST files only; \`sstkit scan ${file}\` lists its records, \`sstkit props ${file}\` and \`sstkit layout ${file}\` its header, footer and sizes, \`sstkit verify ${file}\` checks it\n`,
    )
    const j = sstkit(['browse', file, '--json'])
    expect(j.status).toBe(2)
    expect(JSON.parse(j.stdout)).toMatchObject({ file, error: { code: 'not-supported', exitCode: 2 } })
  })
})

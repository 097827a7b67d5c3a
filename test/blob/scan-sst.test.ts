/**
 * `scan FILE.sst` reads the values of blob indexes from the blob files beside it, as `ldb scan`
 * resolves them (test/fixtures/blob: ldb 7.8.3's scans of the db_bench databases, RocksDB
 * 11.8.1's own reads of the v11 one).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, sstkit } from '../helpers.js'

const DBS: [string, string[]][] = [
  ['dbbench-none', ['000008.sst']],
  ['dbbench-snappy', ['000008.sst']],
  ['dbbench-lz4', ['000008.sst']],
  ['dbbench-zstd', ['000008.sst']],
  ['v11', ['000008.sst', '000012.sst']],
]

/** `0xKEY : 0xVALUE` lines of an ldb-style scan, as [key, value] in lowercase hex. */
function oracle(name: string): [string, string][] {
  return readFileSync(join(ROOT, 'test/fixtures/blob', name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^0x([0-9A-F]*) : 0x([0-9A-F]*)$/.exec(l)
      if (!m) throw new Error(`${name}: not a scan line: ${l.slice(0, 80)}`)
      return [m[1].toLowerCase(), m[2].toLowerCase()]
    })
}

const work = mkdtempSync(join(tmpdir(), 'sstkit-blob-scan-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('scan FILE.sst with its blob files beside it', () => {
  it('every value equals what RocksDB reads (ldb scan; RocksDB 11 for v11), blob values included', () => {
    const files = DBS.flatMap(([db, ssts]) => ssts.map((s) => `test/fixtures/blob/${db}/${s}`))
    const r = sstkit(['scan', ...files, '--hex', '--format', 'jsonl'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)) as { file: string; key: string; value: string; type: string; blobIndex?: object }[]
    const got = (file: string) => lines.filter((l) => l.file === file).map((l) => [l.key, l.value])
    for (const [db, ssts] of DBS) {
      if (db === 'v11') {
        expect(got(`test/fixtures/blob/v11/${ssts[0]}`)).toEqual(oracle('v11.scan-default.txt'))
        expect(got(`test/fixtures/blob/v11/${ssts[1]}`)).toEqual(oracle('v11.scan-events.txt'))
      } else expect(got(`test/fixtures/blob/${db}/${ssts[0]}`)).toEqual(oracle(`${db}.scan.txt`))
    }
    // The indexes stay in the JSON: the values came from blob files.
    const blobEntries = lines.filter((l) => l.type === 'kTypeBlobIndex')
    expect(blobEntries.length).toBeGreaterThan(60)
    expect(blobEntries.every((l) => l.blobIndex !== undefined)).toBe(true)
  })

  it('text: the value in place of the index; --no-blob-values prints the index as stored', () => {
    const sst = 'test/fixtures/blob/dbbench-zstd/000008.sst'
    const [key, value] = oracle('dbbench-zstd.scan.txt')[0]
    const r = sstkit(['scan', sst, '--hex', '--limit', '1'])
    expect(r.stdout).toBe(`0x${key} @1 kTypeBlobIndex => 0x${value}\n`)
    const raw = sstkit(['scan', sst, '--hex', '--limit', '1', '--no-blob-values'])
    expect(raw.stdout).toMatch(new RegExp(`^0x${key} @1 kTypeBlobIndex => \\[blob ref\\] file:9 offset:\\d+ size:\\d+ compression: ZSTD\\n$`))
  })

  it('--blob-dir: blob files from another directory; without any, the index as today', () => {
    const alone = join(work, 'alone')
    mkdirSync(alone)
    copyFileSync(join(ROOT, 'test/fixtures/blob/dbbench-snappy/000008.sst'), join(alone, '000008.sst'))
    const plain = sstkit(['scan', join(alone, '000008.sst'), '--hex', '--limit', '1'])
    expect(plain.status).toBe(0)
    expect(plain.stdout).toMatch(/kTypeBlobIndex => \[blob ref\] file:9 /)
    const resolved = sstkit(['scan', join(alone, '000008.sst'), '--hex', '--blob-dir', 'test/fixtures/blob/dbbench-snappy', '--format', 'jsonl'])
    expect(resolved.status).toBe(0)
    expect(
      resolved.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((l: { key: string; value: string }) => [l.key, l.value]),
    ).toEqual(oracle('dbbench-snappy.scan.txt'))
  })

  it('a blob file missing: beside the SST, its indexes print as stored; under --blob-dir, each says why, one line says so, exit 1', () => {
    const partial = join(work, 'partial')
    mkdirSync(partial)
    for (const f of ['000008.sst', '000009.blob']) copyFileSync(join(ROOT, 'test/fixtures/blob/dbbench-lz4', f), join(partial, f))
    const beside = sstkit(['scan', join(partial, '000008.sst'), '--hex'])
    expect(beside.stderr).toBe('')
    expect(beside.status).toBe(0)
    const stored = beside.stdout.split('\n').filter((l) => /kTypeBlobIndex => \[blob ref\] file:10 offset:\d+ size:\d+ compression: LZ4$/.test(l))
    expect(stored.length).toBeGreaterThan(0)
    const r = sstkit(['scan', join(partial, '000008.sst'), '--hex', '--blob-dir', partial])
    expect(r.status).toBe(1)
    const lines = r.stdout.trim().split('\n')
    const expected = oracle('dbbench-lz4.scan.txt')
    const missing = lines.filter((l) => l.includes('(blob not read: 000010.blob: the blob file is not in the directory)'))
    expect(missing).toHaveLength(stored.length)
    lines
      .filter((l) => !missing.includes(l))
      .forEach((l) => {
        const [k, v] = expected.find(([k]) => l.startsWith(`0x${k} `))!
        expect(l).toMatch(new RegExp(`^0x${k} @\\d+ kTypeBlobIndex => 0x${v}$`))
      })
    expect(r.stderr).toBe(
      `sstkit: ${join(partial, '000008.sst')}: ${missing.length} blob value(s) could not be read from ${partial} (first: 000010.blob: the blob file is not in the directory)\n`,
    )
  })
})

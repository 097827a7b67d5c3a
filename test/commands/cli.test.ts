/** The documented CLI contracts, run through the built binary on real fixtures. */
import { statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixturePath, REAL, sstkit, golden } from '../helpers.js'
import { parseSstDumpScan } from '../parity/sst-dump-text.js'

const jsonLines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))

describe('props', () => {
  it('--json follows the contract: file, format, properties (numbers for varints), userProperties', () => {
    const r = sstkit(['props', fixturePath('fv5-zstd'), '--json'])
    expect(r.status, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j.file).toBe(fixturePath('fv5-zstd'))
    expect(j.format).toMatchObject({ magic: '0x88e241b785f4cff7', formatVersion: 5, checksumType: expect.stringMatching(/^k/) })
    expect(j.properties['rocksdb.num.entries']).toBe(180)
    expect(j.properties['rocksdb.compression']).toBe('ZSTD')
    expect(typeof j.properties['rocksdb.data.size']).toBe('number')
    expect(j.userProperties['rocksdb.block.based.table.index.type']).toEqual({ hex: '00000000', value: 0 })
  })

  it('shows footer facts and grouped properties for people', () => {
    const r = sstkit(['props', 'examples/sample.sst'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/table\s+BlockBasedTable, format_version 5, checksum kCRC32c/)
    expect(r.stdout).toMatch(/filter\s+fastLocalBloom, 6 probes/)
    expect(r.stdout).toMatch(/rocksdb.num.entries\s+900/)
  })

  it('accepts several files and directories; --json gives an array', () => {
    const r = sstkit(['props', fixturePath('fv5-zstd'), REAL, '--json'])
    expect(r.status, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(Array.isArray(j)).toBe(true)
    expect(j.length).toBeGreaterThan(50)
  })
})

describe('layout', () => {
  it('lists every kind of block of a partitioned table, accounting for every byte', () => {
    const r = sstkit(['layout', fixturePath('index-partitioned'), '--json'])
    expect(r.status, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout)
    const kinds = new Set(j.blocks.map((b: { kind: string }) => b.kind))
    for (const k of ['data', 'index', 'index partition', 'filter', 'filter partition', 'properties', 'metaindex', 'footer']) expect(kinds).toContain(k)
    const total = j.totals.reduce((a: number, t: { sizeOnDisk: number }) => a + t.sizeOnDisk, 0)
    expect(total).toBe(statSync(fixturePath('index-partitioned')).size)
    expect(j.blocks.every((b: { checksum: string; kind: string }) => b.checksum === 'ok' || b.kind === 'footer')).toBe(true)
  })

  it('shows the compression dictionary and range-deletion blocks', () => {
    const dict = JSON.parse(sstkit(['layout', fixturePath('zstd-dict-trained'), '--json']).stdout)
    expect(dict.blocks.some((b: { kind: string }) => b.kind === 'compression dictionary')).toBe(true)
    const rd = JSON.parse(sstkit(['layout', fixturePath('entry-types'), '--json']).stdout)
    expect(rd.blocks.some((b: { kind: string }) => b.kind === 'range-del')).toBe(true)
  })

  it('prints a table and totals; --summary only the totals; csv and markdown', () => {
    const t = sstkit(['layout', 'examples/sample.sst'])
    expect(t.stdout).toMatch(/data\s+│/)
    const s = sstkit(['layout', 'examples/sample.sst', '--summary', '--format', 'markdown'])
    expect(s.stdout).toMatch(/^\| Kind \| Blocks \|/m)
    expect(s.stdout).toMatch(/^\| data \| 43 \|/m)
    const c = sstkit(['layout', 'examples/sample.sst', '--summary', '--format', 'csv'])
    expect(c.stdout.split('\n')[0]).toBe('Kind,Blocks,On disk,Share,Uncompressed,Ratio')
  })
})

describe('scan', () => {
  it('--format jsonl follows the contract, with hex under --hex', () => {
    const r = sstkit(['scan', fixturePath('entry-types'), '--format', 'jsonl', '--hex', '--limit', '3'])
    expect(r.status, r.stderr).toBe(0)
    const lines = jsonLines(r.stdout)
    expect(lines.length).toBe(3)
    for (const l of lines) {
      expect(Object.keys(l)).toEqual(['key', 'seq', 'type', 'typeCode', 'value'])
      expect(l.key).toMatch(/^[0-9a-f]*$/)
    }
    expect(lines[0]).toMatchObject({ key: Buffer.from('item0000').toString('hex'), type: 'kTypeValue', typeCode: 1 })
  })

  it('includes range tombstones, marked, in key order', () => {
    const lines = jsonLines(sstkit(['scan', fixturePath('entry-types'), '--format', 'jsonl']).stdout)
    const rd = lines.filter((l) => l.type === 'kTypeRangeDeletion')
    expect(rd.length).toBe(6)
    expect(rd[0].typeCode).toBe(15)
    const keys = lines.map((l) => l.key)
    expect([...keys].sort()).toEqual(keys)
    const text = sstkit(['scan', fixturePath('entry-types')]).stdout
    expect(text).toMatch(/^\['.*', '.*'\) @\d+ kTypeRangeDeletion$/m)
  })

  it('--from/--to/--prefix/--limit select exactly the entries sst_dump has in that range', () => {
    const all = parseSstDumpScan(golden('fv5-none', 'scanhex.txt')).map((e) => Buffer.from(e.key, 'hex').toString('latin1'))
    const from = all[37]
    const to = all[80]
    const r = jsonLines(sstkit(['scan', fixturePath('fv5-none'), '--from', from, '--to', to, '--format', 'jsonl']).stdout)
    expect(r.map((l) => l.key)).toEqual(all.slice(37, 80))
    const prefix = all[100].slice(0, all[100].length - 1)
    const p = jsonLines(sstkit(['scan', fixturePath('fv5-none'), '--prefix', prefix, '--format', 'jsonl']).stdout)
    expect(p.map((l) => l.key)).toEqual(all.filter((k) => k.startsWith(prefix)))
    expect(p.length).toBeGreaterThan(0)
    const l = jsonLines(sstkit(['scan', fixturePath('fv5-none'), '--limit', '7', '--format', 'jsonl']).stdout)
    expect(l.length).toBe(7)
  })

  it('reads hex keys with --input-hex', () => {
    const all = parseSstDumpScan(golden('binary-keys', 'scanhex.txt'))
    const r = jsonLines(
      sstkit(['scan', fixturePath('binary-keys'), '--input-hex', '--from', `0x${all[10].key}`, '--limit', '1', '--hex', '--format', 'jsonl']).stdout,
    )
    expect(r[0].key).toBe(all[10].key.toLowerCase())
  })

  it('prints text lines with escapes for binary bytes', () => {
    const r = sstkit(['scan', fixturePath('binary-keys'), '--limit', '50'])
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/\\x[0-9a-f]{2}/)
    expect(r.stdout.split('\n')[0]).toMatch(/^'.*' @\d+ kType\w+ => '.*'$/)
  })

  it('decodes blob indexes of a RocksDB 11 blob file', () => {
    const r = sstkit(['scan', fixturePath('v11-fv7-blob'), '--format', 'jsonl'])
    const blobs = jsonLines(r.stdout).filter((l) => l.type === 'kTypeBlobIndex')
    expect(blobs.length).toBe(12)
    expect(blobs[0].blobIndex).toMatchObject({ kind: 'blob' })
  })
})

describe('verify', () => {
  it('--json follows the contract and exits 0 on a clean file', () => {
    const r = sstkit(['verify', fixturePath('index-partitioned'), '--json'])
    expect(r.status, r.stderr).toBe(0)
    const j = JSON.parse(r.stdout)
    expect(j).toMatchObject({ file: fixturePath('index-partitioned'), ok: true, problems: [] })
    expect(j.blocksChecked).toBeGreaterThan(40)
  })

  it('says OK per file in text', () => {
    const r = sstkit(['verify', 'examples/sample.sst'])
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^examples\/sample.sst: OK \(48 blocks including the footer, 43 data blocks, 900 entries, 0 range deletions\)$/m)
  })
})

describe('usage errors', () => {
  it('exit 2 with one line for a missing file', () => {
    const r = sstkit(['props', 'no/such.sst'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe('sstkit: cannot read no/such.sst: no such file or directory')
  })
  it('exit 2 for an unknown flag', () => {
    expect(sstkit(['scan', 'examples/sample.sst', '--bogus']).status).toBe(2)
  })
})

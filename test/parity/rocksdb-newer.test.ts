/**
 * format_version 6/7 files written by RocksDB 9.7, 10.5 and 11.8 cannot be read
 * by the Debian sst_dump 7.8.3. Their oracle is the writer itself: every entry
 * it read back through its own API (NAME.expected.jsonl) must be what sstkit reads.
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeBlobIndex } from '../../src/format/blob-index.js'
import { ValueType } from '../../src/format/value-type.js'
import { openTable, parseInternalKey, verifyTable } from '../../src/index.js'
import { fixturePath, fixtures, golden, sstkit } from '../helpers.js'

const newer = fixtures().filter((f) => !f.sstDumpReadable)

let propsByFile: Map<string, { format: { formatVersion: number; checksumType: string } }>
beforeAll(() => {
  const r = sstkit(['props', ...newer.map((f) => fixturePath(f.name)), '--json'])
  expect(r.status, r.stderr).toBe(0)
  propsByFile = new Map(JSON.parse(r.stdout).map((j: { file: string }) => [j.file, j]))
})

describe('newer-format fixtures', () => {
  it('include format_version 6 and 7', () => {
    expect(new Set(newer.map((f) => f.formatVersion))).toEqual(new Set([6, 7]))
  })
})

describe.each(newer.map((f) => [f.name, f] as const))('%s vs its RocksDB writer', (name, f) => {
  it('reads every entry the writer reads back, in order', () => {
    const expected = readFileSync(fixturePath(name, 'expected.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; value: string; valueInBlob?: boolean })
    const table = openTable(fixturePath(name))
    expect(table.formatVersion).toBe(f.formatVersion)
    const got: { key: string; type: number; value: Uint8Array }[] = []
    const it = table.iterator()
    for (it.seekToFirst(); it.valid; it.next()) {
      const p = parseInternalKey(it.key)
      got.push({ key: Buffer.from(p.userKey).toString('hex'), type: p.type, value: it.value.slice() })
    }
    table.close()
    expect(got.map((g) => g.key)).toEqual(expected.map((e) => e.key))
    expected.forEach((e, i) => {
      if (e.valueInBlob) {
        // The value lives in a blob file; the SST holds a blob index whose size is the value's.
        expect(got[i].type).toBe(ValueType.BlobIndex)
        const b = decodeBlobIndex(got[i].value)
        expect(b.kind).toBe('blob')
        if (b.kind === 'blob') expect(Number(b.size)).toBeGreaterThan(0)
      } else {
        expect(got[i].type).toBe(ValueType.Value)
        expect(Buffer.from(got[i].value).toString('hex')).toBe(e.value)
      }
    })
  })

  it('verifies clean: footer checksum, context checksums of every block', () => {
    const table = openTable(fixturePath(name), { verifyChecksums: false })
    const v = verifyTable(table)
    table.close()
    expect(v.problems).toEqual([])
    expect(v.blocksChecked).toBeGreaterThan(3)
  })

  it('is a file sst_dump 7.8.3 refuses (the reason sstkit exists for it)', () => {
    expect(golden(name, 'sstdump-refuses.txt')).toMatch(/format_version|Corrupt|not supported/i)
  })

  it('props --json shows the footer format_version and a checksum type', () => {
    const j = propsByFile.get(fixturePath(name))!
    expect(j.format.formatVersion).toBe(f.formatVersion)
    expect(j.format.checksumType).toBe(f.checksum)
  })
})

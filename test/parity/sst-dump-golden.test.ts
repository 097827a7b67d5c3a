/**
 * Parity with the real sst_dump 7.8.3: for every fixture it can read, every
 * scanned entry, every property value and the verify verdict must equal the
 * committed golden output of sst_dump.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { openTable, parseInternalKey, verifyTable } from '../../src/index.js'
import { fixturePath, fixtures, golden, sstkit } from '../helpers.js'
import { parseSstDumpProps, parseSstDumpScan, expectedProperties } from './sst-dump-text.js'

const readable = fixtures().filter((f) => f.sstDumpReadable)

/** One CLI run for every fixture: `props --json` over many files gives an array. */
let propsByFile: Map<string, { properties: Record<string, unknown>; userProperties: Record<string, { hex: string }> }>
beforeAll(() => {
  const r = sstkit(['props', ...readable.map((f) => fixturePath(f.name)), '--json'])
  expect(r.status, r.stderr).toBe(0)
  propsByFile = new Map(JSON.parse(r.stdout).map((j: { file: string }) => [j.file, j]))
})

describe('fixtures', () => {
  it('cover sst_dump-readable files of every format_version 0-5', () => {
    const fvs = new Set(readable.map((f) => f.formatVersion))
    for (const fv of [0, 1, 2, 3, 4, 5]) expect(fvs.has(fv), `format_version ${fv}`).toBe(true)
  })
})

describe.each(readable.map((f) => [f.name, f] as const))('%s vs sst_dump 7.8.3', (name) => {
  it('scan: every entry (key, seq, type, value) equals sst_dump --command=scan --output_hex', () => {
    const expected = parseSstDumpScan(golden(name, 'scanhex.txt'))
    const table = openTable(fixturePath(name))
    const actual: string[] = []
    const it = table.iterator()
    for (it.seekToFirst(); it.valid; it.next()) {
      const p = parseInternalKey(it.key)
      actual.push(`${hexU(p.userKey)} ${p.seq} ${p.type} ${hexU(it.value)}`)
    }
    table.close()
    expect(actual.length).toBe(expected.length)
    expect(actual).toEqual(expected.map((e) => `${e.key} ${e.seq} ${e.type} ${e.value}`))
  })

  it('props --json: every property sst_dump prints has the same value', () => {
    const text = golden(name, 'props.txt')
    const sstDump = parseSstDumpProps(text)
    const ours = propsByFile.get(fixturePath(name))!
    expect(ours).toBeDefined()
    const want = expectedProperties(sstDump)
    const got: Record<string, string> = {}
    for (const k of Object.keys(want)) {
      if (k.startsWith('user:')) {
        const prop = k.slice(5)
        const u = ours.userProperties[prop]
        got[k] = u ? u.hex.toUpperCase() : ours.properties[prop] !== undefined ? '(known)' : '(missing)'
      } else got[k] = ours.properties[k] === undefined ? '(missing)' : String(ours.properties[k])
    }
    // Varint-encoded properties that 7.8.3 also lists among raw user properties.
    for (const k of Object.keys(want)) if (got[k] === '(known)') got[k] = want[k]
    expect(got).toEqual(want)
    expect(Object.keys(want).length).toBeGreaterThan(15)
  })

  it('verify: agrees with sst_dump --command=verify --verify_checksum', () => {
    const says = golden(name, 'verify.txt')
    const table = openTable(fixturePath(name), { verifyChecksums: false })
    const v = verifyTable(table)
    table.close()
    expect(says).toContain('The file is ok')
    expect(v.problems).toEqual([])
    expect(v.ok).toBe(true)
  })
})

function hexU(b: Uint8Array): string {
  return Buffer.from(b).toString('hex').toUpperCase()
}

it('entry-types scan golden has the expected value types', () => {
  const types = new Set(parseSstDumpScan(golden('entry-types', 'scanhex.txt')).map((e) => e.type))
  expect([...types].sort()).toEqual(['0', '1', '2', '7'])
})

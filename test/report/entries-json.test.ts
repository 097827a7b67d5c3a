/**
 * The lossless JSON contract of `scan --format jsonl` (docs/scan.md):
 * a byte field is text when its bytes are valid UTF-8, and is otherwise left
 * out for `<field>Hex`; under --hex every byte field is hex. Checked against
 * real sst_dump 7.8.3's `--command=scan --output_hex` of real files with
 * binary keys and values: the bytes recovered from the JSON are the bytes
 * sst_dump prints, entry for entry.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { entryJson, type EntryJson } from '../../src/report/entries.js'
import { ValueType } from '../../src/format/value-type.js'
import { fixturePath, sstkit } from '../helpers.js'

/** The bytes of a contract field pair: `name` as UTF-8 text, or `nameHex` as hex; exactly one present. */
function bytesOf(o: Record<string, unknown>, name: string): Buffer {
  const text = o[name]
  const hex = o[`${name}Hex`]
  expect((text === undefined) !== (hex === undefined), `exactly one of ${name} / ${name}Hex in ${JSON.stringify(o)}`).toBe(true)
  if (typeof hex === 'string') return Buffer.from(hex, 'hex')
  expect(typeof text).toBe('string')
  return Buffer.from(text as string, 'utf8')
}

/** `'KEYHEX' seq:N, type:T => VALUEHEX` lines of sst_dump --output_hex. */
function sstDumpHexScan(name: string): { key: string; seq: number; type: number; value: string }[] {
  const rows = []
  for (const line of readFileSync(fixturePath(name, 'scanhex.txt'), 'latin1').split('\n')) {
    const m = /^'([0-9A-F]*)' seq:(\d+), type:(\d+) => ([0-9A-F]*)$/.exec(line)
    if (m) rows.push({ key: m[1], seq: Number(m[2]), type: Number(m[3]), value: m[4] })
  }
  return rows
}

const runs = new Map<string, EntryJson[]>()

/** The CLI's output, parsed (one run per file and flags: spawning is slow here). */
function scanJsonl(name: string, extra: string[] = []): EntryJson[] {
  const id = [name, ...extra].join(' ')
  if (!runs.has(id)) runs.set(id, runScan(name, extra))
  return runs.get(id)!
}

function runScan(name: string, extra: string[]): EntryJson[] {
  const r = sstkit(['scan', fixturePath(name), '--format', 'jsonl', ...extra])
  expect(r.status).toBe(0)
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as EntryJson)
}

describe('scan --format jsonl loses nothing (real files with binary keys and values, against sst_dump 7.8.3 --output_hex)', () => {
  it.each(['binary-keys', 'big-value', 'wide-columns'])('%s: every key and value byte for byte, no U+FFFD', (name) => {
    const want = sstDumpHexScan(name)
    const got = scanJsonl(name)
    expect(want.length).toBeGreaterThan(0)
    expect(got.length).toBe(want.length)
    for (let i = 0; i < want.length; i++) {
      const o = got[i] as unknown as Record<string, unknown>
      expect(JSON.stringify(o)).not.toContain('\ufffd')
      expect([bytesOf(o, 'key').toString('hex').toUpperCase(), o.seq, o.typeCode, bytesOf(o, 'value').toString('hex').toUpperCase()]).toEqual([
        want[i].key,
        want[i].seq,
        want[i].type,
        want[i].value,
      ])
    }
  })

  it('binary-keys uses both forms: text for valid UTF-8, keyHex / valueHex for the rest', () => {
    const got = scanJsonl('binary-keys')
    expect(got.some((o) => o.keyHex !== undefined)).toBe(true)
    expect(got.some((o) => o.valueHex !== undefined)).toBe(true)
    expect(got.some((o) => o.key !== undefined)).toBe(true)
    // A value that is valid UTF-8 stays text, even when it is not ASCII.
    for (const o of got) if (o.valueHex !== undefined) expect(Buffer.from(o.valueHex, 'hex').toString('utf8')).toContain('\ufffd')
  })

  it('--hex: key and value are always hex, under their own names', () => {
    const got = scanJsonl('binary-keys', ['--hex'])
    const want = sstDumpHexScan('binary-keys')
    expect(got.map((o) => [o.key, o.value, o.keyHex, o.valueHex])).toEqual(want.map((w) => [w.key.toLowerCase(), w.value.toLowerCase(), undefined, undefined]))
  })
})

describe('entryJson: the same contract for every byte field', () => {
  const bad = Uint8Array.of(0x61, 0xff, 0x62)
  const good = new TextEncoder().encode('naïve')

  it('wide-column names and values (synthetic entity)', () => {
    // version 1, 2 columns, each name (length-prefixed) with its value size, then the values (RocksDB's wide-column serialization)
    const entity = Uint8Array.of(0x01, 0x02, 0x01, 0x61, 0x03, 0x02, 0x62, 0xfe, 0x02, 0x78, 0xff, 0x79, 0x6f, 0x6b)
    const o = entryJson({ userKey: good, seq: 7, type: ValueType.WideColumnEntity, value: entity, timestampSize: 0 }, false)
    expect(o.key).toBe('naïve')
    expect(o.valueHex).toBe(Buffer.from(entity).toString('hex'))
    expect(o.columns).toEqual([
      { name: 'a', valueHex: '78ff79' },
      { nameHex: '62fe', value: 'ok' },
    ])
  })

  it('a value with a preferred seqno, and a range tombstone end key', () => {
    const packed = Uint8Array.of(...bad, 0x05, 0, 0, 0, 0, 0, 0, 0)
    const p = entryJson({ userKey: bad, seq: 9, type: ValueType.ValuePreferredSeqno, value: packed, timestampSize: 0 }, false)
    expect(p).toMatchObject({ keyHex: '61ff62', valueHex: '61ff62', preferredSeqno: 5 })
    expect(p.key).toBeUndefined()
    expect(p.value).toBeUndefined()
    const t = entryJson({ userKey: good, seq: 3, type: ValueType.RangeDeletion, value: bad, timestampSize: 0 }, false)
    expect(t).toEqual({ key: 'naïve', seq: 3, type: 'kTypeRangeDeletion', typeCode: 15, valueHex: '61ff62' })
  })
})

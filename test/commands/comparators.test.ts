/**
 * No false alarms from comparators and key formats, end to end through the CLI, on real files
 * (test/fixtures/comparators/, written by RocksDB 7.8.3 and LevelDB 1.23; see its README):
 * order is checked only under a comparator known to be the file's, a LevelDB table (which records
 * none) gets a note, seeks refuse without the file's comparator, and raw-key tables read.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, sstkit } from '../helpers.js'

const DIR = join(ROOT, 'test/fixtures/comparators')
const file = (name: string) => join(DIR, name)
const CUSTOM = file('custom-comparator.sst')
const REVERSE = file('reverse-bytewise.sst')
const LDB_CUSTOM = file('leveldb-custom-comparator.ldb')
const LDB_BYTEWISE = file('leveldb-bytewise.ldb')
const LDB_RAW = file('leveldb-raw-keys.ldb')

interface VerifyJson {
  ok: boolean
  entries: number
  problems: { block: string; offset: number | null; message: string }[]
  notes: { block: string; offset: number | null; message: string }[]
  comparator: string
  comparatorSource: string
  keyFormat: string
  orderChecked: boolean
  orderSkippedReason?: string
}

function verifyJson(args: string[]): { status: number; j: VerifyJson } {
  const r = sstkit(['verify', ...args, '--json'])
  expect(r.stderr).toBe('')
  return { status: r.status, j: JSON.parse(r.stdout) as VerifyJson }
}

/** `(key, seq, type, value)` of each entry of an sst_dump 7.8.3 scan golden. */
function sstDumpEntries(name: string): string[] {
  return readFileSync(file(name), 'latin1')
    .split('\n')
    .map((l) => /^'(.*)' seq:(\d+), type:(\d+) => (.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} @${m[2]} ${m[3] === '1' ? 'kTypeValue' : 'kTypeDeletion'} ${m[4]}`)
}

/** The same of sstkit's scan text lines. */
function scanEntries(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^'(.*)' @(\d+) (\w+)(?: => '(.*)')?$/.exec(l)
      if (!m) throw new Error(`not a scan line: ${l}`)
      return `${m[1]} @${m[2]} ${m[3]} ${m[4] ?? ''}`
    })
}

const numbers = Array.from({ length: 400 }, (_, i) => String(i + 1))

describe('a RocksDB file under a comparator sstkit does not implement', () => {
  it('verify checks everything else, skips order, says so in one line, exits 0', () => {
    const r = sstkit(['verify', CUSTOM])
    expect(r.status, r.stdout).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toEqual([
      `${CUSTOM}: OK (24 blocks including the footer, 20 data blocks, 400 entries, 0 range deletions)`,
      '  key order not checked: the file\'s comparator "sstkit.test.LengthFirstComparator" is not one sstkit implements (state one with --comparator NAME to check order)',
    ])
  })

  it('verify --json says the order was not checked and why', () => {
    const { status, j } = verifyJson([CUSTOM])
    expect(status).toBe(0)
    expect(j).toMatchObject({ ok: true, entries: 400, problems: [], notes: [], orderChecked: false, comparatorSource: 'recorded' })
    expect(j.comparator).toBe('sstkit.test.LengthFirstComparator')
    expect(j.orderSkippedReason).toMatch(/sstkit\.test\.LengthFirstComparator/)
  })

  it('--comparator states one: order is then checked under it (and bytewise is not this file’s order)', () => {
    const { status, j } = verifyJson([CUSTOM, '--comparator', 'leveldb.BytewiseComparator'])
    expect(status).toBe(1)
    expect(j.orderChecked).toBe(true)
    expect(j.comparatorSource).toBe('stated')
    // Keys go 9 -> 10 and 99 -> 100: exactly where length-first and bytewise order disagree.
    expect(j.problems.map((p) => p.message)).toEqual([
      'keys out of order: entry 10 does not sort after the previous key',
      'keys out of order: entry 100 does not sort after the previous key',
    ])
  })

  it('--comparator takes only names sstkit implements', () => {
    const r = sstkit(['verify', CUSTOM, '--comparator', 'sstkit.test.LengthFirstComparator'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('scan prints every entry in file order', () => {
    const r = sstkit(['scan', CUSTOM])
    expect(r.status).toBe(0)
    expect(scanEntries(r.stdout)).toEqual(numbers.map((n) => `${n} @0 kTypeValue value-of-${n}`))
  })

  it('scan --from/--to/--prefix refuse in one line (exit 2) instead of printing wrong entries', () => {
    for (const range of [
      ['--from', '5'],
      ['--to', '5'],
      ['--prefix', '5'],
    ]) {
      const r = sstkit(['scan', CUSTOM, ...range])
      expect(r.status, range.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(
        `sstkit: ${CUSTOM}: cannot seek without the file's comparator "sstkit.test.LengthFirstComparator", which sstkit does not implement\n`,
      )
    }
  })

  it('a refused seek is that file’s report: the next file is still scanned', () => {
    const r = sstkit(['scan', CUSTOM, REVERSE, '--from', 'key02090'])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/custom-comparator\.sst: cannot seek/)
    expect(r.stdout).toContain("'key02086' @0 kTypeValue => 'value-of-key02086'")
  })
})

describe('a RocksDB file under the built-in reverse-bytewise comparator', () => {
  it('verify checks its order (clean)', () => {
    const { status, j } = verifyJson([REVERSE])
    expect(status).toBe(0)
    expect(j).toMatchObject({ ok: true, entries: 300, orderChecked: true, comparator: 'rocksdb.ReverseBytewiseComparator', notes: [] })
  })

  it('scan prints what sst_dump 7.8.3 prints, and seeks under that comparator', () => {
    const all = sstDumpEntries('reverse-bytewise.sst-dump-scan.txt')
    expect(all).toHaveLength(300)
    expect(scanEntries(sstkit(['scan', REVERSE]).stdout)).toEqual(all)
    // In reverse order, the entries from key01000 on are those bytewise <= it.
    const from = scanEntries(sstkit(['scan', REVERSE, '--from', 'key01000']).stdout)
    expect(from).toEqual(all.filter((e) => e.split(' ')[0] <= 'key01000'))
  })
})

describe('LevelDB tables (no recorded comparator)', () => {
  it('under a custom comparator: verify exits 0 with one note, not corruption', () => {
    const r = sstkit(['verify', LDB_CUSTOM])
    expect(r.status).toBe(0)
    expect(r.stdout.trim().split('\n')).toEqual([
      `${LDB_CUSTOM}: OK (13 blocks including the footer, 10 data blocks, 401 entries, 0 range deletions)`,
      '  note: data block at offset 0: not in bytewise order: the table may use a custom comparator (2 places, the first here)',
    ])
    const { j } = verifyJson([LDB_CUSTOM])
    expect(j).toMatchObject({ ok: true, problems: [], orderChecked: false, comparatorSource: 'assumed', keyFormat: 'internal' })
    expect(j.notes).toHaveLength(1)
  })

  it('--comparator makes the order a check again', () => {
    const { status, j } = verifyJson([LDB_CUSTOM, '--comparator', 'leveldb.BytewiseComparator'])
    expect(status).toBe(1)
    expect(j.notes).toEqual([])
    expect(j.problems.length).toBeGreaterThan(0)
    expect(j.problems[0].message).toMatch(/keys out of order/)
  })

  it('in bytewise order: verify is clean without notes, scan equals sst_dump 7.8.3', () => {
    const r = sstkit(['verify', LDB_BYTEWISE])
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(`${LDB_BYTEWISE}: OK (13 blocks including the footer, 10 data blocks, 401 entries, 0 range deletions)\n`)
    const all = sstDumpEntries('leveldb-bytewise.sst-dump-scan.txt')
    expect(all).toHaveLength(401)
    expect(scanEntries(sstkit(['scan', LDB_BYTEWISE]).stdout)).toEqual(all)
  })

  it('seek needs the comparator stated (the table does not say), then works', () => {
    const refused = sstkit(['scan', LDB_BYTEWISE, '--from', '5'])
    expect(refused.status).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toBe(`sstkit: ${LDB_BYTEWISE}: cannot seek: the table records no comparator (a LevelDB table); state it with --comparator NAME\n`)
    const r = sstkit(['scan', LDB_BYTEWISE, '--from', '5', '--to', '6', '--comparator', 'leveldb.BytewiseComparator'])
    expect(r.status).toBe(0)
    const all = sstDumpEntries('leveldb-bytewise.sst-dump-scan.txt')
    expect(scanEntries(r.stdout)).toEqual(all.filter((e) => e >= '5' && e < '6'))
  })
})

describe('raw-key LevelDB tables (TableBuilder used directly)', () => {
  const keys = [...'abcdefghijklmnopqrstuvwxyz', ...Array.from({ length: 300 }, (_, i) => `raw-key-${String(i * 3).padStart(5, '0')}`)].sort()

  it('are detected: verify checks them (order included) and is clean', () => {
    const { status, j } = verifyJson([LDB_RAW])
    expect(status).toBe(0)
    expect(j).toMatchObject({ ok: true, entries: 326, keyFormat: 'raw', problems: [], notes: [] })
  })

  it('scan prints keys and values without sequence numbers', () => {
    const r = sstkit(['scan', LDB_RAW])
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(keys.map((k) => `'${k}' => 'v:${k}'\n`).join(''))
    const j = sstkit(['scan', LDB_RAW, '--format', 'jsonl', '--limit', '2'])
    expect(j.stdout).toBe('{"key":"a","value":"v:a"}\n{"key":"b","value":"v:b"}\n')
    const hex = sstkit(['scan', LDB_RAW, '--hex', '--limit', '1'])
    expect(hex.stdout).toBe('0x61 => 0x763a61\n')
  })

  it('seek with the comparator stated', () => {
    const r = sstkit(['scan', LDB_RAW, '--prefix', 'raw-key-0089', '--comparator', 'leveldb.BytewiseComparator'])
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(['raw-key-00891', 'raw-key-00894', 'raw-key-00897'].map((k) => `'${k}' => 'v:${k}'\n`).join(''))
  })

  it('--key-format internal reads them as internal keys: a clear error, not a crash', () => {
    const { status, j } = verifyJson([LDB_RAW, '--key-format', 'internal'])
    expect(status).toBe(1)
    expect(j.problems[0]).toEqual({ block: 'data block', offset: 0, message: 'entry 1 has a 1-byte key, shorter than the 8-byte internal key trailer' })
    const scan = sstkit(['scan', LDB_RAW, '--key-format', 'internal'])
    expect(scan.status).toBe(1)
    expect(scan.stderr).toBe(`sstkit: ${LDB_RAW}: data block: internal key of 1 bytes is shorter than its 8-byte trailer (at offset 0)\n`)
  })

  it('recompress and rewrite refuse them in one line, exit 2, nothing written: such keys have no sequence number or type to write a table with', () => {
    const refused = `sstkit: ${LDB_RAW}: the data blocks hold plain user keys, not internal keys (a table LevelDB's TableBuilder wrote outside a database)`
    for (const args of [[], ['--block-size', '8192']]) {
      const r = sstkit(['recompress', LDB_RAW, '--types', 'zstd', '--levels', '1', '--dict', 'none', '--checksum', 'off', ...args])
      expect(r.status, args.join(' ')).toBe(2)
      expect(r.stderr).toBe(`${refused}: recompress needs a table of a database\n`)
      expect(r.stdout).toBe('')
    }
    // Another file of the same run still gets its report.
    const two = sstkit(['recompress', LDB_RAW, LDB_BYTEWISE, '--types', 'zstd', '--levels', '1', '--dict', 'none', '--checksum', 'off', '--json'])
    expect(two.status).toBe(2)
    const reports = JSON.parse(two.stdout) as { file: string; error?: { code: string }; results?: unknown[] }[]
    expect(reports.map((x) => [x.file, x.error?.code ?? x.results?.length])).toEqual([
      [LDB_RAW, 'not-supported'],
      [LDB_BYTEWISE, 1],
    ])
    const dir = mkdtempSync(join(tmpdir(), 'sstkit-raw-keys-'))
    try {
      const out = join(dir, 'out.sst')
      const w = sstkit(['rewrite', LDB_RAW, '-o', out, '--compression', 'zstd'])
      expect(w.status).toBe(2)
      expect(w.stderr).toBe(`${refused}: rewrite needs a table of a database\n`)
      expect(readdirSync(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('--key-format raw on a table of internal keys prints the trailers as key bytes (what was asked), and auto does not', () => {
    const raw = sstkit(['scan', LDB_BYTEWISE, '--key-format', 'raw', '--limit', '1'])
    expect(raw.stdout).toBe("'1\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00' => 'value-of-1'\n")
    expect(sstkit(['scan', LDB_BYTEWISE, '--limit', '1']).stdout).toBe("'1' @1 kTypeValue => 'value-of-1'\n")
  })
})

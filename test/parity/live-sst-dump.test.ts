/**
 * Live parity: when the real sst_dump is installed (CI installs Debian's
 * rocksdb-tools), run it now on every fixture it can read and compare with
 * sstkit's CLI output — entries from `scan --format jsonl --hex` and the
 * `verify` verdict. Guards against goldens drifting from the real tool.
 */
import { spawnSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { exactTextBytes } from '../../src/format/exact-text.js'
import { fixturePath, fixtures, ROOT, SST_DUMP, sstkit, toolPresent } from '../helpers.js'
import { expectedProperties, parseSstDumpProps, parseSstDumpScan } from './sst-dump-text.js'

const readable = fixtures().filter((f) => f.sstDumpReadable)

function sstDump(args: string[]): string {
  const r = spawnSync(SST_DUMP!, args, { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })
  if (r.error) throw r.error
  return r.stdout + r.stderr
}

function u64le(decimal: string): string {
  const b = Buffer.alloc(8)
  b.writeBigUInt64LE(BigInt(decimal))
  return b.toString('hex')
}

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))('live: real sst_dump on this machine', () => {
  // One sstkit run per command over every fixture (lines carry their file).
  const scanned = new Map<string, string[]>()
  const verified = new Map<string, { ok: boolean }>()
  beforeAll(() => {
    const files = readable.map((f) => fixturePath(f.name))
    const s = sstkit(['scan', ...files, '--format', 'jsonl', '--hex', '--no-range-deletions'])
    expect(s.status, s.stderr).toBe(0)
    for (const f of files) scanned.set(f, [])
    for (const line of s.stdout.split('\n')) {
      if (!line) continue
      const e = JSON.parse(line)
      scanned.get(e.file)!.push(`${e.key}${e.timestamp !== undefined ? u64le(e.timestamp) : ''} ${e.seq} ${e.typeCode} ${e.value}`)
    }
    const v = sstkit(['verify', ...files, '--json'])
    expect(v.status, v.stderr).toBe(0)
    for (const j of JSON.parse(v.stdout)) verified.set(j.file, j)
  })

  it('is the 7.8.3 the goldens came from', () => {
    const r = spawnSync(SST_DUMP!, ['--version'], { encoding: 'utf8' })
    expect(r.stdout + r.stderr).toMatch(/7\.8\.3/)
  })

  it.each(readable.map((f) => f.name))('%s: scan --format jsonl --hex equals sst_dump --command=scan --output_hex', (name) => {
    const file = fixturePath(name)
    const theirs = parseSstDumpScan(sstDump([`--file=${file}`, '--command=scan', '--output_hex'])).map(
      (e) => `${e.key.toLowerCase()} ${e.seq} ${e.type} ${e.value.toLowerCase()}`,
    )
    expect(scanned.get(file)).toEqual(theirs)
  })

  it.each(readable.map((f) => f.name))('%s: verify agrees with sst_dump --command=verify --verify_checksum', (name) => {
    const file = fixturePath(name)
    expect(sstDump([`--file=${file}`, '--command=verify', '--verify_checksum'])).toContain('The file is ok')
    expect(verified.get(file)?.ok).toBe(true)
  })

  // Column families named by control bytes and by bytes that are not UTF-8 (test/fixtures/found/README.md).
  const named = ['names', 'names-bytes'].flatMap((db) => {
    const dir = join(ROOT, 'test/fixtures/found', db)
    return readdirSync(dir)
      .filter((f) => f.endsWith('.sst'))
      .map((f) => join(dir, f))
  })

  it('props --json of tables whose column family names are control bytes or not UTF-8: every property sst_dump prints, byte for byte', () => {
    const r = sstkit(['props', ...named, '--json'])
    expect(r.status, r.stderr).toBe(0)
    const ours = new Map<string, { properties: Record<string, string | number>; userProperties: Record<string, { hex: string }> }>(
      JSON.parse(r.stdout).map((j: { file: string }) => [j.file, j]),
    )
    const latin1 = (v: string | number) => (typeof v === 'number' ? String(v) : Buffer.from(exactTextBytes(v)).toString('latin1'))
    const names = new Set<string>()
    for (const file of named) {
      const theirs = sstDump([`--file=${file}`, '--show_properties'])
      const { properties: props, userProperties } = ours.get(file)!
      const name = latin1(props['rocksdb.column.family.name'])
      names.add(name)
      // the name as sst_dump prints it, raw (a newline in it splits sst_dump's line)
      expect(theirs).toContain(`  column family name: ${name}\n`)
      const want = expectedProperties(parseSstDumpProps(theirs))
      delete want['rocksdb.column.family.name']
      // user:NAME is raw hex; 7.8.3 also lists some varint properties sstkit knows among them
      const value = (k: string) =>
        k.startsWith('user:')
          ? (userProperties[k.slice(5)]?.hex.toUpperCase() ?? (props[k.slice(5)] !== undefined ? want[k] : '(missing)'))
          : props[k] === undefined
            ? '(missing)'
            : latin1(props[k])
      const got = Object.fromEntries(Object.keys(want).map((k) => [k, value(k)]))
      expect(got).toEqual(want)
    }
    expect([...names].sort()).toEqual(
      ['default', 'default', '\x01', '\n', '\t', 'transactions_by_account_hash', 'transactions_by_block_hash', '\xff', '\xfe', 'cao\xe9', 'caf\xc3\xa9']
        .sort()
        .filter((n, i, a) => a.indexOf(n) === i),
    )
  })
})

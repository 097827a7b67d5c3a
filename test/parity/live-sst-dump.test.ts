/**
 * Live parity: when the real sst_dump is installed (CI installs Debian's
 * rocksdb-tools), run it now on every fixture it can read and compare with
 * sstkit's CLI output — entries from `scan --format jsonl --hex` and the
 * `verify` verdict. Guards against goldens drifting from the real tool.
 */
import { spawnSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import { fixturePath, fixtures, SST_DUMP, sstkit, toolPresent } from '../helpers.js'
import { parseSstDumpScan } from './sst-dump-text.js'

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
})

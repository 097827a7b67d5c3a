/**
 * Live parity: when the real sst_dump is installed (CI installs Debian's
 * rocksdb-tools), run it now on every fixture it can read and compare with
 * sstkit's CLI output — entries from `scan --format jsonl --hex` and the
 * `verify` verdict. Guards against goldens drifting from the real tool.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { fixturePath, fixtures, SST_DUMP, sstkit } from '../helpers.js'
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

describe.runIf(SST_DUMP !== null)('live: real sst_dump on this machine', () => {
  it('is the 7.8.3 the goldens came from', () => {
    const r = spawnSync(SST_DUMP!, ['--version'], { encoding: 'utf8' })
    expect(r.stdout + r.stderr).toMatch(/7\.8\.3/)
  })

  it.each(readable.map((f) => f.name))('%s: scan --format jsonl --hex equals sst_dump --command=scan --output_hex', (name) => {
    const file = fixturePath(name)
    const theirs = parseSstDumpScan(sstDump([`--file=${file}`, '--command=scan', '--output_hex'])).map(
      (e) => `${e.key.toLowerCase()} ${e.seq} ${e.type} ${e.value.toLowerCase()}`,
    )
    const r = sstkit(['scan', file, '--format', 'jsonl', '--hex', '--no-range-deletions'])
    expect(r.status, r.stderr).toBe(0)
    const ours = r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l))
      .map((e) => `${e.key}${e.timestamp !== undefined ? u64le(e.timestamp) : ''} ${e.seq} ${e.typeCode} ${e.value}`)
    expect(ours).toEqual(theirs)
  })

  it.each(readable.map((f) => f.name))('%s: verify agrees with sst_dump --command=verify --verify_checksum', (name) => {
    const file = fixturePath(name)
    expect(sstDump([`--file=${file}`, '--command=verify', '--verify_checksum'])).toContain('The file is ok')
    const r = sstkit(['verify', file, '--json'])
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).ok).toBe(true)
  })
})

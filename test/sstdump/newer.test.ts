/**
 * Files sst_dump 7.8.3 refuses (format_version 6 and 7): sstkit opens them and prints the same
 * shapes filled in correctly, with the properties the newest sst_dump prints.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixtures, REAL, ROOT } from '../helpers.js'
import { runIn } from './harness.js'

const newer = fixtures().filter((f) => !f.sstDumpReadable && f.formatVersion >= 6)

describe.each(newer.map((f) => [f.name] as const))('%s (7.8.3 refuses it)', (name) => {
  const file = `test/fixtures/real/${name}.sst`

  it('scan --output_hex lists every entry the writer wrote', async () => {
    const r = await runIn(ROOT, [`--file=${file}`, '--command=scan', '--output_hex'])
    expect(r.stderr.toString()).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.toString().split('\n')
    expect(lines.slice(1, 4)).toEqual([`Process ${file}`, 'Sst file format: block-based', 'from [] to []'])
    const got = lines
      .slice(4)
      .filter(Boolean)
      .map((l) => {
        const m = /^'([0-9A-F]*)' seq:\d+, type:(\d+) => ([0-9A-F]*)$/.exec(l)
        expect(m, l).not.toBeNull()
        return { key: m![1].toLowerCase(), type: Number(m![2]), value: m![3].toLowerCase() }
      })
    const expected = readFileSync(join(REAL, `${name}.expected.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; value: string })
    expect(got.map((e) => e.key)).toEqual(expected.map((e) => e.key))
    // blob references (type 17) print the blob index; the expected list holds the blob's value
    const plain = got.map((e, i) => [e, expected[i]] as const).filter(([e]) => e.type !== 17)
    expect(plain.map(([e]) => e.value)).toEqual(plain.map(([, x]) => x.value))
  })

  it('--show_properties prints the newest sst_dump labels', async () => {
    const r = await runIn(ROOT, [`--file=${file}`, '--show_properties', '--command=none'])
    expect(r.code).toBe(0)
    const text = r.stdout.toString()
    for (const label of [
      '# data blocks compression rejected',
      'data uncompressed size',
      'user defined timestamps persisted: true',
      'largest sequence number in file',
      'time stamp of newest key',
      'unique ID: ',
    ]) {
      expect(text).toContain(`\n  ${label}`)
    }
    expect(text).not.toContain('unique ID: N/A')
    expect(text).toMatch(/\n {2}SST file compression algo: (BuiltinV2;[0-9A-F]*;|;;|ZSTD|NoCompression)\n/)
    expect(text).toContain('Raw user collected properties\n------------------------------\n')
    expect(text).toContain('\n  # rocksdb.block.based.table.index.type: 0x00000000\n')
  })

  it('verify --verify_checksum: every block checks out', async () => {
    const r = await runIn(ROOT, [`--file=${file}`, '--command=verify', '--verify_checksum'])
    expect(r.stderr.toString()).toBe('')
    expect(r.stdout.toString().endsWith('The file is ok\n')).toBe(true)
  })
})

describe('corrupt format_version 7 files', () => {
  it('a damaged footer checksum is reported (exit 1, not a valid SST)', async () => {
    const r = await runIn(join(ROOT, 'test/fixtures'), ['--file=bad/fv7-footer-flip.sst'])
    expect(r.code).toBe(1)
    expect(r.stderr.toString()).toMatch(/^bad\/fv7-footer-flip\.sst: Corruption: .*checksum mismatch.*\nbad\/fv7-footer-flip\.sst is not a valid SST file\n$/)
  })

  it('an unknown compression type in a data block is reported by scan and by verify with checksums', async () => {
    const scan = await runIn(join(ROOT, 'test/fixtures'), ['--file=bad/synthetic-custom-0x80.sst', '--command=scan'])
    expect(scan.code).toBe(0)
    expect(scan.stderr.toString()).toContain('bad/synthetic-custom-0x80.sst: Not implemented: Unsupported compression method')
    const strict = await runIn(join(ROOT, 'test/fixtures'), ['--file=bad/synthetic-custom-0x80.sst', '--strict'])
    expect(strict.code).toBe(1)
  })
})

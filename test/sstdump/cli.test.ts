/** The built CLI (`sstkit sst-dump`): a few real spawns; the bulk of the comparisons run in-process. */
import { describe, expect, it } from 'vitest'
import { golden, sstkit } from '../helpers.js'
import { goldenFile } from './harness.js'

const norm = (s: string): string => s.replace(/^options\.env is 0x[0-9a-fA-F]+$/m, 'options.env is 0x0')

describe('sstkit sst-dump', () => {
  it('--help prints sst_dump help (7.8.3 text, then the sstkit additions), not oclif help', () => {
    const r = sstkit(['sst-dump', '--help'])
    expect(r.status).toBe(0)
    expect(r.stdout.startsWith(goldenFile('help', 'out').toString())).toBe(true)
    for (const flag of ['--list_meta_blocks', '--strict', '--block_size=', '--version']) expect(r.stdout).toContain(flag)
  })

  it('scan equals sst_dump 7.8.3 byte for byte; the pointer line keeps its shape', () => {
    const r = sstkit(['sst-dump', '--file=test/fixtures/real/binary-keys.sst', '--command=scan'])
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^options\.env is 0x[0-9a-f]+\n/)
    expect(norm(r.stdout)).toBe(golden('binary-keys', 'scan.txt'))
  })

  it('exit codes: 0 after reporting corruption, 1 with --strict, 1 for a missing file', () => {
    const plain = sstkit(['sst-dump', '--file=test/fixtures/bad/data-flip-none.sst', '--command=verify', '--verify_checksum'])
    expect(plain.status).toBe(0)
    expect(plain.stderr).toContain('is corrupted: Corruption: block checksum mismatch')
    const strict = sstkit(['sst-dump', '--file=test/fixtures/bad/data-flip-none.sst', '--command=verify', '--strict'])
    expect(strict.status).toBe(1)
    const missing = sstkit(['sst-dump', '--file=test/fixtures/real/no-such.sst'])
    expect(missing.status).toBe(1)
    expect(missing.stderr).toBe('NotFound: test/fixtures/real/no-such.sst: No such file or directory\n')
    const unknown = sstkit(['sst-dump', '--file=x.sst', '--bogus'])
    expect(unknown.status).toBe(1)
    expect(unknown.stderr.startsWith("Unrecognized argument '--bogus'\n\nsst_dump --file=")).toBe(true)
  })
})

/** sst_dump's exit codes on corrupt files (0 after reporting corruption) and sstkit's --strict. */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BAD, ROOT } from '../helpers.js'
import { runIn } from './harness.js'

/** Filter damage: check and scan never read the filter (neither does sst_dump); verify --strict reports it (below). */
const FILTER_ONLY = 'filter-flip.sst'
const bad = readdirSync(BAD).filter((n) => n.endsWith('.sst') && n !== FILTER_ONLY)
const FIXTURES = join(ROOT, 'test/fixtures')

describe('--strict', () => {
  it.each(bad)('%s: exit 1 under --strict for check, verify and scan', async (name) => {
    for (const cmd of ['check', 'verify', 'scan']) {
      const plain = await runIn(FIXTURES, [`--file=bad/${name}`, `--command=${cmd}`])
      const strict = await runIn(FIXTURES, [`--file=bad/${name}`, `--command=${cmd}`, '--strict'])
      expect(strict.code, `${cmd}: ${strict.stderr}`).toBe(1)
      // --strict never changes stdout, only adds checks (checksums) and the exit code
      if (plain.code === 1) expect(strict.stdout.toString()).toBe(plain.stdout.toString())
    }
  })

  it('plain sst_dump behaviour: a flipped data byte passes verify without --verify_checksum, exit 0', async () => {
    const r = await runIn(FIXTURES, ['--file=bad/data-flip-none.sst', '--command=verify'])
    expect(r.code).toBe(0)
    expect(r.stdout.toString().endsWith('The file is ok\n')).toBe(true)
    const v = await runIn(FIXTURES, ['--file=bad/data-flip-none.sst', '--command=verify', '--verify_checksum'])
    expect(v.code).toBe(0)
    expect(v.stderr.toString()).toContain('is corrupted: Corruption: block checksum mismatch')
  })

  it('a damaged filter block: verify --strict exits 1, check and scan (which do not read filters) 0', async () => {
    const verify = await runIn(FIXTURES, [`--file=bad/${FILTER_ONLY}`, '--command=verify', '--strict'])
    expect(verify.code).toBe(1)
    expect(verify.stderr.toString()).toMatch(/block checksum mismatch: .* offset 4635 size 261/)
    for (const cmd of ['check', 'scan']) expect((await runIn(FIXTURES, [`--file=bad/${FILTER_ONLY}`, `--command=${cmd}`, '--strict'])).code).toBe(0)
  })

  it('--strict verifies checksums in verify by default', async () => {
    const r = await runIn(FIXTURES, ['--file=bad/data-flip-none.sst', '--command=verify', '--strict'])
    expect(r.code).toBe(1)
    expect(r.stderr.toString()).toBe(
      'bad/data-flip-none.sst is corrupted: Corruption: block checksum mismatch: stored = 4277779097, computed = 3840386851, type = 4  in bad/data-flip-none.sst offset 984 size 1002\n',
    )
  })

  it('clean files still exit 0 under --strict', async () => {
    for (const args of [['--command=verify'], ['--command=scan'], [], ['--show_properties']]) {
      const r = await runIn(ROOT, ['--file=test/fixtures/real/fv5-zstd.sst', '--strict', ...args])
      expect(r.code).toBe(0)
      expect(r.stderr.toString()).toBe('')
    }
  })
})

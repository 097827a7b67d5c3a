/**
 * Lost reports: with several files (and with --json), every file gets its own report, whatever
 * happens inside one of them. The damaged files are real fixtures changed by
 * test/fixtures/make-bad.mjs (`synthetic-*` carry recomputed checksums; see bad/README.md).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BAD, REAL, SST_DUMP, sstkit, type CliResult } from '../helpers.js'
import { spawnSync } from 'node:child_process'

const CLEAN = join(REAL, 'fv5-none.sst')
const bad = (name: string) => join(BAD, name)

function expectNoStack(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at /)
  expect(r.stdout).not.toMatch(/\n\s+at /)
}

interface VerifyJson {
  file: string
  ok: boolean
  problems: { block: string; offset: number | null; message: string }[]
}

describe('verify: an unknown checksum type in the footer (5..255)', () => {
  const file = bad('footer-checksum-type-5.sst')

  it('is a finding of that file; later files are still checked; exit 1 with and without --json', () => {
    const text = sstkit(['verify', file, CLEAN])
    expectNoStack(text)
    expect(text.status).toBe(1)
    expect(text.stderr).toBe('')
    expect(text.stdout).toBe(
      `${file}: CORRUPT (1 problem)\n  footer at offset 9407: unknown checksum type 5 in the footer: no block can be checked\n` +
        `${CLEAN}: OK (13 blocks including the footer, 9 data blocks, 180 entries, 0 range deletions)\n`,
    )
    const json = sstkit(['verify', file, CLEAN, '--json'])
    expect(json.status).toBe(1)
    const j = JSON.parse(json.stdout) as VerifyJson[]
    expect(j.map((r) => [r.file, r.ok])).toEqual([
      [file, false],
      [CLEAN, true],
    ])
    expect(j[0].problems).toEqual([{ block: 'footer', offset: 9407, message: 'unknown checksum type 5 in the footer: no block can be checked' }])
  })

  it('props, layout and scan cannot open it: one line with the footer offset, and the next file is still read', () => {
    for (const cmd of [['props'], ['layout'], ['scan', '--limit', '1']]) {
      const r = sstkit([...cmd, file, CLEAN])
      expectNoStack(r)
      expect(r.status, cmd[0]).toBe(2)
      expect(r.stderr).toBe(`sstkit: ${file}: unknown checksum type 5 in the footer (at offset 9407)\n`)
      expect(r.stdout).toContain(cmd[0] === 'scan' ? "'" : CLEAN)
    }
  })
})

describe('props: a damaged filter block', () => {
  const file = bad('filter-flip.sst')

  it('is a problem of that file, which is still described; other files too; exit 1', () => {
    const r = sstkit(['props', file, CLEAN])
    expectNoStack(r)
    expect(r.status).toBe(1)
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(
      / {2}filter {2,}unreadable\n {2}problem: filter at offset 4635: filter block checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}/,
    )
    expect(r.stdout).toContain('rocksdb.num.entries')
    expect(r.stdout).toContain(`\n${CLEAN}\n`)
  })

  it('--json: both files, the problem on the first', () => {
    const r = sstkit(['props', file, CLEAN, '--json'])
    expect(r.status).toBe(1)
    const j = JSON.parse(r.stdout) as { file: string; filter: unknown; problems?: { block: string; offset: number; message: string }[] }[]
    expect(j.map((x) => x.file)).toEqual([file, CLEAN])
    expect(j[0].filter).toBeNull()
    expect(j[0].problems).toHaveLength(1)
    expect(j[0].problems![0]).toMatchObject({ block: 'filter', offset: 4635 })
    expect(j[0].problems![0].message).toMatch(/^filter block checksum mismatch/)
    expect(j[1].problems).toBeUndefined()
  })
})

describe('layout --summary on a damaged file says why', () => {
  it('one line per problem after the totals, exit 1', () => {
    const r = sstkit(['layout', '--summary', bad('filter-flip.sst'), bad('data-flip-none.sst')])
    expectNoStack(r)
    expect(r.status).toBe(1)
    const problems = r.stdout.split('\n').filter((l) => l.startsWith('problem: '))
    expect(problems).toHaveLength(2)
    expect(problems[0]).toMatch(/^problem: filter \(fullfilter\.rocksdb\.BuiltinBloomFilter\) at offset 4635: filter block checksum mismatch/)
    expect(problems[1]).toMatch(/^problem: data at offset 984: data block checksum mismatch/)
  })
})

describe('restart arrays: never read as empty', () => {
  it('a metaindex with bit 31 set on its restart count is a finding (sst_dump fails it too), not a file without properties', () => {
    const file = bad('synthetic-metaindex-restarts-bit31.sst')
    const { status, j } = verify(file)
    expect(status).toBe(1)
    expect(j.problems).toEqual([{ block: 'table', offset: 9398, message: "metaindex block footer 0x80000001 has bit 31 (a data block's hash index) set" }])
    if (SST_DUMP) {
      const real = spawnSync(SST_DUMP, [`--file=${file}`, '--command=verify'], { encoding: 'utf8' })
      expect(real.status).not.toBe(0)
    }
  })

  it('a metaindex whose restart points are out of order is a finding, not a metaindex without its filter', () => {
    const { status, j } = verify(bad('synthetic-metaindex-restarts-unordered.sst'))
    expect(status).toBe(1)
    expect(j.problems).toEqual([{ block: 'table', offset: 5978, message: 'metaindex block restart point 0 is 44, not 0' }])
    const props = sstkit(['props', bad('synthetic-metaindex-restarts-unordered.sst')])
    expect(props.status).toBe(2)
    expect(props.stderr).toMatch(/metaindex block restart point 0 is 44, not 0 \(at offset 5978\)/)
  })

  it('an index block whose last restart point lies past its entries is a finding', () => {
    const { status, j } = verify(bad('synthetic-index-restart-past-entries.sst'))
    expect(status).toBe(1)
    expect(j.problems).toHaveLength(1)
    expect(j.problems[0]).toMatchObject({ block: 'index block', offset: 8307 })
    expect(j.problems[0].message).toMatch(/index block restart point 8 \(232\) lies past its 132 bytes of entries \(at offset 8471\)/)
  })
})

describe('messages', () => {
  it('a handle pointing outside the file is reported where it is stored, never at the offset it claims', () => {
    const file = bad('synthetic-index-handle-past-eof.sst')
    const { status, j } = verify(file)
    expect(status).toBe(1)
    expect(j.problems).toEqual([
      { block: 'index block', offset: 8307, message: 'data block handle (offset 0, size 16383) points past the end of its region (9407)' },
    ])
    const scan = sstkit(['scan', file])
    expect(scan.status).toBe(1)
    expect(scan.stderr).toBe(`sstkit: ${file}: data block handle (offset 0, size 16383) points past the end of its region (9407)\n`)
  })

  it('a problem repeats no offset it already gives', () => {
    const { j } = verify(bad('data-flip-none.sst'))
    for (const p of j.problems) if (p.offset !== null) expect(p.message).not.toContain(`(at offset ${p.offset})`)
  })
})

function verify(file: string): { status: number; j: VerifyJson } {
  const r = sstkit(['verify', file, '--json'])
  expectNoStack(r)
  expect(r.stderr).toBe('')
  return { status: r.status, j: JSON.parse(r.stdout) as VerifyJson }
}

describe('--json: a file that cannot be opened is an entry of its own, in its place', () => {
  const file = bad('footer-checksum-type-5.sst')
  const error = { code: 'corruption', message: 'unknown checksum type 5 in the footer (at offset 9407)', offset: 9407, exitCode: 2 }

  it('props, layout, recompress: the array holds the error entry, then the next file', () => {
    for (const cmd of [['props'], ['layout'], ['recompress', '--levels', '1', '--dict', 'none']]) {
      const r = sstkit([...cmd, file, CLEAN, '--json'])
      expect(r.status, cmd[0]).toBe(2)
      expect(r.stderr, cmd[0]).toBe(`sstkit: ${file}: unknown checksum type 5 in the footer (at offset 9407)\n`)
      const j = JSON.parse(r.stdout) as { file: string; error?: unknown }[]
      expect(
        j.map((e) => e.file),
        cmd[0],
      ).toEqual([file, CLEAN])
      expect(j[0], cmd[0]).toEqual({ file, error })
      expect(j[1].error, cmd[0]).toBeUndefined()
    }
  })

  it('one file: the entry alone; scan --json: one line of its own among the entries', () => {
    const one = sstkit(['props', file, '--json'])
    expect(one.status).toBe(2)
    expect(JSON.parse(one.stdout)).toEqual({ file, error })
    const scan = sstkit(['scan', file, CLEAN, '--json', '--limit', '2'])
    expect(scan.status).toBe(2)
    const lines = scan.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; error?: unknown })
    expect(lines[0]).toEqual({ file, error })
    expect(lines.slice(1).map((l) => l.file)).toEqual([CLEAN, CLEAN])
  })
})

describe('--json: a path that does not exist keeps its place too (a file compaction deleted meanwhile)', () => {
  const gone = join(BAD, 'no-such-file.sst')
  const error = { code: 'io', message: `cannot read ${gone}: no such file or directory`, exitCode: 2 }

  it('props, layout, verify, recompress: an array of both, the missing one as its error; alone, its entry', () => {
    for (const cmd of [['props'], ['layout'], ['verify'], ['recompress', '--levels', '1', '--dict', 'none']]) {
      const r = sstkit([...cmd, gone, CLEAN, '--json'])
      expect(r.status, cmd[0]).toBe(2)
      expect(r.stderr, cmd[0]).toBe(`sstkit: cannot read ${gone}: no such file or directory\n`)
      const j = JSON.parse(r.stdout) as { file: string; error?: unknown }[]
      expect(
        j.map((e) => e.file),
        cmd[0],
      ).toEqual([gone, CLEAN])
      expect(j[0], cmd[0]).toEqual({ file: gone, error })
      expect(j[1].error, cmd[0]).toBeUndefined()
      const one = sstkit([...cmd, gone, '--json'])
      expect(one.status, cmd[0]).toBe(2)
      expect(JSON.parse(one.stdout), cmd[0]).toEqual({ file: gone, error })
    }
    const scan = sstkit(['scan', gone, CLEAN, '--json', '--limit', '1'])
    expect(scan.status).toBe(2)
    const lines = scan.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; error?: unknown })
    expect(lines).toEqual([{ file: gone, error }, expect.objectContaining({ file: CLEAN })])
  })

  it('browse --json (one file): its error entry, as the other commands print it', () => {
    const r = sstkit(['browse', gone, '--json'])
    expect(r.status).toBe(2)
    expect(r.stderr).toBe(`sstkit: cannot read ${gone}: no such file or directory\n`)
    expect(JSON.parse(r.stdout)).toEqual({ file: gone, error })
  })
})

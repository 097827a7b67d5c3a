/**
 * Every command against the corrupt / unsupported files of test/fixtures/bad/
 * (made by test/fixtures/make-bad.mjs; see its README for the exit-code rule):
 * documented exit code, one clear stderr line naming the problem and its offset,
 * never a stack trace, and verify --json problems with block, offset and message.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CorruptionError, openTable, tableLayout, verifyTable } from '../../src/index.js'
import { BAD, sstkit, type CliResult } from '../helpers.js'

type Cmd = 'props' | 'layout' | 'scan' | 'verify'

interface Problem {
  block: string | RegExp
  offset: number | null
  message: RegExp
}

interface Case {
  file: string
  exit: Record<Cmd, number>
  /** What the one stderr line says (commands that exit 2, and scan). */
  message: RegExp
  /** The "(at offset N)" of that line. */
  offset: number
  /** verify --json: the first problems, in order (when verify exits 1). */
  problems?: Problem[]
  /** scan prints at least this many entries before failing. */
  scanLinesBefore?: number
}

const OPEN_FAILS = { props: 2, layout: 2, scan: 2, verify: 2 }
/** Unopenable for props/layout/scan; verify reports the damage as a finding. */
const META_DAMAGED = { props: 2, layout: 2, scan: 2, verify: 1 }
/** Damage found while reading blocks; props does not read them. */
const BLOCK_DAMAGED = { props: 0, layout: 1, scan: 1, verify: 1 }
/** Damage inside a block's contents whose checksum is valid: layout does not parse data blocks. */
const CONTENT_DAMAGED = { props: 0, layout: 0, scan: 1, verify: 1 }

const CASES: Case[] = [
  // -- cannot be opened as an SST at all
  { file: 'empty.sst', exit: OPEN_FAILS, message: /file is too short to be an SST \(0 bytes/, offset: 0 },
  { file: 'three-bytes.sst', exit: OPEN_FAILS, message: /file is too short to be an SST \(3 bytes/, offset: 0 },
  { file: 'truncated-10.sst', exit: OPEN_FAILS, message: /file is too short to be an SST \(10 bytes/, offset: 0 },
  { file: 'truncated-half.sst', exit: OPEN_FAILS, message: /not an SST file: bad magic number 0x[0-9a-f]{16}/, offset: 4722 },
  { file: 'truncated-1.sst', exit: OPEN_FAILS, message: /bad magic number .*looks truncated by 1 byte/, offset: 9451 },
  { file: 'random-4k.sst', exit: OPEN_FAILS, message: /not an SST file: bad magic number/, offset: 4088 },
  { file: 'bad-magic.sst', exit: OPEN_FAILS, message: /not an SST file: bad magic number 0x77e241b785f4cff7/, offset: 9452 },
  { file: 'fv99.sst', exit: OPEN_FAILS, message: /unknown format_version 99 in footer/, offset: 9448 },
  { file: 'plain-table-magic.sst', exit: OPEN_FAILS, message: /PlainTable format is not supported/, offset: 9452 },
  { file: 'cuckoo-table-magic.sst', exit: OPEN_FAILS, message: /CuckooTable format is not supported/, offset: 9452 },
  { file: 'pebble-magic.sst', exit: OPEN_FAILS, message: /Pebble table format is not supported/, offset: 9452 },

  // -- footer / metaindex / properties / index handle damaged
  {
    file: 'fv7-footer-flip.sst',
    exit: META_DAMAGED,
    message: /footer checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}/,
    offset: 8688,
    problems: [{ block: 'footer', offset: 8683, message: /footer checksum mismatch/ }],
  },
  {
    file: 'metaindex-flip.sst',
    exit: META_DAMAGED,
    message: /metaindex block checksum mismatch/,
    offset: 9369,
    problems: [{ block: 'metaindex', offset: 9369, message: /metaindex block checksum mismatch/ }],
  },
  {
    file: 'properties-flip.sst',
    exit: META_DAMAGED,
    message: /properties block checksum mismatch/,
    offset: 8484,
    problems: [{ block: /^properties/, offset: 8484, message: /properties block checksum mismatch/ }],
  },
  {
    file: 'huge-index-handle.sst',
    exit: META_DAMAGED,
    message: /index block handle claims 1099511627776 bytes, over the \d+-byte block limit/,
    offset: 9407,
    problems: [{ block: 'table', offset: 9407, message: /index block handle claims 1099511627776 bytes/ }],
  },
  {
    file: 'legacy-index-past-eof.sst',
    exit: META_DAMAGED,
    message: /index block handle \(offset 6796, size 135\) points past the end/,
    offset: 5748,
    problems: [{ block: 'table', offset: 5748, message: /index block handle \(offset 6796, size 135\) points past the end/ }],
  },

  // -- damaged blocks, found while reading
  {
    file: 'data-flip-none.sst',
    exit: BLOCK_DAMAGED,
    message: /data block checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} \(kXXH3, block size 1002\)/,
    offset: 984,
    problems: [{ block: 'data block', offset: 984, message: /data block checksum mismatch/ }],
    scanLinesBefore: 20,
  },
  {
    file: 'data-flip-zstd.sst',
    exit: BLOCK_DAMAGED,
    message: /data block checksum mismatch/,
    offset: 0,
    problems: [{ block: 'data block', offset: 0, message: /data block checksum mismatch/ }],
  },
  {
    file: 'index-flip.sst',
    exit: BLOCK_DAMAGED,
    message: /index block checksum mismatch/,
    offset: 8307,
    problems: [{ block: /^index/, offset: 8307, message: /index block checksum mismatch/ }],
  },
  {
    file: 'trailer-checksum-flip.sst',
    exit: BLOCK_DAMAGED,
    message: /data block checksum mismatch/,
    offset: 984,
    problems: [{ block: 'data block', offset: 984, message: /data block checksum mismatch/ }],
    scanLinesBefore: 20,
  },
  {
    file: 'trailer-type-flip.sst',
    exit: BLOCK_DAMAGED,
    message: /data block checksum mismatch/,
    offset: 984,
    problems: [{ block: 'data block', offset: 984, message: /data block checksum mismatch/ }],
    scanLinesBefore: 20,
  },
  {
    file: 'synthetic-xpress.sst',
    exit: BLOCK_DAMAGED,
    message: /data block: unsupported compression type 0x06 \(Xpress\)/,
    offset: 984,
    problems: [{ block: 'data block', offset: 984, message: /unsupported compression type 0x06 \(Xpress\)/ }],
    scanLinesBefore: 20,
  },
  {
    file: 'synthetic-custom-0x80.sst',
    exit: BLOCK_DAMAGED,
    message: /data block: unsupported compression type 0x80/,
    offset: 4064,
    problems: [{ block: 'data block', offset: 4064, message: /unsupported compression type 0x80/ }],
    scanLinesBefore: 1,
  },
  {
    file: 'synthetic-restarts.sst',
    exit: CONTENT_DAMAGED,
    message: /data block claims 268435455 restart points, more than its 1002 bytes can hold/,
    offset: 1982,
    problems: [{ block: 'data block', offset: 984, message: /claims 268435455 restart points/ }],
    scanLinesBefore: 20,
  },
  {
    file: 'synthetic-shared-too-long.sst',
    exit: CONTENT_DAMAGED,
    message: /data block: entry shares 127 key bytes but the previous key has only 17/,
    offset: 1037,
    problems: [{ block: 'data block', offset: 984, message: /entry shares 127 key bytes/ }],
    scanLinesBefore: 20,
  },
]

const ARGS: Record<Cmd, string[]> = { props: ['props'], layout: ['layout'], scan: ['scan'], verify: ['verify'] }

function expectNoStack(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at /)
  expect(r.stdout).not.toMatch(/\n\s+at /)
  expect(r.stderr).not.toMatch(/ModuleLoadError|TypeError|RangeError|ReferenceError|run with --debug/)
}

/** The single stderr line of a failed open / failed scan. */
function expectOneLine(r: CliResult, file: string, c: Case): void {
  const lines = r.stderr.split('\n').filter((l) => l !== '')
  expect(lines, r.stderr).toHaveLength(1)
  expectLine(lines[0], file, c)
}

function expectLine(line: string, file: string, c: Case): void {
  expect(line.startsWith(`sstkit: ${file}: `), line).toBe(true)
  expect(line).toMatch(c.message)
  expect(line).toMatch(new RegExp(`\\(at offset ${c.offset}\\)$`))
}

describe('bad fixtures exist (node test/fixtures/make-bad.mjs)', () => {
  it('has every file the tests name', () => {
    for (const c of CASES) expect(existsSync(join(BAD, c.file)), c.file).toBe(true)
  })
})

const CMDS: Cmd[] = ['props', 'layout', 'scan', 'verify']

/** Files no command can open: one run per command over all of them (each file gets its own line). */
describe('files that cannot be opened as an SST: every command exits 2', () => {
  const unopenable = CASES.filter((c) => c.exit === OPEN_FAILS)

  it.each(CMDS.flatMap((cmd) => [[cmd, false] as const, [cmd, true] as const]))('%s (--json: %s)', (cmd, json) => {
    const files = unopenable.map((c) => join(BAD, c.file))
    const started = Date.now()
    const r = sstkit([...ARGS[cmd], ...files, ...(json ? ['--json'] : [])])
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(r.status, r.stderr).toBe(2)
    expectNoStack(r)
    const lines = r.stderr.split('\n').filter((l) => l !== '')
    expect(lines, r.stderr).toHaveLength(unopenable.length)
    for (const [i, c] of unopenable.entries()) expectLine(lines[i], join(BAD, c.file), c)
    if (!json) expect(r.stdout).toBe('')
  })
})

describe.each(CASES.filter((c) => c.exit !== OPEN_FAILS))('$file', (c) => {
  const file = join(BAD, c.file)

  it.each(CMDS)('%s exits as documented with one clear line', (cmd) => {
    const started = Date.now()
    const r = sstkit([...ARGS[cmd], file])
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(r.status, `${cmd}: ${r.stderr}`).toBe(c.exit[cmd])
    expectNoStack(r)
    if (c.exit[cmd] === 2 || cmd === 'scan') {
      expectOneLine(r, file, c)
    } else {
      // success or a finding reported on stdout: nothing on stderr
      expect(r.stderr).toBe('')
    }
    if (cmd === 'scan' && c.scanLinesBefore) {
      expect(r.stdout.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(c.scanLinesBefore)
    }
    if (cmd === 'verify') {
      // A block in a codec sstkit does not read (Xpress, a custom id) is not damage: NOT SUPPORTED, never CORRUPT.
      const verdict = c.problems?.every((p) => /unsupported compression type/.test(p.message.source)) ? 'NOT SUPPORTED' : 'CORRUPT'
      expect(r.stdout).toMatch(new RegExp(`^${escapeRegExp(file)}: ${verdict} \\(\\d+ problems?\\)`))
    }
    if (cmd === 'layout' && c.exit.layout === 1) {
      // the damaged block is listed with its problem
      expect(r.stdout).toMatch(c.problems![0].message)
    }
  })

  it('verify --json lists the problems with block, offset and message', () => {
    const r = sstkit(['verify', file, '--json'])
    expect(r.status).toBe(1)
    expectNoStack(r)
    expect(r.stderr).toBe('')
    const j = JSON.parse(r.stdout) as { ok: boolean; problems: { block: string; offset: number | null; message: string }[] }
    expect(j.ok).toBe(false)
    expect(j.problems.length).toBeGreaterThanOrEqual(c.problems!.length)
    c.problems!.forEach((want, i) => {
      const got = j.problems[i]
      if (typeof want.block === 'string') expect(got.block).toBe(want.block)
      else expect(got.block).toMatch(want.block)
      expect(got.offset).toBe(want.offset)
      expect(got.message).toMatch(want.message)
    })
  })
})

describe('corruption: details', () => {
  it('verify keeps going after a bad data block', () => {
    const r = sstkit(['verify', join(BAD, 'synthetic-shared-too-long.sst'), '--json'])
    const j = JSON.parse(r.stdout) as { dataBlocks: number; entries: number; problems: unknown[] }
    expect(j.dataBlocks).toBe(9)
    expect(j.problems).toHaveLength(1)
    // block 0 (20 entries) + the entry before the bad one + blocks 2..8
    expect(j.entries).toBeGreaterThan(150)
  })

  it('a file with an unsupported block still opens: props works, layout marks the block', () => {
    const props = sstkit(['props', join(BAD, 'synthetic-xpress.sst'), '--json'])
    expect(props.status).toBe(0)
    const layout = sstkit(['layout', join(BAD, 'synthetic-xpress.sst'), '--json'])
    const j = JSON.parse(layout.stdout) as { blocks: { kind: string; offset: number; compression: string | null; problem?: string }[]; problems: number }
    expect(j.problems).toBe(1)
    const bad = j.blocks.filter((b) => b.problem)
    expect(bad).toHaveLength(1)
    expect(bad[0]).toMatchObject({ kind: 'data', offset: 984, compression: 'Xpress' })
  })

  it('several files: the worst outcome decides the exit code, every file is reported', () => {
    const r = sstkit(['verify', join(BAD, 'data-flip-none.sst'), join(BAD, 'bad-magic.sst')])
    expect(r.status).toBe(2)
    expect(r.stdout).toMatch(/data-flip-none\.sst: CORRUPT/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/bad-magic\.sst: not an SST file/)
  })
})

describe('corruption: library', () => {
  it('openTable refuses a huge index handle quickly, without allocating it', () => {
    globalThis.gc?.()
    const before = process.memoryUsage().rss
    const started = performance.now()
    let err: unknown
    try {
      openTable(join(BAD, 'huge-index-handle.sst'))
    } catch (e) {
      err = e
    }
    expect(performance.now() - started).toBeLessThan(1000)
    expect(err).toBeInstanceOf(CorruptionError)
    expect((err as CorruptionError).message).toMatch(/index block handle claims 1099511627776 bytes/)
    expect((err as CorruptionError).offset).toBe(9407)
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024)
  })

  it('openTable refuses a legacy index handle past the end of the file', () => {
    expect(() => openTable(join(BAD, 'legacy-index-past-eof.sst'))).toThrow(/points past the end/)
  })

  it('a block claiming 2^28 restart points is refused without allocating', () => {
    const t = openTable(join(BAD, 'synthetic-restarts.sst'))
    try {
      const before = process.memoryUsage().rss
      const r = verifyTable(t)
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024)
      expect(r.ok).toBe(false)
      expect(r.problems).toEqual([
        expect.objectContaining({ block: 'data block', offset: 984, message: expect.stringMatching(/claims 268435455 restart points/) }),
      ])
    } finally {
      t.close()
    }
  })

  it('tableLayout lists an Xpress block as a problem and every other block as ok', () => {
    const t = openTable(join(BAD, 'synthetic-xpress.sst'))
    try {
      const l = tableLayout(t)
      const problems = l.blocks.filter((b) => b.problem)
      expect(problems).toHaveLength(1)
      expect(problems[0].problem).toMatch(/unsupported compression type 0x06 \(Xpress\)/)
      expect(l.blocks.filter((b) => b.kind === 'data' && !b.problem)).toHaveLength(8)
    } finally {
      t.close()
    }
  })
})

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

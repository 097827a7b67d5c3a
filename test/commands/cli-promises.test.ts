/**
 * What every per-file command promises at its command line, end to end through the built CLI:
 * conflicting flags are a one-line usage error naming both (exit 2); scan takes a key in its own
 * escaped form or as 0x hex, and says when a range is reversed; names and text read from a file
 * reach no line raw (verify, layout, props, text and JSON); every error names its file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fixturePath, sstkit } from '../helpers.js'
import { metaindexNameDamagedCopy, propertiesEditedCopy } from '../synthetic.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-cli-promises-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const SAMPLE = 'examples/sample.sst'

/** One line on stderr, exit 2, naming both flags. */
function expectConflict(args: string[], a: string, b: string): void {
  const r = sstkit(args)
  expect(r.status, r.stderr).toBe(2)
  expect(r.stdout).toBe('')
  const lines = r.stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^sstkit: /)
  expect(lines[0]).toContain(a)
  expect(lines[0]).toContain(b)
}

describe('conflicting flags: one line naming both, exit 2, in every command', () => {
  it.each([
    [['layout', SAMPLE, '--summary', '--format', 'csv', '--json'], '--json', '--format'],
    [['layout', SAMPLE, '--format', 'markdown', '--json'], '--json', '--format'],
    [['recompress', SAMPLE, '--format', 'csv', '--json'], '--json', '--format'],
    [['check-size', SAMPLE, '--format', 'markdown', '--json'], '--json', '--format'],
    [['scan', SAMPLE, '--format', 'text', '--json'], '--json', '--format'],
    [['advise', SAMPLE, '--format', 'markdown', '--json'], '--json', '--format'],
    [['scan', SAMPLE, '--prefix', 'user:', '--from', 'user:1'], '--from', '--prefix'],
    [['rewrite', SAMPLE, '-o', join(dir, 'out.sst'), '--keep-blocks', '--block-size', '8192'], '--keep-blocks', '--block-size'],
  ])('%j', (args, a, b) => expectConflict(args as string[], a as string, b as string))

  it('--json alone, and --format alone, still work', () => {
    expect(sstkit(['layout', SAMPLE, '--summary', '--json']).status).toBe(0)
    expect(sstkit(['layout', SAMPLE, '--summary', '--format', 'csv']).status).toBe(0)
  })
})

describe('scan --from and --to', () => {
  /** The keys scan prints (the quoted first field of each line). */
  const keys = (args: string[]) => {
    const r = sstkit(['scan', ...args])
    expect(r.status, r.stderr).toBe(0)
    return r.stdout
      .trim()
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => /^('(?:[^'\\]|\\.)*')/.exec(l)?.[1])
  }
  const binary = fixturePath('binary-keys')
  const all = keys([binary])

  it("takes a key copied from scan's own output: escaped, with or without its quotes", () => {
    expect(all.length).toBeGreaterThan(10)
    const key = all.find((k) => k?.includes('\\x'))
    expect(key).toBeDefined()
    const at = all.indexOf(key)
    expect(keys([binary, '--from', key as string, '--limit', '2'])).toEqual(all.slice(at, at + 2))
    expect(keys([binary, '--from', (key as string).slice(1, -1), '--limit', '2'])).toEqual(all.slice(at, at + 2))
  })

  it('takes 0x and hex digits without --input-hex, as browse does', () => {
    const hex = `0x${Buffer.from('user:000100').toString('hex')}`
    expect(keys([SAMPLE, '--from', hex, '--limit', '1'])).toEqual(keys([SAMPLE, '--from', 'user:000100', '--limit', '1']))
    expect(keys([SAMPLE, '--from', hex, '--limit', '1'])[0]).toMatch(/^'user:000\d+'$/)
  })

  it('refuses 0x with something other than hex digits, in one line (exit 2)', () => {
    const r = sstkit(['scan', SAMPLE, '--from', '0xzz'])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe('sstkit: not a hex key: 0xzz')
  })

  it('says so in one line when the range is reversed (exit 2), instead of printing nothing', () => {
    const r = sstkit(['scan', SAMPLE, '--from', 'user:000200', '--to', 'user:000100'])
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toEqual([
      "sstkit: --from 'user:000200' does not sort before --to 'user:000100' (leveldb.BytewiseComparator): the range is empty",
    ])
  })
})

describe('names and text read from a file are escaped everywhere', () => {
  // The first metaindex entry's name with 0x00 0x0a 0x1b in it, pointing one byte off: verify and layout name the block.
  const metaName = metaindexNameDamagedCopy(fixturePath('filter-ribbon'), join(dir, 'synthetic-metaindex-name.sst'))
  const ESCAPED = 'fullfil\\x00\\x0a\\x1b.rocksdb.BuiltinBloomFilter'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the raw bytes that must not appear
  const raw = /[\x00-\x08\x0b-\x1f\x7f]|\\u00[01]/

  it('verify, text and JSON', () => {
    const text = sstkit(['verify', metaName])
    expect(text.status).toBe(1)
    expect(text.stdout).toContain(`meta (${ESCAPED}) at offset`)
    expect(text.stdout).not.toMatch(raw)
    expect(text.stdout.split('\n').filter((l) => l.includes('fullfil'))).toHaveLength(1)
    const json = sstkit(['verify', '--json', metaName])
    expect(json.status).toBe(1)
    expect(json.stdout).not.toMatch(raw)
    expect(JSON.parse(json.stdout).problems[0].block).toBe(`meta (${ESCAPED})`)
  })

  it('layout, text and JSON', () => {
    const json = sstkit(['layout', '--json', metaName])
    expect(json.status).toBe(1)
    expect(json.stdout).not.toMatch(raw)
    expect((JSON.parse(json.stdout).blocks as { name: string }[]).map((b) => b.name)).toContain(ESCAPED)
    const text = sstkit(['layout', '--wide', metaName])
    expect(text.stdout).not.toMatch(raw)
  })

  it('props, text and JSON: a property value with control bytes', () => {
    const edited = propertiesEditedCopy(fixturePath('fv5-none'), join(dir, 'synthetic-property-text.sst'), 'default', Buffer.from('de\x00\x0a\x1blt', 'latin1'))
    const text = sstkit(['props', edited])
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/rocksdb\.column\.family\.name +de\\x00\\x0a\\x1blt$/m)
    expect(text.stdout).not.toMatch(raw)
    const json = sstkit(['props', '--json', edited])
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control byte in the JSON text itself
    expect(json.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/)
    // JSON carries the exact bytes in its own escapes
    expect(json.stdout).toContain('"rocksdb.column.family.name": "de\\u0000\\n\\u001blt"')
    expect(JSON.parse(json.stdout).properties['rocksdb.column.family.name']).toBe('de\x00\x0a\x1blt')
  })
})

describe('every error names its file', () => {
  it('advise on a plain file that is not an SST', () => {
    const bad = join(dir, 'bad.sst')
    writeFileSync(bad, 'not a table, just some text that is long enough to hold a footer '.repeat(4))
    const r = sstkit(['advise', bad])
    expect(r.status).toBe(2)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(new RegExp(`^sstkit: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not an SST file`))
  })
})

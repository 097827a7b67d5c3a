/**
 * `advise` on databases as they are found: conflicting flags, OPTIONS files as RocksDB reads them,
 * tables without properties, LevelDB, names of any bytes, live files left out, blob files. Every
 * database here was written by a real writer (test/fixtures/found/README.md).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Advice } from '../../src/advise/model.js'
import { ROOT, sstkit } from '../helpers.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-advise-found-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const EXAMPLE = join(ROOT, 'examples/db')

describe('conflicting flags are one usage line, exit 2', () => {
  it.each([
    [['--json', '--format', 'markdown'], '--json cannot be used together with --format'],
    [['--objective', 'size', '--max-bytes', '80%'], '--max-bytes cannot be used together with --objective'],
    [['--objective', 'speed', '--min-decompress-mbps', '500'], '--min-decompress-mbps cannot be used together with --objective'],
    [['--sample', '5%', '--time-budget', '10s'], '--time-budget cannot be used together with --sample'],
    [['--sample', '5%', '--precision', '1%'], '--precision cannot be used together with --sample'],
    [['--merge', '--seed', '3'], '--seed cannot be used together with --merge'],
    [['--merge', '--objective', 'size'], '--objective cannot be used together with --merge'],
    [['--wide', '--format', 'markdown'], '--wide cannot be used together with --format markdown'],
    [['--bytes', '--format', 'markdown'], '--bytes cannot be used together with --format markdown'],
    [['--bytes', '--json'], '--json cannot be used together with --bytes'],
  ])('%j', (args, message) => {
    const r = sstkit(['advise', EXAMPLE, ...args])
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(message)
  })

  it('a default beside its conflicting flag is no conflict', () => {
    const r = sstkit(['advise', EXAMPLE, '--max-bytes', '90%', '--sample', '50%', '--types', 'lz4', '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})

const FOUND = join(ROOT, 'test/fixtures/found')
/** A small matrix: these tests are about what advise reads and says, not about the settings. */
const FEW = ['--types', 'lz4,zstd', '--levels', 'default', '--dict', 'none']

function advise(args: string[]) {
  return sstkit(['advise', ...args, ...FEW])
}

describe('OPTIONS files as RocksDB reads them', () => {
  it('a double with a decimal comma (written under de_DE) does not stop the advice: read as its writer reads it, and noted', () => {
    const options = readFileSync(join(FOUND, 'decimal-comma/OPTIONS-000007'), 'utf8').split('\n')
    const line = options.findIndex((l) => l.trim() === 'max_bytes_for_level_multiplier=10,000000') + 1
    expect(line).toBeGreaterThan(0)
    const r = advise([join(FOUND, 'decimal-comma'), '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.columnFamilies.map((c) => c.levels.map((l) => l.level))).toEqual([[0, 1]])
    expect(a.notes).toContain(
      `${join(FOUND, 'decimal-comma/OPTIONS-000007')}:${line}: max_bytes_for_level_multiplier=10,000000 is written with a decimal comma (by a writer under a locale that writes one): read as 10`,
    )
  })

  it('a value advise needs that cannot be read is one line citing the value’s own line, exit 2; one it does not need is a note', () => {
    const copy = join(tmp, 'bad-options')
    cpSync(join(FOUND, 'decimal-comma'), copy, { recursive: true })
    const path = join(copy, 'OPTIONS-000007')
    const text = readFileSync(path, 'utf8')
    const lineOf = (key: string) => text.split('\n').findIndex((l) => l.trim().startsWith(`${key}=`)) + 1
    writeFileSync(path, text.replace(/num_levels=7/, 'num_levels=seven'))
    const bad = advise([copy])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toBe(`sstkit: ${path}:${lineOf('num_levels')}: num_levels: 'seven' is not a number\n`)
    const edited = text.replace(/block_restart_interval=16/, 'block_restart_interval=sixteen').replace('[DBOptions]', '[Experimental "x"]\n  a=b\n[DBOptions]')
    writeFileSync(path, edited)
    const experimental = edited.split('\n').indexOf('[Experimental "x"]') + 1
    const r = advise([copy, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const notes = (JSON.parse(r.stdout) as Advice).notes
    expect(notes).toContain(`${path}:${experimental}: section [Experimental "x"] is not one sstkit knows: skipped`)
    expect(notes.join('\n')).toMatch(/:\d+: block_restart_interval: 'sixteen' is not a number; advise does not use it: RocksDB's default 16 stands in/)
  })
})

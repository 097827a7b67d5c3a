/**
 * `rewrite` and damaged inputs (issue 14): any input `verify` flags is refused (exit 1, one line
 * naming verify's first problem and --salvage, nothing left behind); `--salvage` writes the data
 * blocks that still read and says what it dropped, or refuses when nothing can be read. The
 * damaged files are real fixtures damaged by test/fixtures/make-bad.mjs (test/fixtures/bad).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BlockIter } from '../../src/format/block.js'
import { defaultRewriteOptions, openTable, RewriteError, rewriteFile } from '../../src/index.js'
import { LDB } from '../db/ldb.js'
import { BAD, fixturePath, sstkit, toolPresent } from '../helpers.js'
import { entriesOf, names, scratchSpace } from './scratch.js'

const { scratch } = scratchSpace('sstkit-salvage-')

/** Entries of the intact `file` outside its data block at `offset`, and how many that block holds. */
function entriesWithoutBlock(file: string, offset: number): { rest: string[]; dropped: number } {
  const all = entriesOf(file)
  const t = openTable(file)
  try {
    let before = 0
    for (const ref of t.dataBlocks()) {
      const it = new BlockIter(t.readBlock(ref.handle, 'data block', true), ref.handle.offset, 'data block', t.dataRestartInterval)
      let count = 0
      for (it.seekToFirst(); it.valid; it.next()) count++
      if (ref.handle.offset === offset) return { rest: [...all.slice(0, before), ...all.slice(before + count)], dropped: count }
      before += count
    }
    throw new Error(`no data block at offset ${offset} in ${file}`)
  } finally {
    t.close()
  }
}

const notesOf = (stderr: string) => stderr.split('\n').filter((l) => l.includes(': note: salvage:'))

describe('rewrite refuses a damaged input', () => {
  it.each([
    ['data-flip-zstd', 'data block at offset 0: data block checksum mismatch'],
    ['trailer-checksum-flip', 'data block at offset 984: data block checksum mismatch'],
    ['index-flip', 'index at offset 8307: index block checksum mismatch'],
    ['huge-index-handle', 'index block handle claims 1099511627776 bytes'],
  ])('%s: exit 1, one line with verify first problem and --salvage, nothing written', (name, first) => {
    const d = scratch()
    const r = sstkit(['rewrite', join(BAD, `${name}.sst`), '-o', join(d, 'out.sst')])
    expect(r.status).toBe(1)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`${name}.sst: refusing to rewrite a damaged input: verify finds`)
    expect(lines[0]).toContain(first)
    expect(lines[0]).toMatch(/; --salvage writes what can still be read$/)
    expect(names(d)).toEqual([])
  })

  it('the library refuses it too: a corruption RewriteError, no file', () => {
    const d = scratch()
    let err: unknown
    try {
      rewriteFile(join(BAD, 'data-flip-zstd.sst'), join(d, 'out.sst'), defaultRewriteOptions())
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(RewriteError)
    expect((err as RewriteError).code).toBe('corruption')
    expect(names(d)).toEqual([])
  })
})

describe('rewrite --salvage', () => {
  it.each([
    ['data-flip-zstd', 'fv5-zstd', 0],
    ['trailer-checksum-flip', 'fv5-none', 984],
  ])('%s: the blocks that read are kept, the damaged one dropped and said; the output verifies', (name, original, offset) => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const r = sstkit(['rewrite', join(BAD, `${name}.sst`), '-o', out, '--salvage'])
    // The damage is a finding (exit 1) although what reads was written.
    expect(r.status).toBe(1)
    const notes = notesOf(r.stderr)
    expect(notes[0]).toMatch(new RegExp(`note: salvage: the input has 1 problem \\(first: data block at offset ${offset}: data block checksum mismatch`))
    expect(notes[1]).toMatch(
      new RegExp(`note: salvage: dropped 1 damaged data block with their entries \\(first at offset ${offset}: data block checksum mismatch`),
    )
    expect(notes).toHaveLength(2)
    // What is left is exactly the intact original without that block's entries.
    const want = entriesWithoutBlock(fixturePath(original), offset)
    expect(want.dropped).toBeGreaterThan(0)
    expect(entriesOf(out)).toEqual(want.rest)
    expect(sstkit(['verify', out]).status).toBe(0)
    expect(names(d)).toEqual(['out.sst'])
  })

  it.each([
    ['index-flip', 'cannot salvage: no entry of the input could be read'],
    ['metaindex-flip', 'cannot salvage: metaindex block checksum mismatch'],
    ['properties-flip', 'cannot salvage: properties block checksum mismatch'],
  ])('%s: nothing to salvage: exit 1, one line, nothing written', (name, message) => {
    const d = scratch()
    const r = sstkit(['rewrite', join(BAD, `${name}.sst`), '-o', join(d, 'out.sst'), '--salvage'])
    expect(r.status).toBe(1)
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.includes(': note:'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(message)
    expect(names(d)).toEqual([])
  })

  it('a damaged partitioned filter (a copy of index-partitioned with one byte of the filter index flipped here): refused; salvaged without the filter', () => {
    const d = scratch()
    const bytes = readFileSync(fixturePath('index-partitioned'))
    const t = openTable(fixturePath('index-partitioned'))
    const filter = t.metaindexEntries.find((e) => e.name.startsWith('partitionedfilter.'))!
    t.close()
    const damaged = join(d, 'damaged-partitioned-filter.sst')
    bytes[filter.handle.offset + 3] ^= 0x01
    writeFileSync(damaged, bytes)
    const refused = sstkit(['rewrite', damaged, '-o', join(d, 'out.sst')])
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain(`refusing to rewrite a damaged input: verify finds 1 problem (first: filter`)
    expect(names(d)).toEqual(['damaged-partitioned-filter.sst'])
    const r = sstkit(['rewrite', damaged, '-o', join(d, 'out.sst'), '--salvage'])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('partitioned (or obsolete block-based) filter')
    expect(entriesOf(join(d, 'out.sst'))).toEqual(entriesOf(fixturePath('index-partitioned')))
    expect(sstkit(['verify', join(d, 'out.sst')]).status).toBe(0)
  })

  it('an intact input: --salvage changes nothing and says nothing about salvage', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const r = sstkit(['rewrite', fixturePath('fv5-zstd'), '-o', out, '--salvage'])
    expect(r.status).toBe(0)
    expect(notesOf(r.stderr)).toEqual([])
    expect(entriesOf(out)).toEqual(entriesOf(fixturePath('fv5-zstd')))
  })

  it.runIf(toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools'))('with --ingestible: what survives is ingested by ldb 7.8.3', () => {
    const d = scratch()
    const out = join(d, 'out.sst')
    const r = sstkit(['rewrite', join(BAD, 'data-flip-zstd.sst'), '-o', out, '--salvage', '--ingestible'])
    expect(r.status).toBe(1)
    expect(notesOf(r.stderr)).toHaveLength(2)
    const db = join(d, 'db')
    const ingest = spawnSync(LDB!, [`--db=${db}`, '--create_if_missing', 'ingest_extern_sst', out], { encoding: 'utf8' })
    expect(ingest.stdout + ingest.stderr).toContain('external SST files ingested')
    const scan = spawnSync(LDB!, [`--db=${db}`, 'scan', '--hex'], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
    expect(scan.length).toBe(entriesWithoutBlock(fixturePath('fv5-zstd'), 0).rest.length)
  })
})

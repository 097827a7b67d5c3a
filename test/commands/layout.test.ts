/** `layout` end to end: the streamed JSON and table against the library's whole layout, widths, block counts. */
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openTable, tableLayout } from '../../src/reader.js'
import { BAD, fixturePath, REAL, ROOT, sstkit } from '../helpers.js'

const realFiles = readdirSync(REAL)
  .filter((n) => n.endsWith('.sst'))
  .sort()
  .map((n) => join(REAL, n))

/** Display width of a line of the box table: box characters and ASCII are one column each. */
const width = (line: string) => [...line].length

describe('layout --json', () => {
  it('streams the same blocks and totals as the library computes at once, as JSON.stringify(_, null, 2) prints them', () => {
    for (const file of [fixturePath('index-partitioned'), fixturePath('zstd-dict-trained'), fixturePath('entry-types'), join(BAD, 'data-flip-none.sst')]) {
      const r = sstkit(['layout', file, '--json'])
      const j = JSON.parse(r.stdout)
      expect(r.stdout).toBe(`${JSON.stringify(j, null, 2)}\n`)
      const table = openTable(file, { verifyChecksums: true })
      try {
        const whole = tableLayout(table, { decompress: false })
        expect(j.blocks, file).toEqual(JSON.parse(JSON.stringify(whole.blocks)))
        expect(j.totals, file).toEqual(whole.totals)
        expect(j.problems).toBe(whole.blocks.filter((b) => b.problem).length)
      } finally {
        table.close()
      }
    }
  })

  it('gives an array for several files, each complete', () => {
    const r = sstkit(['layout', 'examples/sample.sst', fixturePath('fv5-zlib'), '--json'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toBe(`${JSON.stringify(JSON.parse(r.stdout), null, 2)}\n`)
    const j = JSON.parse(r.stdout)
    expect(j.map((x: { file: string }) => x.file)).toEqual(['examples/sample.sst', fixturePath('fv5-zlib')])
    expect(j[0].blocks.length).toBe(48)
  })

  it('--summary lists only the blocks with problems', () => {
    expect(JSON.parse(sstkit(['layout', 'examples/sample.sst', '--json', '--summary']).stdout).blocks).toEqual([])
    const bad = sstkit(['layout', join(BAD, 'data-flip-none.sst'), '--json', '--summary'])
    expect(bad.status).toBe(1)
    expect(JSON.parse(bad.stdout).blocks.map((b: { checksum: string }) => b.checksum)).toEqual(['mismatch'])
  })
})

describe('layout table', () => {
  it('fits 100 columns on every real fixture, in human sizes; --wide adds the names', () => {
    // One run over the directory: every fixture's blocks and totals table. The path is relative (the CLI runs
    // in the checkout), so each file's heading line is as long wherever the checkout lies.
    const all = sstkit(['layout', relative(ROOT, REAL)])
    expect(all.status, all.stderr).toBe(0)
    expect(all.stdout.split('\n').filter((l) => l.endsWith('.sst:')).length).toBe(realFiles.length)
    const wider = all.stdout.split('\n').filter((l) => width(l) > 100)
    expect(wider).toEqual([])
    const t = sstkit(['layout', 'examples/sample.sst']).stdout
    expect(t).toMatch(/│ data\s+│\s+0 │ 1\.30 KiB │ ZSTD\s+│\s+3\.99 KiB │\s+3\.08 │ ok\s+│/)
    expect(t).not.toMatch(/Name/)
    const wide = sstkit(['layout', 'examples/sample.sst', '--wide']).stdout
    expect(wide).toMatch(/│ filter\s+│ fullfilter\.rocksdb\.BuiltinBloomFilter │/)
  })

  it('--bytes and CSV give exact bytes, CSV every column', () => {
    expect(sstkit(['layout', 'examples/sample.sst', '--bytes']).stdout).toMatch(/│ data\s+│\s+0 │\s+1327 │ ZSTD\s+│\s+4082 │/)
    const csv = sstkit(['layout', 'examples/sample.sst', '--format', 'csv']).stdout.split('\n')
    expect(csv[0]).toBe('Kind,Name,Offset,On disk,Compression,Uncompressed,Ratio,Checksum,Problem')
    expect(csv[1]).toBe('data,,0,1327,ZSTD,4082,3.08,ok,')
  })

  it('prints a problem on a line under its block', () => {
    const r = sstkit(['layout', join(BAD, 'data-flip-none.sst')])
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(
      /│ data\s+│\s+984 │\s+1007 B │ NoCompression │\s+1002 B │\s+1\.00 │ MISMATCH\s+│\n│ {3}problem: data block checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\s+│\n/,
    )
  })
})

describe('block counts', () => {
  it('layout and verify count the same blocks on every real fixture, and both say the footer is included', () => {
    // The directory's blob files come after its tables (docs/blob-files.md): blocks are the tables'.
    const tables = (all: any[]) => all.filter((x) => x.kind !== 'blob')
    const layouts = tables(JSON.parse(sstkit(['layout', REAL, '--json', '--summary']).stdout))
    const verifies = tables(JSON.parse(sstkit(['verify', REAL, '--json']).stdout))
    expect(layouts.length).toBe(realFiles.length)
    expect(verifies.map((v: { file: string }) => v.file)).toEqual(layouts.map((l: { file: string }) => l.file))
    for (const [i, layout] of layouts.entries()) {
      expect(verifies[i].blocksChecked, layout.file).toBe(layout.blockCount)
      expect(layout.blockCount).toBe(layout.totals.reduce((a: number, t: { kind: string; count: number }) => a + (t.kind === 'gap' ? 0 : t.count), 0))
    }
    expect(sstkit(['layout', 'examples/sample.sst', '--summary']).stdout).toMatch(/^48 blocks including the footer$/m)
    expect(sstkit(['verify', 'examples/sample.sst']).stdout).toMatch(/OK \(48 blocks including the footer, 43 data blocks/)
  })
})

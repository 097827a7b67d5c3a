/** advise's block size in words, options and a chart (report/advise-block-size.ts). */
import { describe, expect, it } from 'vitest'
import type { BlockSizeAdvice, BlockSizeCandidate } from '../../src/advise/block-size.js'
import {
  blockSizeChartSvg,
  blockSizeHtml,
  blockSizeModel,
  blockSizeOptions,
  blockSizeOptionsDiff,
  blockSizeSummaryLine,
} from '../../src/report/advise-block-size.js'
import { optionsCode } from '../../src/report/advise-format.js'
import { renderAdviceText } from '../../src/report/advise.js'
import { renderAdviceMarkdown } from '../../src/report/advise-markdown.js'
import { renderAdviceHtml } from '../../src/report/advise-html.js'
import { sampleAdvice } from './advice-sample.js'
import { renderTable } from '../../src/report/table.js'

const cand = (blockSize: number, estimate: number, half: number, change: number): BlockSizeCandidate => ({
  blockSize,
  bytes: { estimate, low: estimate - half, high: estimate + half },
  change,
  indexBytes: 100_000 / (blockSize / 4096),
  dataBlocks: 1000,
  read: { bytesReadPerLookup: blockSize / 3, bytesDecompressedPerLookup: blockSize, decompressMBps: 800, readCores: null },
})
const advice: BlockSizeAdvice = {
  columnFamily: 'users',
  today: 4096,
  compression: 'advised',
  candidates: [cand(4096, 10e6, 0, 0), cand(16384, 9e6, 1e5, -0.1), cand(65536, 8.9e6, 1e5, -0.11)],
  recommended: 16384,
  reason: '16KiB: -10.0% bytes against 4KiB, the smallest block size within 2% of the smallest bytes (64KiB: -11.0%)',
  files: { evaluated: 4, of: 9 },
  levels: [],
  notes: [{ code: 'block-size-files-sampled', recut: 4, files: 9, fileShare: null }],
}

describe('advise block size report', () => {
  it('the option to set in its table section as a change against today’s; nothing when today’s is kept', () => {
    expect(blockSizeOptions(advice)).toEqual({ block_size: '16384' })
    expect(blockSizeOptionsDiff(advice)).toBe('[TableOptions/BlockBasedTable "users"]\n-  block_size=4096\n+  block_size=16384')
    expect(blockSizeOptionsDiff({ ...advice, recommended: null })).toBe('')
    expect(blockSizeOptions({ ...advice, recommended: null })).toEqual({})
  })

  it('the section header escapes the name as RocksDB’s EscapeOptionString does, as the CFOptions header does', () => {
    const name = 'a:b#c\\d\ne'
    const diff = blockSizeOptionsDiff({ ...advice, columnFamily: name })
    expect(diff.split('\n')[0]).toBe('[TableOptions/BlockBasedTable "a\\:b\\#c\\\\d\\ne"]')
    // Both sections of the column family's change, the same escaping.
    const cf = {
      name,
      optionsChange: [{ key: 'compression', today: 'kSnappyCompression', advised: 'kLZ4Compression' }],
      blockSize: { ...advice, columnFamily: name },
    } as unknown as Parameters<typeof optionsCode>[0]
    const lines = optionsCode(cf).code.split('\n')
    expect(lines).toEqual([
      '[CFOptions "a\\:b\\#c\\\\d\\ne"]',
      '-  compression=kSnappyCompression',
      '+  compression=kLZ4Compression',
      '[TableOptions/BlockBasedTable "a\\:b\\#c\\\\d\\ne"]',
      '-  block_size=4096',
      '+  block_size=16384',
    ])
    // Only block_size changes: its section alone; nothing changes: nothing.
    expect(optionsCode({ ...cf, optionsChange: [] }).code.split('\n')[0]).toBe('[TableOptions/BlockBasedTable "a\\:b\\#c\\\\d\\ne"]')
    expect(optionsCode({ ...cf, optionsChange: [], blockSize: { ...advice, recommended: null } }).code).toBe('')
  })

  it('one row per candidate: today and the advised one marked, intervals, the read side; a line with the option and why', () => {
    const rows = blockSizeModel(advice).rows
    expect(rows.map((r) => r[0])).toEqual(['4KiB', '16KiB', '64KiB'])
    expect(rows[0].at(-1)).toBe('today')
    expect(rows[1].at(-1)).toBe('recommended')
    expect(rows[1].slice(1, 6)).toEqual(['8.58 MiB ±1.1%', '-10.0%', '24.4 KiB', '5.33 KiB', '16.0 KiB'])
    // Read cores only where the LOG measured misses.
    expect(blockSizeModel(advice).columns.map((c) => c.header)).not.toContain('Read cores')
    const measured = { ...advice, candidates: advice.candidates.map((c) => ({ ...c, read: { ...c.read, readCores: 0.01 } })) }
    expect(blockSizeModel(measured).columns.map((c) => c.header)).toContain('Read cores')
    expect(renderTable(blockSizeModel(advice, true), 'table', { width: 100 })).toContain('9000000 ±1.1%')
    expect(blockSizeSummaryLine(advice)).toBe(
      `column family "users": 4 of 9 table files re-cut, each level under the compression advised for it: block_size=16384 (today 4096): ${advice.reason}`,
    )
    expect(blockSizeSummaryLine({ ...advice, recommended: null, reason: 'keep 4KiB: no block size is significantly smaller' })).toMatch(
      /: block_size stays 4096: keep 4KiB: no block size is significantly smaller$/,
    )
  })

  it('an SVG chart of bytes against block size, with interval whiskers, inside an HTML section', () => {
    const svg = blockSizeChartSvg(advice)
    expect(svg.startsWith('<svg')).toBe(true)
    expect(svg.match(/<rect /g)).toHaveLength(3)
    // Whiskers only where there is an interval (not today's exact 4 KiB).
    expect(svg.match(/<line /g)).toHaveLength(1 + 2)
    expect(svg).toContain('4KiB (today)')
    const html = blockSizeHtml(advice)
    expect(html).toContain('<h3>Block size: users</h3>')
    expect(html).toContain('<tr class="recommended"><td>16KiB</td>')
  })

  describe('in the text, Markdown and HTML reports', () => {
    // The sample advice with an OPTIONS file (a change per column family) and the block size advised for its first column family.
    const withBlockSize = () => {
      const a = sampleAdvice()
      for (const cf of a.columnFamilies) cf.optionsChange = []
      a.columnFamilies[0].blockSize = { ...advice, columnFamily: a.columnFamilies[0].name }
      return a
    }
    const name = sampleAdvice().columnFamilies[0].name

    it('text: a section per column family with its table, within 100 columns; the option as a diff of its table section', () => {
      for (const opts of [{}, { bytes: true }]) {
        const text = renderAdviceText(withBlockSize(), opts)
        const section = text.indexOf('\nBlock size per column family (block_size)\n')
        const options = text.indexOf('\nRocksDB options to set\n')
        expect(section).toBeGreaterThan(text.indexOf('\nSampling\n'))
        expect(options).toBeGreaterThan(section)
        expect(
          text
            .slice(0, options)
            .split('\n')
            .filter((l) => [...l].length > 100),
        ).toEqual([])
        expect(text.slice(section)).toContain(`column family "${name}": 4 of 9 table files re-cut`)
        expect(text.slice(options)).toContain(`[TableOptions/BlockBasedTable "${name}"]\n-  block_size=4096\n+  block_size=16384\n`)
        expect(text.slice(options)).toContain("replace these lines in today's section (RocksDB keeps the last")
      }
      // Today's kept: the section says so, and there is nothing to change.
      const kept = withBlockSize()
      kept.columnFamilies[0].blockSize!.recommended = null
      const text = renderAdviceText(kept)
      expect(text).toContain('block_size stays 4096')
      expect(text).not.toContain('TableOptions/BlockBasedTable')
    })

    it('Markdown: the section with a well-formed table, the option in the diff block', () => {
      const md = renderAdviceMarkdown(withBlockSize())
      const at = md.indexOf('\n### Block size per column family (block_size)\n')
      expect(at).toBeGreaterThan(0)
      const header = md
        .slice(at)
        .split('\n')
        .findIndex((l) => l.startsWith('| Block size'))
      const after = md.slice(at).split('\n').slice(header)
      const rows = after.slice(
        0,
        after.findIndex((l) => !l.startsWith('|')),
      )
      expect(rows).toHaveLength(2 + advice.candidates.length)
      for (const r of rows) expect(r.split(/(?<!\\)\|/).length).toBe(rows[0].split(/(?<!\\)\|/).length)
      expect(md).toContain(`\`\`\`diff\n[TableOptions/BlockBasedTable "${name}"]\n-  block_size=4096\n+  block_size=16384\n\`\`\``)
    })

    it('HTML: the chart in the column family’s section, the option in its options', () => {
      const html = renderAdviceHtml(withBlockSize())
      expect(html).toContain('<section class="block-size">')
      expect(html).toContain('[TableOptions/BlockBasedTable &quot;')
    })
  })
})

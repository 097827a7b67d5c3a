/** advise's block size in words, options and a chart (report/advise-block-size.ts). */
import { describe, expect, it } from 'vitest'
import type { BlockSizeAdvice, BlockSizeCandidate } from '../../src/advise/block-size.js'
import {
  blockSizeChartSvg,
  blockSizeHtml,
  blockSizeLines,
  blockSizeOptions,
  blockSizeOptionsDiff,
  blockSizeOptionsText,
} from '../../src/report/advise-block-size.js'

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
  notes: ['4 of 9 table files re-cut within the time budget'],
}

describe('advise block size report', () => {
  it('the option to set in its table section, with today’s value; nothing when today’s is kept', () => {
    expect(blockSizeOptions(advice)).toEqual({ block_size: '16384' })
    expect(blockSizeOptionsText(advice).split('\n')).toEqual([
      '[TableOptions/BlockBasedTable "users"]',
      '  block_size=16384',
      `  # was block_size=4096: ${advice.reason}`,
    ])
    expect(blockSizeOptionsDiff(advice)).toBe('[TableOptions/BlockBasedTable "users"]\n-  block_size=4096\n+  block_size=16384')
    expect(blockSizeOptionsDiff({ ...advice, recommended: null })).toBe('')
    expect(blockSizeOptions({ ...advice, recommended: null })).toEqual({})
    expect(blockSizeOptionsText({ ...advice, recommended: null })).toBe('')
  })

  it('one line per candidate: today and the advised one marked, intervals, the read side', () => {
    const lines = blockSizeLines(advice)
    expect(lines[0]).toContain('column family "users"')
    expect(lines[0]).toContain('4 of 9 files re-cut')
    expect(lines[1]).toMatch(/^ {2}= +4KiB .*\(today\)$/)
    expect(lines[2]).toMatch(/^ {2}→ +16KiB +8\.58 MiB ±1\.1% +-10\.0%/)
    expect(lines[2]).toContain('decompresses 16.0 KiB a lookup')
    expect(lines.at(-2)).toBe(`  → ${advice.reason}`)
    expect(lines.at(-1)).toBe('  note: 4 of 9 table files re-cut within the time budget')
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
})

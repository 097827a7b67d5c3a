/**
 * cli-table3's truncation, linear (src/report/table-truncate.ts): the same strings as cli-table3's
 * own on every kind of cell an sstkit table holds (several lines, characters of two columns or
 * none, the symbols of advise's cells) at every width, and installed where tables are rendered.
 */
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { type CliTableUtils, truncateCell } from '../../src/report/table-truncate.js'

// A copy of the module as cli-table3 ships it, unpatched: loaded by path outside the module cache.
const require = createRequire(import.meta.url)
const path = require.resolve('cli-table3/src/utils.js')
const cached = require.cache[path]
delete require.cache[path]
const pristine = require(path) as CliTableUtils
if (cached) require.cache[path] = cached
else delete require.cache[path]

/** A deterministic generator of cells: words, line breaks, wide, zero-width and symbol characters. */
function cells(seed: number, count: number): string[] {
  let s = seed >>> 0
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s
  }
  const pieces = ['zstd', ' ', '3', '\n', '→ ', '±0.1%', '█', '░', '…', '漢字', 'é', 'e\u0301', '\u200b', 'smallest within 1.66x', '-18.1% (-18.1..-18.0)', '']
  return Array.from({ length: count }, () => {
    let cell = ''
    const n = next() % 24
    for (let i = 0; i < n; i++) cell += pieces[next() % pieces.length]
    return cell
  })
}

describe("cli-table3's truncation without its quadratic step", () => {
  it('gives what cli-table3 gives, for every cell and width, with the default and another mark', () => {
    let compared = 0
    for (const cell of cells(7, 200))
      for (let width = -1; width <= 30; width++)
        for (const mark of [undefined, '..']) {
          expect(truncateCell(cell, width, mark, pristine.strlen, pristine.truncate), JSON.stringify({ cell, width, mark })).toBe(
            pristine.truncate(cell, width, mark),
          )
          compared++
        }
    expect(compared).toBe(200 * 32 * 2)
  })

  it('leaves a cell with escape sequences to cli-table3', () => {
    const colored = '\x1b[36mzstd 3\x1b[39m\n→ snappy'
    const seen: unknown[] = []
    const original = (str: string, n: number, mark?: string) => {
      seen.push([str, n, mark])
      return pristine.truncate(str, n, mark)
    }
    expect(truncateCell(colored, 4, undefined, pristine.strlen, original)).toBe(pristine.truncate(colored, 4))
    expect(seen).toEqual([[colored, 4, undefined]])
  })

  it('is linear where cli-table3 is quadratic: a cell of 400 lines of 40 columns', () => {
    const tall = Array.from({ length: 400 }, (_, i) => `→ line ${i} ${'x'.repeat(30)}`).join('\n')
    let calls = 0
    const counting = (s: string) => {
      calls++
      return pristine.strlen(s)
    }
    expect(truncateCell(tall, 10, undefined, counting, pristine.truncate)).toBe('→ line 0 …')
    // Halving: a few measures of the string, where cli-table3 measures once per character dropped (~16,000).
    expect(calls).toBeLessThan(40)
  })

  it('is what rendered tables use', async () => {
    const { renderTable } = await import('../../src/report/table.js')
    const utils = require(path) as CliTableUtils
    expect(utils.truncate).not.toBe(pristine.truncate)
    const out = renderTable({ columns: [{ header: 'Setting' }], rows: [['→ zstd 1\n  smallest within 7.64x']] })
    expect(out).toContain('→ zstd 1')
    expect(out).toContain('smallest within 7.64x')
  })
})

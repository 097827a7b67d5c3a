import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Advice, LevelAdvice } from '../../src/types/advice.js'
import { formatChange, formatCpu, formatProjected, mdCode, mdText, renderAdviceText, signedPercent, trimMiddle, wrapWords } from '../../src/report/advise.js'
import { renderAdviceMarkdown } from '../../src/report/advise-markdown.js'
import { noteText } from '../../src/report/advise-notes.js'
import { formatBytes } from '../../src/report/text.js'
import { LONG_CF_NAME, sampleAdvice } from './advice-sample.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const GOLDEN_TEXT = join(HERE, 'advise.golden.txt')
const GOLDEN_MD = join(HERE, 'advise.golden.md')

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC that starts an ANSI colour code is what it removes
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')

/** The options section is printed verbatim (it must paste as is): every other line must fit. */
function splitAtOptions(text: string): { body: string[]; options: string } {
  const at = text.indexOf('\nRocksDB options to set\n')
  expect(at).toBeGreaterThan(0)
  return { body: text.slice(0, at).split('\n'), options: text.slice(at) }
}

function levelOf(a: Advice, cf: string, level: number): LevelAdvice {
  const l = a.columnFamilies.find((c) => c.name === cf)?.levels.find((x) => x.level === level)
  if (!l) throw new Error(`no ${cf} L${level} in the sample`)
  return l
}

/** Compare with the committed golden file, or rewrite it with UPDATE_GOLDEN=1. */
function expectGolden(path: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`${path} is missing: run with UPDATE_GOLDEN=1 to create it`)
    writeFileSync(path, actual)
  }
  expect(actual).toBe(readFileSync(path, 'utf8'))
}

describe('advise formats', () => {
  it("signed percentages: the change's own sign (also when it rounds to zero), ASCII minus, none on an exact zero", () => {
    expect(signedPercent(0.086)).toBe('+8.6%')
    expect(signedPercent(-0.504)).toBe('-50.4%')
    expect(signedPercent(-0.0001)).toBe('-0.0%')
    expect(signedPercent(0)).toBe('0.0%')
    expect(formatChange({ estimate: -0.184, low: -0.189, high: -0.179 })).toBe('-18.4% (-18.9..-17.9)')
    expect(formatChange({ estimate: 0.021, low: -0.004, high: 0.046 })).toBe('+2.1% (-0.4..+4.6)')
    // a change that rounds to nothing is said so once, not as "-0.0% (-0.0..-0.0)"
    expect(formatChange({ estimate: -0.0002, low: -0.0003, high: -0.0001 })).toBe('-<0.1%')
    expect(formatChange({ estimate: 0, low: 0, high: 0 })).toBe('0.0%')
    expect(formatChange({ estimate: -0.001, low: -0.0014, high: -0.0004 })).toBe('-0.1% (-0.1..0.0)')
  })

  it('projected bytes with the relative half-width of the interval', () => {
    const b = { estimate: 41.2 * 1024 * 1024, low: 41.2 * 1024 * 1024 * 0.997, high: 41.2 * 1024 * 1024 * 1.003 }
    expect(formatProjected(b)).toBe('41.2 MiB ±0.3%')
    expect(formatProjected(b, true)).toBe(`${Math.round(b.estimate)} ±0.3%`)
    expect(formatProjected({ estimate: 1000, low: 1000, high: 1000 }, true)).toBe('1000 ±0.0%')
  })

  it('timings: noisy ones marked, unmeasured ones a dash', () => {
    expect(formatCpu({ value: 3.44, low: 3.3, high: 3.6, noisy: false })).toBe('3.4')
    expect(formatCpu({ value: 298.2, low: 100, high: 500, noisy: true })).toBe('~298')
    expect(formatCpu({ value: 0.456, low: 0.4, high: 0.5, noisy: false })).toBe('0.46')
    expect(formatCpu({ value: null, low: null, high: null, noisy: false })).toBe('-')
  })

  it('names are trimmed in the middle, words wrapped at spaces', () => {
    expect(trimMiddle(LONG_CF_NAME, 20)).toBe('user_event…ary_index')
    expect(trimMiddle(LONG_CF_NAME, 20)).toHaveLength(20)
    expect(trimMiddle('default', 20)).toBe('default')
    expect(wrapWords("  smallest within 2x today's compression CPU", 20)).toEqual(['  smallest within 2x', "  today's", '  compression CPU'])
    expect(wrapWords('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij'])
  })
})

describe('renderAdviceText', () => {
  const advice = sampleAdvice()
  const text = renderAdviceText(advice)

  it('fits 100 columns, with and without --bytes, --wide and colour; the options block is verbatim', () => {
    for (const opts of [{}, { bytes: true }, { wide: true }, { wide: true, bytes: true }, { color: true, wide: true }]) {
      const out = stripAnsi(renderAdviceText(advice, opts))
      const { body, options } = splitAtOptions(out)
      const long = body.filter((l) => [...l].length > 100)
      expect(long, JSON.stringify(opts)).toEqual([])
      for (const cf of advice.columnFamilies) expect(options).toContain(cf.optionsText)
    }
  })

  it('fits a narrower terminal too', () => {
    const { body } = splitAtOptions(renderAdviceText(advice, { width: 90, wide: true }))
    expect(body.filter((l) => [...l].length > 90)).toEqual([])
  })

  it('draws one bar per level against today: the kept share of the bar is the recommended share of today', () => {
    const lines = text.split('\n')
    const legend = lines.findIndex((l) => l.includes('bytes per level against today'))
    expect(legend).toBeGreaterThan(lines.indexOf('Total'))
    const levels = advice.columnFamilies.flatMap((c) => c.levels.map((l) => ({ c, l })))
    const bars = lines.slice(legend + 1, legend + 1 + levels.length)
    for (const [i, { l }] of levels.entries()) {
      const bar = /([█░▓]+)/.exec(bars[i])![1]
      const today = l.dataBytes + l.todayDictBytes
      const next = l.recommended.estimate.bytes.estimate
      const kept = [...bar].filter((ch) => ch === '█').length
      expect(kept, bars[i]).toBe(Math.round(([...bar].length * Math.min(today, next)) / Math.max(today, next)))
      expect(bar.includes('▓'), bars[i]).toBe(next > today && kept < [...bar].length)
      expect(bars[i]).toContain(signedPercent(next / today - 1))
    }
  })

  it('prints the sections in order', () => {
    const at = ['The database today', 'Recommendation per level', 'Total', 'Sampling', 'RocksDB options to set'].map((h) => text.indexOf(`\n${h}\n`))
    expect(at.every((x) => x > 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(text).not.toContain('Every evaluated setting')
  })

  it('shows today per level: files, human sizes, entries, compression, and OPTIONS where it differs', () => {
    const l2 = levelOf(advice, 'default', 2)
    const row = text.split('\n').find((l) => l.includes(' L2 ') && l.includes(String(l2.entries)))
    expect(row).toContain(formatBytes(l2.fileBytes))
    expect(row).toContain('LZ4+Snappy')
    expect(row).toContain(l2.todayRatio.toFixed(2))
    expect(text).toContain('OPTIONS: lz4')
    // Only the mixed level differs from OPTIONS.
    expect(text.match(/OPTIONS: /g)).toHaveLength(1)
  })

  it('shows each recommendation with its interval, change, timings against today, reason, and the runner-up below', () => {
    const l3 = levelOf(advice, 'default', 3)
    const lines = text.split('\n')
    const rec = lines.findIndex((l) => l.includes(`→ ${l3.recommended.estimate.setting.label}`) && l.includes(formatChange(l3.recommended.estimate.change)))
    expect(rec).toBeGreaterThan(0)
    expect(lines[rec]).toContain(formatProjected(l3.recommended.estimate.bytes))
    expect(lines[rec]).toContain(formatCpu(l3.recommended.estimate.compressSecPerGB))
    expect(lines[rec - 1]).toContain(`today: ${l3.today?.setting.label}`)
    expect(lines[rec - 1]).toContain(formatCpu(l3.today?.compressSecPerGB))
    expect(lines[rec + 1]).toContain('  one compression_opts for')
    const runner = lines.findIndex((l, i) => i > rec && l.includes(`runner-up: ${l3.runnerUp?.estimate.setting.label}`))
    expect(runner).toBeGreaterThan(rec)
    expect(lines[runner]).toContain(formatChange(l3.runnerUp!.estimate.change))
    expect(text).toMatch(/[-+]\d+\.\d% \([-+]?\d+\.\d\.\.[-+]?\d+\.\d\)/)
  })

  it("today's projected bytes are what every change is measured against: its data blocks and its dictionary", () => {
    const a = sampleAdvice()
    const l3 = levelOf(a, 'default', 3)
    l3.todayDictBytes = 16389
    const lines = renderAdviceText(a, { bytes: true }).split('\n')
    const today = lines.find((l) => l.includes(`today: ${l3.today?.setting.label}`))
    expect(today).toContain(String(l3.dataBytes + 16389))
    expect(today).not.toContain(` ${l3.dataBytes} `)
    const md = renderAdviceMarkdown(a)
    expect(md).toContain(formatBytes(l3.dataBytes + 16389))
  })

  it('trims the long column family name in tables but prints it whole in headings', () => {
    expect(text).toContain('user_event…ary_index')
    expect(text).toContain(`Column family "${LONG_CF_NAME}"`)
  })

  it('prints the total and how sampling stopped, with the notes', () => {
    expect(text).toContain(formatChange(advice.total.change))
    expect(text).toContain(formatProjected(advice.total.projected))
    for (const s of ['all blocks', 'precision reached', 'time budget spent', 'fixed sample size']) expect(text).toContain(s)
    expect(text).toContain('009914.sst')
    expect(text).toContain('auto-skip would save about 31%')
    // The engine's notes in words, each once (wrapped to the width).
    const flat = text.replace(/\s+/g, ' ')
    for (const n of advice.notes) expect(flat.split(noteText(n)).length - 1, n.code).toBe(1)
    expect(flat).toContain('the time budget (60 s) ended sampling before every level reached ±0.5%')
  })

  it('bytes: true prints exact integers instead of human units', () => {
    const exact = renderAdviceText(advice, { bytes: true })
    const l4 = levelOf(advice, 'default', 4)
    expect(exact).toContain(String(l4.fileBytes))
    expect(exact).toContain(String(l4.dataBytes))
    expect(exact).toContain(`${Math.round(l4.recommended.estimate.bytes.estimate)} ±`)
    const { body } = splitAtOptions(exact)
    expect(body.join('\n')).not.toMatch(/\d (B|KiB|MiB|GiB|TiB)\b/)
    expect(text).toMatch(/\d GiB/)
  })

  it('wide: every evaluated setting, with the noisy timing marked and explained', () => {
    const wide = renderAdviceText(advice, { wide: true })
    const l0 = levelOf(advice, 'default', 0)
    const noisy = l0.matrix.find((e) => e.compressSecPerGB.noisy)!
    const row = wide.split('\n').find((l) => l.startsWith(`│ ${noisy.setting.label} `))
    expect(row).toContain(`~${noisy.compressSecPerGB.value!.toFixed(0)}`)
    expect(wide).toContain('~ noisy timing')
    const matrixRows = wide.split('\n').filter((l) => /^│ (none|snappy|lz4|lz4hc|zlib|zstd)\b/.test(l))
    const settings = advice.columnFamilies.reduce((a, c) => a + c.levels.reduce((b, l) => b + l.matrix.length, 0), 0)
    expect(matrixRows).toHaveLength(settings)
    expect(wide).toMatch(/│ →\* +│/)
  })

  it('marks a noisy timing of a recommendation', () => {
    const a = sampleAdvice()
    const l1 = levelOf(a, 'default', 1)
    l1.recommended.estimate.decompressMBps = { ...l1.recommended.estimate.decompressMBps, noisy: true }
    const out = renderAdviceText(a)
    expect(out).toContain(`~${l1.recommended.estimate.decompressMBps.value!.toFixed(0)}`)
    expect(out).toContain('~ noisy timing')
    expect(text).not.toContain('~ noisy timing')
  })

  it('handles plain files without levels, today, runner-up or options', () => {
    const a = sampleAdvice()
    a.source = { kind: 'files', paths: ['a.sst', 'b.sst'], manifest: null, optionsFile: null, unlistedFiles: [] }
    const cf = a.columnFamilies[0]
    cf.levels = [{ ...cf.levels[1], level: null, bottommost: false, today: null, todayOptions: null, runnerUp: null, autoSkip: null }]
    cf.optionsText = ''
    a.columnFamilies = [cf]
    const out = renderAdviceText(a)
    expect(out).toContain('SST files without a MANIFEST')
    expect(out).toContain('│ files ')
    expect(out).toContain('today: LZ4')
    expect(out).not.toContain('runner-up')
    expect(out).toContain('(nothing to change)')
  })

  it('is deterministic and matches the golden file', () => {
    expect(renderAdviceText(sampleAdvice())).toBe(text)
    expectGolden(GOLDEN_TEXT, text)
  })
})

/** Cells of a Markdown table row, splitting on pipes that are not escaped. */
function mdCells(row: string): string[] {
  return row.slice(1, -1).split(/(?<!\\)\|/)
}

describe('renderAdviceMarkdown', () => {
  const advice = sampleAdvice()
  const md = renderAdviceMarkdown(advice)

  it('has well-formed tables: every row as many cells as its header', () => {
    const lines = md.split('\n')
    for (let i = 0; i < lines.length; i++) {
      if (!/^\|(---:?\|)+$/.test(lines[i])) continue
      const width = mdCells(lines[i - 1]).length
      for (let j = i + 1; j < lines.length && lines[j].startsWith('|'); j++) expect(mdCells(lines[j]), lines[j]).toHaveLength(width)
    }
  })

  it('shows the same content: sections, recommendations with intervals, total, sampling, options in ini blocks', () => {
    for (const h of ['### The database today', '### Recommendation per level', '### Total', '### Sampling', '### RocksDB options to set'])
      expect(md).toContain(`\n${h}\n`)
    const l2 = levelOf(advice, LONG_CF_NAME, 2)
    const row = md.split('\n').find((l) => l.includes('**recommended**') && l.includes(formatChange(l2.recommended.estimate.change)))
    expect(row).toContain(formatProjected(l2.recommended.estimate.bytes))
    expect(row).toContain(l2.recommended.reason.replace(/'/g, "'"))
    for (const cf of advice.columnFamilies) expect(md).toContain(`\`\`\`ini\n${cf.optionsText}\n\`\`\``)
    expect(md).toContain(`#### \`${LONG_CF_NAME}\``)
    expect(md).toContain('<details><summary>Every evaluated setting')
  })

  it('escapes names and text that Markdown would read as syntax', () => {
    const a = sampleAdvice()
    a.columnFamilies[0].name = 'a|b `c` *d*'
    a.columnFamilies[0].optionsText = 'x=```\ny=1'
    a.columnFamilies[0].levels[0].recommended.reason = 'keeps <b>|*x*| intact'
    const out = renderAdviceMarkdown(a)
    expect(out).toContain('#### ``a|b `c` *d*``')
    expect(out).toContain('keeps \\<b\\>\\|\\*x\\*\\| intact')
    expect(out).toContain('````ini\nx=```\ny=1\n````')
    expect(mdText('snake_case _em_')).toBe('snake_case \\_em\\_')
    expect(mdCode('`x')).toBe('`` `x ``')
  })

  it('is deterministic and matches the golden file', () => {
    expect(renderAdviceMarkdown(sampleAdvice())).toBe(md)
    expectGolden(GOLDEN_MD, md)
  })
})

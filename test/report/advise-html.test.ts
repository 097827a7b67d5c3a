import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHART_COLORS, escapeHtml, renderAdviceHtml, SERIES } from '../../src/report/advise-html.js'
import { ROOT } from '../helpers.js'
import { LONG_CF_NAME, sampleAdvice } from './advice-sample.js'
import { countNear, decodePng, distinctColours } from './png.js'

/** Debian's chromium (apt); CI installs it in .ci/run. */
const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const advice = sampleAdvice()
const html = renderAdviceHtml(advice)
const levels = advice.columnFamilies.flatMap((cf) => cf.levels)

function rgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16)
  return [n >> 16, (n >> 8) & 255, n & 255]
}

describe('renderAdviceHtml', () => {
  it('is one self-contained page: no script, no link, no external URL, a policy that forbids requests', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|\bsrc=/i)
    // The only URLs are the SVG and XLink namespace names, which are never fetched.
    const urls = new Set(html.match(/https?:\/\/[^\s"')<]+/g))
    expect([...urls].sort()).toEqual(['http://www.w3.org/1999/xlink', 'http://www.w3.org/2000/svg'])
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)
  })

  it('has one chart per level, as server-rendered SVG, with ids unique on the page', () => {
    expect(html.match(/<svg /g)).toHaveLength(levels.length)
    const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1])
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('is the same page for the same advice', () => {
    expect(renderAdviceHtml(sampleAdvice())).toBe(html)
  })

  it('escapes every string that goes into the page, charts included', () => {
    const a = sampleAdvice()
    const evil = '<script>alert("cf")</script>'
    a.columnFamilies[0].name = evil
    a.columnFamilies[0].levels[1].recommended.estimate.setting.label = 'zstd <b>3</b> & "x"'
    a.columnFamilies[0].levels[1].recommended.reason = "it's <i>best</i>"
    a.columnFamilies[0].optionsText = `[CFOptions "${evil}"]`
    a.notes = [{ code: 'directory-without-sst', path: '</li><script>x</script>' }]
    const page = renderAdviceHtml(a)
    expect(page).not.toMatch(/<script|<b>|<i>|<\/li><script/i)
    expect(page).toContain(escapeHtml(evil))
    expect(page).toContain('recommended: zstd &lt;b&gt;3&lt;/b&gt; &amp; &quot;x&quot;')
    expect(page).toContain('it&#39;s &lt;i&gt;best&lt;/i&gt;')
  })

  it('loads ECharts only when a page is rendered', () => {
    const module = join(ROOT, 'dist/report/advise-html.js')
    if (!existsSync(module)) throw new Error(`${module} is missing: run npm run build first`)
    const probe = [
      "import { readFileSync } from 'node:fs'",
      "import { createRequire } from 'node:module'",
      `const m = await import(${JSON.stringify(pathToFileURL(module).href)})`,
      'const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("/node_modules/echarts/"))',
      'const before = loaded()',
      "m.renderAdviceHtml(JSON.parse(readFileSync(0, 'utf8')))",
      'console.log(JSON.stringify({ before, after: loaded() }))',
    ].join('\n')
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8', input: JSON.stringify(sampleAdvice()) })
    if (r.error) throw r.error
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true })
  })
})

interface ChartFacts {
  id: string
  svgs: number
  /** Distinct data indices per series index (0 settings, 1 intervals, 2 Pareto, 3 today, 4 recommended). */
  points: number[]
  texts: string[]
  recommendedLabel: string | null
  recommendedLabelInside: boolean
}

describe('the page in headless Chromium', () => {
  let dir = ''
  let browser: Browser | undefined
  let page: Page
  let url = ''
  const errors: string[] = []
  const failed: string[] = []
  const requests: string[] = []

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`)
    dir = mkdtempSync(join(tmpdir(), 'sstkit-advise-html-'))
    const file = join(dir, 'advice.html')
    writeFileSync(file, html)
    url = pathToFileURL(file).href
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 15_000 })
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    page.on('pageerror', (e) => errors.push(String(e)))
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`))
    page.on('request', (r) => requests.push(r.url()))
    await page.goto(url, { waitUntil: 'load', timeout: 15_000 })
  }, 30_000)

  afterAll(async () => {
    await browser?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('loads with no console error and no request but the page itself', () => {
    expect(errors).toEqual([])
    expect(failed).toEqual([])
    expect(requests).toEqual([url])
  })

  it('draws every chart as an SVG with each series and its points, the recommendation labelled inside the chart', async () => {
    const facts: ChartFacts[] = await page.$$eval('article.level', (articles) =>
      articles.map((a) => {
        const svgs = a.querySelectorAll('figure.chart > svg')
        const svg = svgs[0]
        const points = [0, 1, 2, 3, 4].map(
          (s) =>
            new Set([...svg.querySelectorAll(`[ecmeta_ssr_type="chart"][ecmeta_series_index="${s}"]`)].map((e) => e.getAttribute('ecmeta_data_index'))).size,
        )
        const texts = [...svg.querySelectorAll('text')].map((t) => t.textContent ?? '')
        const label = [...svg.querySelectorAll('text')].find((t) => /^recommended( \(as today\))?: /.test(t.textContent ?? ''))
        const box = svg.getBoundingClientRect()
        const lb = label?.getBoundingClientRect()
        const inside = !!lb && lb.width > 0 && lb.left >= box.left && lb.right <= box.right && lb.top >= box.top && lb.bottom <= box.bottom
        return { id: a.id, svgs: svgs.length, points, texts, recommendedLabel: label?.textContent ?? null, recommendedLabelInside: inside }
      }),
    )
    expect(facts).toHaveLength(levels.length)
    levels.forEach((l, i) => {
      const f = facts[i]
      expect(f.svgs, f.id).toBe(1)
      const pareto = l.matrix.filter((e) => e.pareto).length
      expect(f.points, f.id).toEqual([l.matrix.length, l.matrix.length, pareto, l.today ? 1 : 0, 1])
      for (const name of Object.values(SERIES)) expect(f.texts, f.id).toContain(name)
      const rec = l.recommended.estimate.setting.label
      const asToday = l.today?.setting.label === rec
      expect(f.recommendedLabel, f.id).toBe(`recommended${asToday ? ' (as today)' : ''}: ${rec}`)
      expect(f.recommendedLabelInside, f.id).toBe(true)
      if (l.today && !asToday) expect(f.texts, f.id).toContain(`today: ${l.today.setting.label}`)
    })
  })

  it('labels cover no other label and no point, inside the plot; every point filled and named on hover', async () => {
    const wanted = levels.map((l) => {
      const rec = l.recommended.estimate.setting.label
      const asToday = l.today?.setting.label === rec
      return [
        `recommended${asToday ? ' (as today)' : ''}: ${rec}`,
        ...(l.today && !asToday ? [`today: ${l.today.setting.label}`] : []),
        ...l.matrix.filter((e) => e.pareto && e.setting.label !== rec && e.setting.label !== l.today?.setting.label).map((e) => e.setting.label),
      ]
    })
    const facts = await page.$$eval(
      'article.level figure.chart > svg',
      (svgs, wanted) =>
        svgs.map((svg, i) => {
          const box = (e: { getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } }) => {
            const r = e.getBoundingClientRect()
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }
          }
          const labels = [...svg.querySelectorAll('text')]
            .filter((t) => wanted[i].includes(t.textContent ?? ''))
            .map((t) => ({ text: t.textContent, ...box(t) }))
          const markers = [...svg.querySelectorAll('[ecmeta_ssr_type="chart"]')]
            .filter((e) => ['0', '2', '3', '4'].includes(e.getAttribute('ecmeta_series_index') ?? ''))
            .map((e) => ({
              series: e.getAttribute('ecmeta_series_index'),
              fill: e.getAttribute('fill'),
              title: e.querySelector('title')?.textContent ?? null,
              ...box(e),
            }))
          return { labels, markers }
        }),
      wanted,
    )
    const cover = (a: { left: number; right: number; top: number; bottom: number }, b: typeof a) =>
      a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5
    let labelled = 0
    levels.forEach((l, i) => {
      const { labels, markers } = facts[i]
      const where = `${l.columnFamily} L${l.level}`
      labelled += labels.length
      // The recommendation and today always; the front where there is room.
      const shown = labels.map((t) => t.text)
      expect(shown, where).toContain(wanted[i][0])
      if (l.today && l.today.setting.label !== l.recommended.estimate.setting.label) expect(shown, where).toContain(wanted[i][1])
      for (const [a, la] of labels.entries()) {
        for (const lb of labels.slice(a + 1)) expect(cover(la, lb), `${where}: "${la.text}" over "${lb.text}"`).toBe(false)
        for (const m of markers) expect(cover(la, m), `${where}: "${la.text}" over the point of ${m.title}`).toBe(false)
      }
      // Every point filled (noisy timings are said by a dashed bar and the caption), and named on hover.
      const settings = markers.filter((m) => m.series === '0')
      expect(
        settings.map((m) => m.fill),
        where,
      ).toEqual(l.matrix.map(() => CHART_COLORS.settings))
      expect(
        settings.map((m) => m.title),
        where,
      ).toEqual(l.matrix.map((e) => e.setting.label))
    })
    // Most of the front is labelled, not just the two.
    expect(labelled).toBeGreaterThan(levels.length * 3)
  })

  it('shows the column families, the tables and the options', async () => {
    const names = await page.$$eval('section.cf', (s) => s.map((e) => e.getAttribute('data-name')))
    expect(names).toEqual(['default', LONG_CF_NAME])
    const options = await page.$$eval('#options pre', (p) => p.map((e) => e.textContent))
    expect(options).toEqual(advice.columnFamilies.map((c) => c.optionsText))
    const recommended = await page.$$eval('tr.recommended', (r) => r.length)
    expect(recommended).toBe(levels.length * 2)
  })

  it('renders the first chart to pixels: not blank, with the series colours', async () => {
    const png = await page.locator('figure.chart > svg').first().screenshot({ type: 'png' })
    const img = decodePng(png)
    expect(img.width).toBeGreaterThan(300)
    const total = img.width * img.height
    const white = countNear(img, [255, 255, 255], 8)
    expect(total - white).toBeGreaterThan(total * 0.02)
    expect(distinctColours(img)).toBeGreaterThan(20)
    for (const colour of [CHART_COLORS.settings, CHART_COLORS.pareto, CHART_COLORS.recommended]) {
      expect(countNear(img, rgb(colour)), colour).toBeGreaterThan(40)
    }
  })
})

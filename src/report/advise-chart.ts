/**
 * advise's per-level chart (advise-html.ts puts it in the page): every evaluated setting by
 * compression CPU (x, log scale) and size change against today (y, with the 95% intervals as error
 * bars), the Pareto front as a line, today and the recommendation marked; labels placed in pixels
 * where they cover nothing (chart-labels.ts), each point named on hover (an SVG title). Rendered to
 * SVG by Apache ECharts' server-side renderer.
 */
import { createRequire } from 'node:module'
import type { CustomSeriesRenderItem, EChartsOption, SeriesOption } from 'echarts'
import type { LevelAdvice, SettingEstimate } from '../types/advice.js'
import { type Box, type LabelRequest, type PlacedLabel, placeLabels } from './chart-labels.js'

type ECharts = typeof import('echarts')

export const CHART_WIDTH = 760
export const CHART_HEIGHT = 440

/** Series names, in series order: the page's tests and readers find the series by them. */
export const SERIES = {
  settings: 'evaluated settings',
  interval: '95% interval',
  pareto: 'Pareto front',
  today: 'today',
  recommended: 'recommended',
} as const

export const CHART_COLORS = { settings: '#4a6fd1', interval: '#8c9bc4', pareto: '#2e9e5b', today: '#d9822b', recommended: '#c8264d' }

/** ECharts is large: loaded on the first HTML report only, so that other commands start without it. */
let echartsModule: ECharts | undefined
function loadEcharts(): ECharts {
  echartsModule ??= createRequire(import.meta.url)('echarts') as ECharts
  return echartsModule
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])
}

// ---------------------------------------------------------------------------
// Charts

/** Settings without a measured compression CPU (no compression) sit at the left edge of the log axis. */
function cpuFloor(matrix: SettingEstimate[]): number {
  const positive = matrix.map((e) => e.compressSecPerGB.value ?? 0).filter((v) => v > 0)
  const least = positive.length > 0 ? Math.min(...positive) : 1
  return 10 ** Math.floor(Math.log10(least))
}

interface Point {
  value: [number, number]
  name: string
}

function pointOf(e: SettingEstimate, floor: number): Point {
  const cpu = e.compressSecPerGB.value
  return { value: [cpu !== null && cpu > floor ? cpu : floor, e.change.estimate * 100], name: e.setting.label }
}

/** [x, y, yLow, yHigh, xLow, xHigh, noisy]: one error bar pair per setting. */
function intervalDatum(e: SettingEstimate, floor: number): number[] {
  const [x, y] = pointOf(e, floor).value
  const t = e.compressSecPerGB
  const xLow = t.low !== null && t.low > floor ? t.low : x
  const xHigh = t.high !== null && t.high > floor ? t.high : x
  return [x, y, e.change.low * 100, e.change.high * 100, xLow, xHigh, t.noisy ? 1 : 0]
}

const CAP = 3

/** Error bars: vertical for the size interval, horizontal for the CPU interval (dashed when noisy). */
const renderErrorBars: CustomSeriesRenderItem = (_params, api) => {
  const at = (x: number, y: number) => api.coord([x, y])
  const [x, y, yLow, yHigh, xLow, xHigh, noisy] = [0, 1, 2, 3, 4, 5, 6].map((i) => Number(api.value(i)))
  const lo = at(x, yLow)
  const hi = at(x, yHigh)
  const left = at(xLow, y)
  const right = at(xHigh, y)
  const stroke = { stroke: CHART_COLORS.interval, lineWidth: 1 }
  const line = (x1: number, y1: number, x2: number, y2: number, dashed = false) => ({
    type: 'line' as const,
    shape: { x1, y1, x2, y2 },
    style: dashed ? { ...stroke, lineDash: [3, 2] } : stroke,
  })
  return {
    type: 'group',
    children: [
      line(lo[0], lo[1], hi[0], hi[1]),
      line(lo[0] - CAP, lo[1], lo[0] + CAP, lo[1]),
      line(hi[0] - CAP, hi[1], hi[0] + CAP, hi[1]),
      line(left[0], left[1], right[0], right[1], noisy === 1),
    ],
  }
}

/**
 * Where the sizes fall in two far-apart groups (typically no compression far
 * above every compressor), cut the empty span out of the y axis so the
 * compressors are not squeezed into a sliver.
 */
function sizeAxisBreak(matrix: SettingEstimate[]): { start: number; end: number; gap: string }[] {
  const spans = matrix.map((e) => [e.change.low * 100, e.change.high * 100]).sort((a, b) => a[0] - b[0])
  if (spans.length < 2) return []
  const total = Math.max(...spans.map((s) => s[1])) - spans[0][0]
  let best = { from: 0, to: 0 }
  let reach = spans[0][1]
  for (const [low, high] of spans.slice(1)) {
    if (low - reach > best.to - best.from) best = { from: reach, to: low }
    reach = Math.max(reach, high)
  }
  const gap = best.to - best.from
  if (total <= 0 || gap < total * 0.5) return []
  // Round ends (to the step of the span kept), so the labels at the break read well.
  const step = 10 ** Math.floor(Math.log10(Math.max(1e-9, (total - gap) / 2)))
  const start = Math.ceil((best.from + (total - gap) * 0.1) / step) * step
  const end = Math.floor((best.to - (total - gap) * 0.1) / step) * step
  return end > start ? [{ start, end, gap: '4%' }] : []
}

/** The grid's margins; ECharts narrows the plot further where the axis labels need room. */
const GRID = { left: 70, right: 40, top: 60, bottom: 60 }
/** Marker sizes (diameters, pixels) of the settings, the Pareto front, today and the recommendation. */
const SIZES = { settings: 8, pareto: 5, today: 16, recommended: 20 }
const TODAY_KEY = 'today'
const RECOMMENDED_KEY = 'recommended'

/** The Pareto front's points, left to right, but today's and the recommendation (labelled as such). */
function paretoFront(l: LevelAdvice, floor: number): Point[] {
  return l.matrix
    .filter((e) => e.pareto)
    .map((e) => pointOf(e, floor))
    .sort((a, b) => a.value[0] - b.value[0] || b.value[1] - a.value[1])
}

/**
 * Today's or the recommended setting where the matrix plots it: its entry there (measured CPU, as
 * every other point), not the estimate the decision took (reference speeds where timings are noisy).
 */
function plotted(l: LevelAdvice, e: SettingEstimate): SettingEstimate {
  return l.matrix.find((m) => m.setting.label === e.setting.label) ?? e
}

function labelTexts(l: LevelAdvice): { today: string; recommended: string; todayIsRecommended: boolean } {
  const rec = l.recommended.estimate.setting.label
  const todayIsRecommended = l.today?.setting.label === rec
  return { today: `today: ${l.today?.setting.label}`, recommended: `recommended${todayIsRecommended ? ' (as today)' : ''}: ${rec}`, todayIsRecommended }
}

/**
 * `placement`: each label's box in pixels and leader line (chart-labels.ts), by key: the recommendation, today, and
 * each Pareto point by its setting; null or absent: no label. `px`: data to pixels, for the offsets.
 */
function chartOption(l: LevelAdvice, placement: Map<string, PlacedLabel | null> | null, px?: (value: [number, number]) => [number, number]): EChartsOption {
  const floor = cpuFloor(l.matrix)
  const rec = plotted(l, l.recommended.estimate)
  const today = l.today ? plotted(l, l.today) : null
  // A label's top-left corner at its box's, as an offset from its point's centre.
  const at = (key: string, point: Point) => {
    const box = placement?.get(key)?.box ?? null
    if (!box || !px) return { show: false }
    const [x, y] = px(point.value)
    return { show: true, position: 'inside' as const, align: 'left' as const, verticalAlign: 'top' as const, offset: [box.left - x, box.top - y] }
  }
  const front = paretoFront(l, floor).map((p) => ({ ...p, label: at(`pareto:${p.name}`, p) }))
  const texts = labelTexts(l)
  const label = (text: string, color: string, key: string, point: Point) => ({
    formatter: text,
    color,
    fontWeight: 'bold' as const,
    fontSize: 12,
    ...at(key, point),
  })
  const series: SeriesOption[] = [
    {
      name: SERIES.settings,
      type: 'scatter',
      symbolSize: SIZES.settings,
      itemStyle: { color: CHART_COLORS.settings, opacity: 1 },
      data: l.matrix.map((e) => pointOf(e, floor)),
      z: 3,
    },
    {
      name: SERIES.interval,
      type: 'custom',
      renderItem: renderErrorBars,
      itemStyle: { color: CHART_COLORS.interval },
      data: l.matrix.map((e) => intervalDatum(e, floor)),
      encode: { x: [0, 4, 5], y: [1, 2, 3] },
      z: 2,
    },
    {
      name: SERIES.pareto,
      type: 'line',
      symbol: 'circle',
      symbolSize: SIZES.pareto,
      itemStyle: { color: CHART_COLORS.pareto },
      lineStyle: { color: CHART_COLORS.pareto, width: 2 },
      label: { formatter: '{b}', fontSize: 10, color: '#255e3b' },
      data: front,
      z: 4,
    },
  ]
  if (today) {
    series.push({
      name: SERIES.today,
      type: 'scatter',
      symbol: 'diamond',
      symbolSize: SIZES.today,
      itemStyle: { color: CHART_COLORS.today, opacity: 1 },
      label: texts.todayIsRecommended ? { show: false } : label(texts.today, CHART_COLORS.today, TODAY_KEY, pointOf(today, floor)),
      data: [pointOf(today, floor)],
      z: 5,
    })
  } else {
    series.push({ name: SERIES.today, type: 'scatter', data: [] })
  }
  series.push({
    name: SERIES.recommended,
    type: 'scatter',
    symbol: 'circle',
    symbolSize: SIZES.recommended,
    itemStyle: { color: 'rgba(0,0,0,0)', borderColor: CHART_COLORS.recommended, borderWidth: 3, opacity: 1 },
    label: label(texts.recommended, CHART_COLORS.recommended, RECOMMENDED_KEY, pointOf(rec, floor)),
    data: [pointOf(rec, floor)],
    z: 6,
  })
  return {
    animation: false,
    backgroundColor: '#ffffff',
    textStyle: { fontFamily: 'sans-serif' },
    grid: GRID,
    legend: { top: 8, data: [SERIES.settings, SERIES.pareto, SERIES.today, SERIES.recommended, SERIES.interval] },
    xAxis: {
      type: 'log',
      logBase: 10,
      min: floor,
      name: 'compression CPU, s/GB (log scale)',
      nameLocation: 'middle',
      nameGap: 32,
      splitLine: { show: true, lineStyle: { color: '#eeeeee' } },
    },
    yAxis: {
      type: 'value',
      name: 'size change vs today, %',
      nameLocation: 'middle',
      nameGap: 48,
      scale: true,
      breaks: sizeAxisBreak(l.matrix),
      // Equal zigzag spans: ECharts picks each span at random between them, and the page must not change from run to run.
      breakArea: { expandOnClick: false, zigzagMinSpan: 8, zigzagMaxSpan: 8 },
      axisLabel: { formatter: (v: number) => `${Number(v.toPrecision(6))}%` },
      splitLine: { lineStyle: { color: '#eeeeee' } },
    },
    series,
    // Leader lines of labels set off from their point, in the label's colour.
    graphic: [...(placement ?? [])].flatMap(([key, p]) =>
      p?.leader
        ? [
            {
              type: 'line' as const,
              shape: p.leader,
              style: { stroke: key === TODAY_KEY ? CHART_COLORS.today : CHART_COLORS.recommended, lineWidth: 1 },
              silent: true,
              z: 7,
            },
          ]
        : [],
    ),
  }
}

/**
 * The labels a level's chart asks for, most important first (the recommendation, today, then the
 * Pareto front left to right), and every marker's box, at `px` (data to pixels on the laid-out chart).
 */
function labelLayout(l: LevelAdvice, px: (value: [number, number]) => [number, number], plot: Box): Map<string, PlacedLabel | null> {
  const floor = cpuFloor(l.matrix)
  const rec = plotted(l, l.recommended.estimate)
  const today = l.today ? plotted(l, l.today) : null
  const texts = labelTexts(l)
  const markers: Box[] = []
  const marker = (p: Point, diameter: number) => {
    const [x, y] = px(p.value)
    markers.push({ left: x - diameter / 2, right: x + diameter / 2, top: y - diameter / 2, bottom: y + diameter / 2 })
    return { x, y, radius: diameter / 2 }
  }
  for (const e of l.matrix) marker(pointOf(e, floor), SIZES.settings)
  const front = paretoFront(l, floor).map((p) => ({ p, at: marker(p, SIZES.pareto) }))
  const recAt = marker(pointOf(rec, floor), SIZES.recommended + 3)
  const todayAt = today ? marker(pointOf(today, floor), SIZES.today) : null
  // Today's and the recommendation's labels on the sides away from each other first.
  const recBelowToday = today !== null && rec.change.estimate < today.change.estimate
  const vertical = (below: boolean): LabelRequest['sides'] => (below ? ['bottom', 'top', 'right', 'left'] : ['top', 'bottom', 'right', 'left'])
  const requests: LabelRequest[] = [
    { key: RECOMMENDED_KEY, ...recAt, text: texts.recommended, fontSize: 12, bold: true, sides: vertical(recBelowToday), required: true },
  ]
  if (todayAt && !texts.todayIsRecommended)
    requests.push({ key: TODAY_KEY, ...todayAt, text: texts.today, fontSize: 12, bold: true, sides: vertical(!recBelowToday), required: true })
  const special = new Set([rec.setting.label, l.today?.setting.label])
  for (const { p, at } of front)
    if (!special.has(p.name)) requests.push({ key: `pareto:${p.name}`, ...at, text: p.name, fontSize: 10, sides: ['right', 'left', 'top', 'bottom'] })
  return placeLabels(requests, markers, plot)
}

/** Each point of the settings, the Pareto front, today and the recommendation names its setting on hover (an SVG title). */
function withTitles(svg: string, l: LevelAdvice): string {
  const floor = cpuFloor(l.matrix)
  const names: string[][] = [
    l.matrix.map((e) => e.setting.label),
    [],
    paretoFront(l, floor).map((p) => p.name),
    l.today ? [l.today.setting.label] : [],
    [l.recommended.estimate.setting.label],
  ]
  return svg.replace(/(<path [^>]*ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)"[^>]*>)/g, (tag: string, _open: string, s: string, i: string) => {
    const name = names[Number(s)]?.[Number(i)]
    return name === undefined ? tag : `${tag}<title>${escapeHtml(name)}</title>`
  })
}

/** zrender numbers ids and classes with process-wide counters: renumber them per chart so ids stay unique on the page and the page is the same for the same advice. */
function stableIds(svg: string, prefix: string): string {
  const seen = new Map<string, string>()
  return svg.replace(/\bzr\d+-(cls-|ani-|[cgps])(\d+)\b/g, (m: string, kind: string) => {
    let id = seen.get(m)
    if (id === undefined) {
      id = `${prefix}-${kind}${seen.size}`
      seen.set(m, id)
    }
    return id
  })
}

/** One level's chart as an SVG string. */
export function renderLevelChart(l: LevelAdvice, idPrefix: string): string {
  return renderedLevelChart(l, idPrefix).svg
}

/** The plot's box as ECharts laid it out (the grid's rectangle: not in its typed API). */
function plotBox(chart: ReturnType<ECharts['init']>): Box {
  type Grid = { coordinateSystem?: { getRect(): { x: number; y: number; width: number; height: number } } }
  const model = (chart as unknown as { getModel(): { getComponent(type: string, index: number): Grid | undefined } }).getModel()
  const rect = model.getComponent('grid', 0)?.coordinateSystem?.getRect()
  if (!rect) return { left: GRID.left, top: GRID.top, right: CHART_WIDTH - GRID.right, bottom: CHART_HEIGHT - GRID.bottom }
  return { left: rect.x, top: rect.y, right: rect.x + rect.width, bottom: rect.y + rect.height }
}

export function renderedLevelChart(l: LevelAdvice, idPrefix: string): { svg: string; unlabelled: string[] } {
  const echarts = loadEcharts()
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: CHART_WIDTH, height: CHART_HEIGHT })
  try {
    // Laid out once without labels, to place them in pixels, then drawn with them.
    chart.setOption(chartOption(l, null))
    const px = (value: [number, number]) => chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, value) as [number, number]
    const placement = labelLayout(l, px, plotBox(chart))
    chart.setOption(chartOption(l, placement, px), { notMerge: true })
    const unlabelled = [...placement].filter(([key, at]) => key.startsWith('pareto:') && at === null).map(([key]) => key.slice(7))
    return { svg: withTitles(stableIds(chart.renderToSVGString(), idPrefix), l), unlabelled }
  } finally {
    chart.dispose()
  }
}

/**
 * The advice's prices (decide/cost.ts) in words, tables and one chart, for the text, Markdown and
 * HTML renderers of `advise`: per level, the write rate the info LOG measured, what the
 * recommendation costs in cores against today's setting, and what it saves.
 */
import type { EChartsOption } from 'echarts'
import { createRequire } from 'node:module'
import { formatCores, money } from '../decide/cost.js'
import { noteText } from './advise-notes.js'
import type { LevelCost, SettingCost, Advice, LevelAdvice } from '../types/advice.js'

/** Bytes in decimal units, as rates and bills are quoted (41 GB/day). */
export function decimalBytes(n: number): string {
  const a = Math.abs(n)
  const sign = n < 0 ? '-' : ''
  if (a >= 1e12) return `${sign}${(a / 1e12).toFixed(a >= 1e13 ? 0 : 1)} TB`
  if (a >= 1e9) return `${sign}${(a / 1e9).toFixed(a >= 1e10 ? 0 : 1)} GB`
  if (a >= 1e6) return `${sign}${(a / 1e6).toFixed(a >= 1e7 ? 0 : 1)} MB`
  if (a >= 1e3) return `${sign}${(a / 1e3).toFixed(a >= 1e4 ? 0 : 1)} KB`
  return `${sign}${a.toFixed(0)} B`
}

export const cores = formatCores

const dollars = money

function levelName(l: LevelAdvice): string {
  return l.level === null ? 'all levels' : `L${l.level}`
}

function savedText(c: SettingCost): string {
  if (Math.abs(c.savedBytes) < 1) return 'saves nothing'
  const stored = c.savedBytes >= 0 ? `saves ${decimalBytes(c.savedBytes)}` : `adds ${decimalBytes(-c.savedBytes)}`
  return `${stored} stored (${decimalBytes(Math.abs(c.savedPerDay))}/day ${c.savedPerDay >= 0 ? 'less' : 'more'} written)`
}

/**
 * "L3: 41 GB/day written; zstd 3 costs 0.21 cores, today lz4 0.06; saves 38 GB stored (9 GB/day
 * less written)", with $ a month when priced; null for a level the LOG has no rate for.
 */
export function costSentence(l: LevelAdvice): string | null {
  const c = l.cost
  if (!c) return null
  const rec = c.recommended
  const today = c.today
  const same = today !== null && today.label === rec.label
  const ref = rec.referenceSpeeds || today?.referenceSpeeds ? ' (reference speeds)' : ''
  const cost = `${rec.label} costs ${cores(rec.cores)} cores (${rec.cpuHoursPerDay.toFixed(1)} CPU-h/day)${ref}`
  const vs = today && !same ? `, today ${today.label} ${cores(today.cores)}` : same ? ' (today’s setting)' : ''
  const saved = same ? '' : `; ${savedText(rec)}`
  const reads =
    rec.readCores !== null
      ? `; reads decompress at ${cores(rec.readCores)} cores${today && today.readCores !== null && !same ? ` (today ${cores(today.readCores)})` : ''}`
      : ''
  const money =
    rec.dollarsPerMonth !== null
      ? `; ${dollars(rec.dollarsPerMonth)}/month${today?.dollarsPerMonth != null && !same ? ` (today ${dollars(today.dollarsPerMonth)})` : ''}`
      : ''
  return `${levelName(l)}: ${decimalBytes(c.writtenPerDay)}/day written; ${cost}${vs}${saved}${reads}${money}`
}

/** A level's checks of sstkit's model against the CPU RocksDB logged: L0's flushes, then compactions. */
export function checkLines(l: LevelAdvice): string[] {
  const out: string[] = []
  if (l.cost?.flushCheck) out.push(l.cost.flushCheck)
  if (l.cost?.modelCheck) out.push(l.cost.modelCheck)
  return out
}

/** Per column family: its levels' cost sentences, then the flush and compaction CPU checks. */
export function costLines(levels: LevelAdvice[]): string[] {
  const out: string[] = []
  for (const l of levels) {
    const s = costSentence(l)
    if (s) out.push(s)
  }
  for (const l of levels) out.push(...checkLines(l))
  return out
}

/** One line for the header: the workload note, or nothing when the advice has no workload part. */
export function workloadLine(advice: Advice): string | null {
  return advice.workload ? noteText(advice.workload.note) : null
}

export interface CostTable {
  columns: { header: string; numeric?: boolean }[]
  rows: string[][]
}

/** Every evaluated setting of a level at its measured rate (plain strings; the caller escapes). */
export function costTable(l: LevelAdvice): CostTable | null {
  const c = l.cost
  if (!c) return null
  const priced = c.settings.some((s) => s.dollarsPerMonth !== null)
  const reads = c.settings.some((s) => s.readCores !== null)
  const columns = [
    { header: 'Setting' },
    { header: 'Cores', numeric: true },
    { header: 'CPU-h/day', numeric: true },
    ...(reads ? [{ header: 'Read cores', numeric: true }] : []),
    { header: 'Written/day', numeric: true },
    { header: 'Saved stored', numeric: true },
    { header: 'Saved/day', numeric: true },
    ...(priced ? [{ header: '$/month', numeric: true }] : []),
  ]
  const rows = c.settings.map((s) => [
    `${s.label === l.recommended.estimate.setting.label ? '→ ' : ''}${s.label}${c.today?.label === s.label ? ' (today)' : ''}`,
    cores(s.cores),
    s.cpuHoursPerDay.toFixed(2),
    ...(reads ? [s.readCores === null ? '' : cores(s.readCores)] : []),
    decimalBytes(s.writtenPerDay),
    decimalBytes(s.savedBytes),
    decimalBytes(s.savedPerDay),
    ...(priced ? [s.dollarsPerMonth === null ? '' : dollars(s.dollarsPerMonth)] : []),
  ])
  return { columns, rows }
}

export const COST_LEGEND = "CPU at sstkit's reference speeds (docs/cpu.md), which every decision ranks on: the same on every run"

/** Whether any priced setting is on reference speeds (every one is, since decisions rank on them): the cost tables' legend. */
export function anyReferenceSpeeds(advice: Advice): boolean {
  return pricedLevels(advice).some(({ c }) => c.settings.some((s) => s.referenceSpeeds))
}

/** The levels with a cost, with their column family, in advice order. */
export function pricedLevels(advice: Advice): { cf: string; l: LevelAdvice; c: LevelCost }[] {
  return advice.columnFamilies.flatMap((cf) => cf.levels.flatMap((l) => (l.cost ? [{ cf: cf.name, l, c: l.cost }] : [])))
}

type ECharts = typeof import('echarts')
let echartsModule: ECharts | undefined

/**
 * Cores per level at the measured rate, today's setting against the recommendation (bars), and
 * GB/day written (line, right axis): where compression CPU goes, and what the advice changes.
 * An SVG string; null when no level is priced.
 */
export function renderCostChart(advice: Advice, width = 760, height = 320): string | null {
  const levels = pricedLevels(advice)
  if (levels.length === 0) return null
  echartsModule ??= createRequire(import.meta.url)('echarts') as ECharts
  const names = levels.map(({ cf, l }) => (advice.columnFamilies.length > 1 ? `${cf} ${levelName(l)}` : levelName(l)))
  const option: EChartsOption = {
    animation: false,
    legend: { top: 0 },
    grid: { left: 60, right: 70, top: 36, bottom: 40 },
    xAxis: { type: 'category', data: names },
    yAxis: [
      { type: 'value', name: 'cores', nameLocation: 'middle', nameGap: 42 },
      { type: 'value', name: 'GB/day written', nameLocation: 'middle', nameGap: 50, splitLine: { show: false } },
    ],
    series: [
      { name: 'today', type: 'bar', data: levels.map(({ c }) => Number((c.today?.cores ?? 0).toPrecision(3))), itemStyle: { color: '#9e9e9e' } },
      { name: 'recommended', type: 'bar', data: levels.map(({ c }) => Number(c.recommended.cores.toPrecision(3))), itemStyle: { color: '#1f77b4' } },
      {
        name: 'written today, GB/day',
        type: 'line',
        yAxisIndex: 1,
        data: levels.map(({ c }) => Number((c.writtenPerDay / 1e9).toPrecision(3))),
        itemStyle: { color: '#d62728' },
      },
    ],
  }
  const chart = echartsModule.init(null, null, { renderer: 'svg', ssr: true, width, height })
  try {
    chart.setOption(option)
    // zrender numbers ids with process-wide counters: renumber them so the page is the same for the same advice
    const seen = new Map<string, string>()
    return chart.renderToSVGString().replace(/\bzr\d+-(cls-|ani-|[cgps])(\d+)\b/g, (m: string, kind: string) => {
      let id = seen.get(m)
      if (id === undefined) {
        id = `cost-${kind}${seen.size}`
        seen.set(m, id)
      }
      return id
    })
  } finally {
    chart.dispose()
  }
}

/**
 * Comparing a fresh measurement with a baseline: one row per file ×
 * configuration, judged against relative and absolute increase limits, a
 * minimum-change floor and absolute budgets. Sizes only; timings never.
 */
import type { BaselineFile, SizeRow } from './baseline.js'
import { formatCount, formatSigned, signedPercent } from '../report/text.js'
import { exceedsPercent, parseSize, type Percent, ThresholdError } from '../cli/units.js'

/** Which byte count is compared. */
export type Metric = 'file' | 'data' | 'index' | 'filter'
export const METRICS: readonly Metric[] = ['file', 'data', 'index', 'filter']

export const METRIC_LABELS: Record<Metric, string> = {
  file: 'whole-file bytes',
  data: 'data + dictionary bytes',
  index: 'index bytes',
  filter: 'filter bytes',
}

export function metricValue(row: SizeRow, metric: Metric): number | null {
  switch (metric) {
    case 'file':
      return row.fileBytes
    case 'data':
      return row.dataBytes + row.dictBytes
    case 'index':
      return row.indexBytes
    case 'filter':
      return row.filterBytes
  }
}

/** An absolute limit on one configuration, for every file or one file. */
export interface Budget {
  /** A file name, or null for every file. */
  file: string | null
  /** A configuration name (`stored`, `zstd-3-none-off`, ...) or `*` for every configuration. */
  config: string
  bytes: number
  /** As written, e.g. "10MB". */
  text: string
}

/** `[FILE:]CONFIG=SIZE`, e.g. `stored=64MiB`, `zstd-3-none-off=10MB`, `users.sst:stored=512KiB`, `*=1GB`. */
export function parseBudget(spec: string, sizeInput?: string | number): Budget {
  let key = spec
  let size: string | number | undefined = sizeInput
  if (size === undefined) {
    const eq = spec.lastIndexOf('=')
    if (eq <= 0) throw new ThresholdError(`budget "${spec}": write it as CONFIG=SIZE (e.g. stored=64MiB or zstd-3-none-off=10MB)`)
    key = spec.slice(0, eq)
    size = spec.slice(eq + 1)
  }
  const colon = key.lastIndexOf(':')
  const file = colon > 0 ? key.slice(0, colon) : null
  const config = colon > 0 ? key.slice(colon + 1) : key
  if (config === '') throw new ThresholdError(`budget "${spec}": no configuration name`)
  return { file, config, bytes: parseSize(size, `budget ${key}`), text: String(size).trim() }
}

export interface Thresholds {
  metric: Metric
  /** Relative limit on growth; null for none. */
  maxIncrease: Percent | null
  /** Absolute limit on growth in bytes; null for none. */
  maxIncreaseBytes: number | null
  /** Changes smaller than this many bytes (either way) count as unchanged. */
  minChangeBytes: number
  budgets: Budget[]
  /** Files in the baseline but not measured are a warning rather than a failure. */
  allowMissing: boolean
}

/** With no limit at all (no relative, absolute or budget), any growth past the floor fails: sizes are deterministic. */
export function growthFails(t: Thresholds): boolean {
  return t.maxIncrease === null && t.maxIncreaseBytes === null && t.budgets.length === 0
}

export type Status = 'regression' | 'over-budget' | 'missing' | 'error' | 'grew' | 'new' | 'unchanged' | 'smaller'
export type Severity = 'fail' | 'error' | 'warn' | 'ok'

export interface CheckRow {
  name: string
  config: string
  /** The measured file's path, when it was measured. */
  path: string | null
  before: number | null
  after: number | null
  change: number | null
  /** change / before; null when there is no before (or before is 0). */
  changeFraction: number | null
  status: Status
  severity: Severity
  /** Why, in words: the limit crossed, the floor, the budget. */
  reason: string
}

export interface MeasuredFile {
  file: BaselineFile
  /** As the user can open it. */
  path: string
}

export interface FailedFile {
  name: string
  path: string
  message: string
}

export interface Comparison {
  rows: CheckRow[]
  newFiles: string[]
  missingFiles: string[]
  /** Entry-count changes and other context. */
  notes: string[]
  counts: Record<Status, number>
  failed: boolean
  errored: boolean
}

function budgetsFor(t: Thresholds, name: string, config: string): Budget[] {
  return t.budgets.filter((b) => (b.file === null || b.file === name) && (b.config === '*' || b.config === config))
}

function limitText(t: Thresholds): string {
  const parts: string[] = []
  if (t.maxIncrease) parts.push(`+${t.maxIncrease.text}`)
  if (t.maxIncreaseBytes !== null) parts.push(`+${formatCount(t.maxIncreaseBytes)} B`)
  return parts.join(' / ')
}

/** Judge one row present on both sides (or new: before null). */
function judge(t: Thresholds, name: string, config: string, path: string | null, before: number | null, after: number): CheckRow {
  const change = before === null ? null : after - before
  const changeFraction = before === null || before === 0 || change === null ? null : change / before
  const row: CheckRow = { name, config, path, before, after, change, changeFraction, status: 'unchanged', severity: 'ok', reason: '' }
  const reasons: string[] = []
  const over = budgetsFor(t, name, config).filter((b) => after > b.bytes)
  if (before === null) {
    row.status = 'new'
    row.severity = 'warn'
    reasons.push('not in the baseline')
  } else if (change !== null && change !== 0 && Math.abs(change) < t.minChangeBytes) {
    reasons.push(`${formatSigned(change)} B is below the ${formatCount(t.minChangeBytes)}-byte floor`)
  } else if (change !== null && change > 0) {
    const pct = t.maxIncrease !== null && exceedsPercent(change, before, t.maxIncrease)
    const bytes = t.maxIncreaseBytes !== null && change > t.maxIncreaseBytes
    if (pct || bytes || growthFails(t)) {
      row.status = 'regression'
      row.severity = 'fail'
      if (pct) reasons.push(`${signedPercent(changeFraction, 2)} > +${t.maxIncrease!.text}`)
      if (bytes) reasons.push(`${formatSigned(change)} B > +${formatCount(t.maxIncreaseBytes!)} B`)
      if (!pct && !bytes) reasons.push('grew (no increase allowed)')
    } else {
      row.status = 'grew'
      row.severity = 'warn'
      const limits = limitText(t)
      if (over.length === 0) reasons.push(limits ? `within ${limits}` : 'within budget')
      else if (limits) reasons.push(`within ${limits}`)
    }
  } else if (change !== null && change < 0) {
    row.status = 'smaller'
  }
  if (over.length > 0) {
    const tightest = over.reduce((a, b) => (b.bytes < a.bytes ? b : a))
    if (row.status !== 'regression') row.status = 'over-budget'
    row.severity = 'fail'
    reasons.push(`${formatCount(after)} B > budget ${tightest.text} (${formatCount(tightest.bytes)} B)`)
  }
  row.reason = reasons.join('; ')
  return row
}

const RANK: Record<Status, number> = { regression: 0, 'over-budget': 1, missing: 2, error: 3, grew: 4, new: 5, unchanged: 6, smaller: 7 }

function rank(r: CheckRow): number {
  if (r.status === 'missing' && r.severity === 'warn') return RANK.new
  return RANK[r.status]
}

/** Worst first: regressions by relative growth, over budget, missing, errors, growth within limits, new and missing, unchanged, then the largest improvements. */
export function sortRows(rows: CheckRow[]): CheckRow[] {
  const frac = (r: CheckRow) => r.changeFraction ?? (r.change !== null && r.change > 0 ? Infinity : -Infinity)
  return [...rows].sort((a, b) => {
    const ra = rank(a)
    const rb = rank(b)
    if (ra !== rb) return ra - rb
    if (ra === RANK.smaller) {
      const d = frac(a) - frac(b)
      if (d !== 0 && !Number.isNaN(d)) return d
    } else {
      const d = frac(b) - frac(a)
      if (d !== 0 && !Number.isNaN(d)) return d
      const c = (b.change ?? 0) - (a.change ?? 0)
      if (c !== 0) return c
    }
    // Ties keep the measurement order (files as given, configurations in matrix order).
    return 0
  })
}

/**
 * Compare baseline files with measured files (matched by name). `configs` is
 * the baseline's configuration list (every row of every file), so a file
 * measured now and absent from the baseline gets rows for the same set.
 */
export function compare(baseline: BaselineFile[], measured: MeasuredFile[], failed: FailedFile[], t: Thresholds): Comparison {
  const rows: CheckRow[] = []
  const notes: string[] = []
  const before = new Map(baseline.map((f) => [f.name, f]))
  const after = new Map(measured.map((m) => [m.file.name, m]))
  const failedNames = new Map(failed.map((f) => [f.name, f]))
  const value = (r: SizeRow | undefined) => (r === undefined ? null : metricValue(r, t.metric))

  for (const m of measured) {
    const b = before.get(m.file.name)
    if (b && b.entries !== null && m.file.entries !== null && b.entries !== m.file.entries) {
      const d = m.file.entries - b.entries
      notes.push(
        `${m.file.name}: ${formatCount(b.entries)} → ${formatCount(m.file.entries)} entries (${formatSigned(d)}, ${signedPercent(b.entries ? d / b.entries : null, 2)})`,
      )
    }
    for (const row of m.file.rows) {
      const a = value(row)
      if (a === null) continue
      const old = b?.rows.find((r) => r.config === row.config)
      rows.push(judge(t, m.file.name, row.config, m.path, b ? value(old) : null, a))
    }
  }
  const missingFiles: string[] = []
  for (const b of baseline) {
    if (after.has(b.name)) continue
    const f = failedNames.get(b.name)
    if (!f) missingFiles.push(b.name)
    for (const r of b.rows) {
      const v = value(r)
      rows.push({
        name: b.name,
        config: r.config,
        path: f?.path ?? null,
        before: v,
        after: null,
        change: null,
        changeFraction: null,
        status: f ? 'error' : 'missing',
        severity: f ? 'error' : t.allowMissing ? 'warn' : 'fail',
        reason: f ? f.message : 'in the baseline but not measured',
      })
    }
  }
  for (const f of failed) {
    if (before.has(f.name)) continue
    rows.push({
      name: f.name,
      config: '*',
      path: f.path,
      before: null,
      after: null,
      change: null,
      changeFraction: null,
      status: 'error',
      severity: 'error',
      reason: f.message,
    })
  }
  const newFiles = measured.filter((m) => !before.has(m.file.name)).map((m) => m.file.name)
  const counts = Object.fromEntries(Object.keys(RANK).map((k) => [k, 0])) as Record<Status, number>
  for (const r of rows) counts[r.status]++
  return {
    rows: sortRows(rows),
    newFiles,
    missingFiles,
    notes,
    counts,
    failed: rows.some((r) => r.severity === 'fail'),
    errored: rows.some((r) => r.severity === 'error'),
  }
}

/** Budgets must name configurations (and files) that exist, so a typo does not silently check nothing. */
export function checkBudgetNames(budgets: Budget[], configs: Set<string>, files: Set<string>): string | null {
  for (const b of budgets) {
    if (b.config !== '*' && !configs.has(b.config)) {
      return `budget ${b.file ? `${b.file}:` : ''}${b.config}: no such configuration (the baseline has ${[...configs].join(', ')})`
    }
    if (b.file !== null && !files.has(b.file)) return `budget ${b.file}:${b.config}: no file named "${b.file}" in the baseline or the measured files`
  }
  return null
}

/**
 * The outputs of `check-size`: a table for people, Markdown for job summaries
 * and PR comments, GitHub workflow-command annotations, JUnit XML for test
 * dashboards, and the JSON document.
 */
import { type TableModel, renderTable } from '../report/table.js'
import { type Baseline, changedSizes } from './baseline.js'
import { METRIC_LABELS, type CheckRow, type Comparison, type Thresholds } from './compare.js'
import { formatCount, formatSigned, formatSize, signedPercent } from '../report/text.js'

export interface CheckContext {
  baselinePath: string
  thresholds: Thresholds
  /** Version changes accepted with --allow-version-change, and other notes for the reader. */
  warnings: string[]
  configSource: string | null
}

const STATUS_TEXT: Record<CheckRow['status'], string> = {
  regression: 'FAIL regression',
  'over-budget': 'FAIL over budget',
  missing: 'FAIL missing',
  error: 'ERROR',
  grew: 'grew',
  new: 'new',
  unchanged: 'unchanged',
  smaller: 'smaller',
}

export function statusText(r: CheckRow): string {
  if (r.status === 'missing' && r.severity !== 'fail') return 'missing'
  return STATUS_TEXT[r.status]
}

const num = (v: number | null) => (v === null ? '' : formatCount(v))

/**
 * The comparison as a table. `human`: sizes in KiB/MiB and signed human changes, as every
 * terminal table shows them (exact bytes with `bytes`); otherwise exact counts (Markdown).
 * `change`: the change in bytes beside the change in percent (default true; the terminal table
 * leaves it to --wide, which Before and After already say, so that it fits 100 columns).
 */
export function checkModel(c: Comparison, opts: { reasons?: boolean; human?: boolean; bytes?: boolean; change?: boolean } = {}): TableModel {
  const reasons = opts.reasons ?? c.rows.some((r) => r.reason !== '')
  const withChange = opts.change ?? true
  const human = opts.human === true
  const size = (v: number | null) => (v === null ? '' : human ? formatSize(v, opts.bytes ?? false) : formatCount(v))
  const change = (v: number) => (human ? `${v > 0 ? '+' : v < 0 ? '-' : ''}${formatSize(Math.abs(v), opts.bytes ?? false)}` : formatSigned(v))
  return {
    columns: [
      { header: 'File' },
      { header: 'Config' },
      { header: 'Before', align: 'right' },
      { header: 'After', align: 'right' },
      ...(withChange ? [{ header: 'Change', align: 'right' as const }] : []),
      { header: 'Change %', align: 'right' },
      { header: 'Status' },
      ...(reasons ? [{ header: 'Why' }] : []),
    ],
    rows: c.rows.map((r) => [
      r.name,
      r.config,
      size(r.before),
      size(r.after),
      ...(withChange ? [r.change === null ? '' : change(r.change)] : []),
      signedPercent(r.changeFraction, 2),
      statusText(r),
      ...(reasons ? [r.reason] : []),
    ]),
  }
}

/** One line: the verdict and the counts. */
export function summaryLine(c: Comparison): string {
  const n = c.counts
  const parts: string[] = []
  const add = (count: number, what: string) => count > 0 && parts.push(`${count} ${what}`)
  add(n.regression, 'regressed')
  add(n['over-budget'], 'over budget')
  add(n.missing, 'missing')
  add(n.error, 'could not be measured')
  add(n.grew, 'grew within limits')
  add(n.new, 'new')
  add(n.smaller, 'smaller')
  add(n.unchanged, 'unchanged')
  const verdict = c.errored ? 'error' : c.failed ? 'FAILED' : 'passed'
  const rows = c.rows.length === 1 ? '1 row' : `${c.rows.length} rows`
  return `size check ${verdict}: ${parts.join(', ') || 'nothing to compare'} (${rows}: file × configuration)`
}

export function limitsLine(t: Thresholds): string {
  const parts = [`metric: ${METRIC_LABELS[t.metric]}`]
  if (t.maxIncrease) parts.push(`max increase ${t.maxIncrease.text}`)
  if (t.maxIncreaseBytes !== null) parts.push(`max increase ${formatCount(t.maxIncreaseBytes)} B`)
  if (t.maxIncrease === null && t.maxIncreaseBytes === null && t.budgets.length === 0) parts.push('any increase fails')
  if (t.minChangeBytes > 0) parts.push(`changes under ${formatCount(t.minChangeBytes)} B ignored`)
  for (const b of t.budgets) parts.push(`budget ${b.file ? `${b.file}:` : ''}${b.config} ≤ ${b.text}`)
  return parts.join('; ')
}

/** GitHub-flavoured Markdown: verdict, the changed rows, unchanged rows folded away. */
export function renderMarkdown(c: Comparison, ctx: CheckContext): string {
  const icon = c.errored ? '⚠️' : c.failed ? '❌' : '✅'
  const out: string[] = [`### ${icon} sstkit ${summaryLine(c)}`, '', `Baseline \`${ctx.baselinePath}\`; ${limitsLine(ctx.thresholds)}.`, '']
  for (const w of ctx.warnings) out.push(`> **Note:** ${w}`, '')
  const changed = c.rows.filter((r) => r.status !== 'unchanged')
  const unchanged = c.rows.filter((r) => r.status === 'unchanged')
  if (changed.length > 0) out.push(renderTable(checkModel({ ...c, rows: changed }), 'markdown'), '')
  else out.push('No size changed.', '')
  if (unchanged.length > 0) {
    out.push(
      `<details><summary>${unchanged.length} unchanged</summary>`,
      '',
      renderTable(checkModel({ ...c, rows: unchanged }), 'markdown'),
      '',
      '</details>',
      '',
    )
  }
  for (const n of c.notes) out.push(`- ${n}`)
  if (c.notes.length) out.push('')
  return out.join('\n')
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

function rowMessage(r: CheckRow): string {
  const size =
    r.before !== null && r.after !== null
      ? `${formatCount(r.before)} → ${formatCount(r.after)} B (${formatSigned(r.change!)} B, ${signedPercent(r.changeFraction, 2)})`
      : r.after !== null
        ? `${formatCount(r.after)} B`
        : r.before !== null
          ? `was ${formatCount(r.before)} B`
          : ''
  return `${r.name} [${r.config}]: ${statusText(r)}${size ? ` ${size}` : ''}${r.reason ? ` — ${r.reason}` : ''}`
}

/** `::error` for failures and errors, `::warning` for growth within limits, new and tolerated missing files. */
export function annotations(c: Comparison, ctx: CheckContext): string[] {
  const out: string[] = []
  for (const r of c.rows) {
    const kind =
      r.severity === 'fail' || r.severity === 'error' ? 'error' : r.status === 'grew' || r.status === 'new' || r.status === 'missing' ? 'warning' : null
    if (!kind) continue
    const title =
      r.severity === 'error'
        ? 'SST could not be measured'
        : r.status === 'new'
          ? 'New SST'
          : r.status === 'missing'
            ? 'SST missing'
            : r.severity === 'fail'
              ? 'SST size regression'
              : 'SST grew'
    const props = [`title=${escapeProperty(title)}`]
    if (r.path) props.unshift(`file=${escapeProperty(r.path)}`)
    out.push(`::${kind} ${props.join(',')}::${escapeData(rowMessage(r))}`)
  }
  for (const w of ctx.warnings) out.push(`::warning title=sstkit check-size::${escapeData(w)}`)
  return out
}

function xml(s: string): string {
  // Characters XML 1.0 cannot hold at all are dropped.
  return s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

/** JUnit XML: one test case per file × configuration (classname = file, name = configuration). */
export function renderJunit(c: Comparison, ctx: CheckContext): string {
  const failures = c.rows.filter((r) => r.severity === 'fail').length
  const errors = c.rows.filter((r) => r.severity === 'error').length
  const skipped = c.rows.filter((r) => r.status === 'missing' && r.severity !== 'fail').length
  const tests = c.rows.length
  const suite = 'sstkit check-size'
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${suite}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
    `  <testsuite name="${suite}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
    '    <properties>',
    `      <property name="baseline" value="${xml(ctx.baselinePath)}"/>`,
    `      <property name="limits" value="${xml(limitsLine(ctx.thresholds))}"/>`,
    '    </properties>',
  ]
  for (const r of c.rows) {
    const open = `    <testcase classname="${xml(r.name)}" name="${xml(r.config)}" time="0"`
    const msg = xml(rowMessage(r))
    if (r.severity === 'fail') out.push(`${open}>`, `      <failure type="${r.status}" message="${msg}">${msg}</failure>`, '    </testcase>')
    else if (r.severity === 'error') out.push(`${open}>`, `      <error type="error" message="${msg}">${msg}</error>`, '    </testcase>')
    else if (r.status === 'missing') out.push(`${open}>`, `      <skipped message="${msg}"/>`, '    </testcase>')
    else out.push(`${open}>`, `      <system-out>${msg}</system-out>`, '    </testcase>')
  }
  out.push('  </testsuite>', '</testsuites>', '')
  return out.join('\n')
}

/** The --json document. */
export function checkJson(c: Comparison, ctx: CheckContext) {
  const t = ctx.thresholds
  return {
    ok: !c.failed && !c.errored,
    summary: summaryLine(c),
    baseline: ctx.baselinePath,
    config: ctx.configSource,
    thresholds: {
      metric: t.metric,
      maxIncrease: t.maxIncrease?.text ?? null,
      maxIncreaseBytes: t.maxIncreaseBytes,
      minChangeBytes: t.minChangeBytes,
      budgets: t.budgets.map((b) => ({ file: b.file, config: b.config, bytes: b.bytes, text: b.text })),
      allowMissing: t.allowMissing,
    },
    counts: c.counts,
    newFiles: c.newFiles,
    missingFiles: c.missingFiles,
    warnings: ctx.warnings,
    notes: c.notes,
    rows: c.rows,
  }
}

/** What `baseline` measured, one row per file × configuration: sizes in KiB/MiB, exact with `bytes` (--bytes; the file always has them). */
/**
 * The baseline as a table, fitting 100 columns with names as a repository has them: the
 * Compression column (which the configuration's name also says) with `wide`, Dict only when a
 * row has a dictionary (or with `wide`).
 */
export function baselineModel(doc: Baseline, opts: { bytes?: boolean; wide?: boolean } = {}): TableModel {
  const size = (v: number | null) => (v === null ? '' : formatSize(v, opts.bytes ?? false))
  const wide = opts.wide === true
  const dict = wide || doc.files.some((f) => f.rows.some((r) => r.dictBytes > 0))
  return {
    columns: [
      { header: 'File' },
      { header: 'Config' },
      ...(wide ? [{ header: 'Compression' }] : []),
      { header: 'Entries', align: 'right' as const },
      { header: 'Data', align: 'right' as const },
      ...(dict ? [{ header: 'Dict', align: 'right' as const }] : []),
      { header: 'Index', align: 'right' as const },
      { header: 'Filter', align: 'right' as const },
      { header: 'Total', align: 'right' as const },
      { header: 'Ratio', align: 'right' as const },
    ],
    rows: doc.files.flatMap((f) =>
      f.rows.map((r) => [
        f.name,
        r.config,
        ...(wide ? [r.compression] : []),
        num(f.entries),
        size(r.dataBytes),
        ...(dict ? [size(r.dictBytes)] : []),
        size(r.indexBytes),
        size(r.filterBytes),
        size(r.fileBytes),
        r.ratio.toFixed(3),
      ]),
    ),
  }
}

/** The line after a baseline is written: where, how many files × configurations, and (--update) how many sizes changed. */
export function baselineWrittenLine(out: string, doc: Baseline, previous: Baseline | undefined): string {
  const rows = doc.files.reduce((a, f) => a + f.rows.length, 0)
  const changed = previous ? ` (${changedSizes(previous.files, doc.files)} of ${rows} sizes changed)` : ''
  return `${previous ? 'updated' : 'wrote'} ${out}: ${doc.files.length} file(s) × ${doc.files[0].rows.length} configuration(s)${changed}`
}

/**
 * Tabular output shared by every command: one table model, rendered as a
 * cli-table3 box table (people), CSV or Markdown (documents, scripts).
 */
import Table from 'cli-table3'

export type Align = 'left' | 'right'

export interface Column {
  readonly header: string
  readonly align?: Align
}

export type Cell = string | number | null | undefined

export interface TableModel {
  readonly columns: readonly Column[]
  readonly rows: readonly Cell[][]
  /** Rows shown under a separator (totals). */
  readonly footer?: readonly Cell[][]
}

export type TableFormat = 'table' | 'csv' | 'markdown'

export function cellText(c: Cell): string {
  if (c === null || c === undefined) return ''
  return typeof c === 'number' ? String(c) : c
}

export function renderTable(model: TableModel, format: TableFormat = 'table', opts: { color?: boolean; width?: number } = {}): string {
  switch (format) {
    case 'csv':
      return renderCsv(model)
    case 'markdown':
      return renderMarkdown(model)
    default:
      return renderBox(model, opts.color ?? false, opts.width)
  }
}

/** Box drawing without a rule between every row: compact, still aligned. */
const COMPACT_CHARS = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }

function renderBox(model: TableModel, color: boolean, width?: number): string {
  const head = model.columns.map((c) => c.header)
  const all = [...model.rows, ...(model.footer ?? [])].map((r) => r.map(cellText))
  const colWidths = fitWidths(head, all, width)
  const t = new Table({
    head,
    colAligns: model.columns.map((c) => c.align ?? 'left'),
    chars: COMPACT_CHARS,
    ...(colWidths ? { colWidths, wordWrap: true, wrapOnWordBoundary: false } : {}),
    // Colours only on a terminal: piped output stays plain.
    style: color ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] },
  })
  for (const r of model.rows) t.push(r.map(cellText))
  if (model.footer && model.footer.length > 0) {
    const rule = model.columns.map(() => '')
    t.push(rule.map(() => ({ content: '', hAlign: 'left' as const })))
    for (const r of model.footer) t.push(r.map(cellText))
  }
  return t.toString()
}

/** When a terminal width is known and the table is wider, narrow the widest column. */
function fitWidths(head: string[], rows: string[][], width?: number): number[] | undefined {
  if (!width) return undefined
  const widths = head.map((h, i) => Math.max(lineWidth(h), ...rows.map((r) => lineWidth(r[i] ?? ''))) + 2)
  const total = widths.reduce((a, b) => a + b, 0) + widths.length + 1
  if (total <= width) return undefined
  const widest = widths.indexOf(Math.max(...widths))
  widths[widest] = Math.max(12, widths[widest] - (total - width))
  return widths
}

/** A multi-line cell is as wide as its longest line. */
function lineWidth(s: string): number {
  return Math.max(...s.split('\n').map((l) => l.length))
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

function renderCsv(model: TableModel): string {
  const lines = [model.columns.map((c) => csvField(c.header)).join(',')]
  for (const r of [...model.rows, ...(model.footer ?? [])]) lines.push(r.map((c) => csvField(cellText(c))).join(','))
  return lines.join('\n')
}

function mdField(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function renderMarkdown(model: TableModel): string {
  const head = `| ${model.columns.map((c) => mdField(c.header)).join(' | ')} |`
  const sep = `|${model.columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`
  const body = [...model.rows, ...(model.footer ?? [])].map((r) => `| ${r.map((c) => mdField(cellText(c))).join(' | ')} |`)
  return [head, sep, ...body].join('\n')
}

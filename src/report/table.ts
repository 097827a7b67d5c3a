/**
 * Tabular output shared by every command: one table model, rendered as a
 * cli-table3 box table (people), CSV or Markdown (documents, scripts).
 */
import Table from 'cli-table3'
import cliTableUtils from 'cli-table3/src/utils.js'
import { installCellTruncation } from './table-truncate.js'
import { wrapWords } from './text.js'

installCellTruncation(cliTableUtils)

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

/** A column of a streamed table: its width is fixed before the first row. */
export interface StreamColumn extends Column {
  readonly width: number
}

/** Box characters of the compact style renderBox draws. */
const BOX = { top: ['┌', '┬', '┐'], bottom: ['└', '┴', '┘'], line: '─', side: '│' }

/**
 * A table printed row by row, in time linear in its rows and memory
 * independent of them (a `layout` of 100k blocks): the column widths are fixed
 * up front instead of measured over every row, so cells must be printable ASCII
 * (one column each; `asciiCell` makes them so). A value wider than its column
 * widens its row rather than being cut. `note` prints a line under a row
 * (a problem too long for a column), in every format but CSV, whose rows hold
 * every column anyway.
 */
export class TableStream {
  private readonly inner: number
  private opened = false

  constructor(
    private readonly columns: readonly StreamColumn[],
    private readonly format: TableFormat,
    private readonly write: (text: string) => void,
    private readonly color = false,
  ) {
    this.inner = columns.reduce((a, c) => a + c.width + 3, 0) - 3
  }

  /** Total width of a 'table' row, borders included. */
  get width(): number {
    return this.inner + 4
  }

  private border(s: string): string {
    return this.color ? `\x1b[90m${s}\x1b[39m` : s
  }

  private rule([left, mid, right]: string[]): string {
    return this.border(left + this.columns.map((c) => BOX.line.repeat(c.width + 2)).join(mid) + right)
  }

  private boxRow(cells: readonly string[], head = false): string {
    const side = this.border(BOX.side)
    const text = this.columns.map((c, i) => {
      const s = cells[i] ?? ''
      const padded = c.align === 'right' ? s.padStart(c.width) : s.padEnd(c.width)
      return head && this.color ? `\x1b[36m${padded}\x1b[39m` : padded
    })
    return `${side} ${text.join(` ${side} `)} ${side}`
  }

  private open(): void {
    if (this.opened) return
    this.opened = true
    const head = this.columns.map((c) => c.header)
    if (this.format === 'csv') this.write(`${head.map(csvField).join(',')}\n`)
    else if (this.format === 'markdown')
      this.write(`| ${head.map(mdField).join(' | ')} |\n|${this.columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|\n`)
    else this.write(`${this.rule(BOX.top)}\n${this.boxRow(head, true)}\n`)
  }

  row(cells: readonly Cell[], note?: string): void {
    this.open()
    const text = cells.map(cellText)
    if (this.format === 'csv') {
      this.write(`${text.map(csvField).join(',')}\n`)
      return
    }
    if (this.format === 'markdown') {
      this.write(`| ${text.map(mdField).join(' | ')} |\n`)
      if (note) this.write(`| ${mdField(note)} |${' |'.repeat(this.columns.length - 1)}\n`)
      return
    }
    this.write(`${this.boxRow(text)}\n`)
    if (note) {
      const side = this.border(BOX.side)
      for (const line of wrapWords(`  ${note}`, this.inner, '    ')) this.write(`${side} ${line.padEnd(this.inner)} ${side}\n`)
    }
  }

  /** The bottom border (the header too, for a table without rows). */
  end(): void {
    this.open()
    if (this.format === 'table') this.write(`${this.rule(BOX.bottom)}\n`)
  }
}

/** A cell as printable ASCII: other characters as \xNN or \u{…} escapes, so its length is its width. */
export function asciiCell(s: string): string {
  return s.replace(/[^\x20-\x7e]/gu, (c) => {
    const cp = c.codePointAt(0)!
    return cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`
  })
}

/**
 * The `layout` report: every block in file order, then totals per kind.
 * The blocks are printed as they are read (a TableStream, or JSON written
 * piece by piece), so a file of any number of blocks prints in time linear in
 * them and memory independent of them.
 */
import { printableLine } from '../errors.js'
import { layoutBlocks } from '../table/layout.js'
import type { LayoutBlock, LayoutTotals, Table } from '../reader.js'
import { LayoutTotalsBuilder, layoutKinds } from '../table/layout.js'
import { asciiCell, renderTable, type StreamColumn, type TableFormat, type TableModel, TableStream } from './table.js'
import { formatSize, percent } from './text.js'

/** How a layout is shown: the table format, `--wide` (block names), `--bytes` (exact sizes). */
export interface LayoutView {
  readonly format: TableFormat
  readonly wide?: boolean
  readonly bytes?: boolean
}

/** What the column widths are fixed from before the first block is read. */
export interface LayoutBounds {
  readonly fileSize: number
  /** Every kind that can appear (data, gap and the file's other kinds). */
  readonly kinds: readonly string[]
  /** Every meta block name of the file. */
  readonly names: readonly string[]
}

/** The largest human size text ("1023 KiB", "10.0 MiB"). */
const HUMAN_SIZE_WIDTH = 8
/** The longest compression name ("NoCompression"). */
const COMPRESSION_WIDTH = 13
/** Decimal digits of the largest uncompressed size a block can declare (a 32-bit varint). */
const UNCOMPRESSED_DIGITS = 10

/** CSV has every column with exact numbers; Markdown every column; the table the ones that fit 100 columns, names with --wide. */
function allColumns(view: LayoutView): boolean {
  return view.format !== 'table' || view.wide === true
}

function exact(view: LayoutView): boolean {
  return view.format === 'csv' || view.bytes === true
}

export function layoutColumns(view: LayoutView, bounds: LayoutBounds): StreamColumn[] {
  const all = allColumns(view)
  const offsetWidth = String(bounds.fileSize).length
  const sizeWidth = exact(view) ? offsetWidth : HUMAN_SIZE_WIDTH
  const col = (header: string, width: number, align?: 'right'): StreamColumn => ({ header, width: Math.max(header.length, width), ...(align ? { align } : {}) })
  return [
    col('Kind', Math.max(...bounds.kinds.map((k) => k.length))),
    ...(all ? [col('Name', Math.max(0, ...bounds.names.map((n) => asciiCell(n).length)))] : []),
    col('Offset', offsetWidth, 'right'),
    col('On disk', sizeWidth, 'right'),
    col('Compression', COMPRESSION_WIDTH),
    col('Uncompressed', exact(view) ? UNCOMPRESSED_DIGITS : HUMAN_SIZE_WIDTH, 'right'),
    col('Ratio', 5, 'right'),
    col('Checksum', 'unchecked'.length),
    ...(view.format === 'table' ? [] : [col('Problem', 0)]),
  ]
}

function ratio(b: { sizeOnDisk: number; uncompressedSize: number | null }): string {
  if (!b.uncompressedSize || b.sizeOnDisk === 0) return ''
  const r = b.uncompressedSize / b.sizeOnDisk
  return r.toFixed(r >= 100 ? 0 : 2)
}

export function layoutRow(b: LayoutBlock, view: LayoutView): string[] {
  const size = (n: number | null) => (n === null ? '' : exact(view) ? String(n) : formatSize(n))
  return [
    b.kind,
    ...(allColumns(view) ? [asciiCell(b.name)] : []),
    String(b.offset),
    size(b.sizeOnDisk),
    b.compression ?? '',
    size(b.uncompressedSize),
    ratio(b),
    b.kind === 'gap' ? '' : b.checksum === 'mismatch' ? 'MISMATCH' : b.checksum,
    ...(view.format === 'table' ? [] : [b.problem ?? '']),
  ]
}

/** The line under a table row: its problem (CSV and Markdown have it in a column). */
export function layoutNote(b: LayoutBlock, view: LayoutView): string | undefined {
  return view.format === 'table' && b.problem ? `problem: ${asciiCell(b.problem)}` : undefined
}

/** Blocks counted as `verify` counts them: every block, the footer included, gaps not. */
export function blockCount(totals: readonly LayoutTotals[]): number {
  return totals.reduce((a, t) => a + (t.kind === 'gap' ? 0 : t.count), 0)
}

/** Said under the totals, and by verify: whether the footer counts. */
export function blockCountText(n: number): string {
  return `${n} block${n === 1 ? '' : 's'} including the footer`
}

export function totalsModel(totals: readonly LayoutTotals[], fileSize: number, view: LayoutView): TableModel {
  const total = totals.reduce((a, t) => a + t.sizeOnDisk, 0)
  const size = (n: number) => (exact(view) ? n : formatSize(n))
  return {
    columns: [
      { header: 'Kind' },
      { header: 'Blocks', align: 'right' },
      { header: 'On disk', align: 'right' },
      { header: 'Share', align: 'right' },
      { header: 'Uncompressed', align: 'right' },
      { header: 'Ratio', align: 'right' },
    ],
    rows: totals.map((t) => [
      t.kind,
      t.count,
      size(t.sizeOnDisk),
      percent(t.sizeOnDisk, fileSize),
      t.uncompressedSize ? size(t.uncompressedSize) : '',
      ratio(t),
    ]),
    footer: [['total', totals.reduce((a, t) => a + t.count, 0), size(total), percent(total, fileSize), '', '']],
  }
}

/**
 * `layout --json` written as the blocks are read: the same text as
 * JSON.stringify(value, null, 2) of { file, fileSize, blocks, totals, blockCount, problems },
 * at `indent` (inside an array of several files).
 */
export class LayoutJsonStream {
  private blocks = 0

  constructor(
    private readonly write: (text: string) => void,
    private readonly indent = '',
  ) {}

  private value(v: unknown, depth: string): string {
    return JSON.stringify(v, null, 2).replace(/\n/g, `\n${depth}`)
  }

  begin(file: string, fileSize: number): void {
    const i = `${this.indent}  `
    this.blocks = 0
    this.write(`${this.indent}{\n${i}"file": ${JSON.stringify(file)},\n${i}"fileSize": ${fileSize},\n${i}"blocks": [`)
  }

  block(b: LayoutBlock): void {
    const i = `${this.indent}    `
    this.write(`${this.blocks++ === 0 ? '' : ','}\n${i}${flatObject(b, i)}`)
  }

  /** Close the file's object; `error`: why the walk stopped before the end (the blocks listed are what it read). */
  end(totals: readonly LayoutTotals[], problems: number, error?: unknown): void {
    const i = `${this.indent}  `
    const close = this.blocks === 0 ? ']' : `\n${i}]`
    const stopped = error === undefined ? '' : `,\n${i}"error": ${this.value(error, i)}`
    this.write(
      `${close},\n${i}"totals": ${this.value(totals, i)},\n${i}"blockCount": ${blockCount(totals)},\n${i}"problems": ${problems}${stopped}\n${this.indent}}`,
    )
  }
}

/** JSON.stringify(o, null, 2) at `indent` of an object whose values are all scalars (a block): a third of the time. */
function flatObject(o: object, indent: string): string {
  let text = '{'
  let first = true
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue
    text += `${first ? '' : ','}\n${indent}  ${JSON.stringify(k)}: ${JSON.stringify(v)}`
    first = false
  }
  return first ? '{}' : `${text}\n${indent}}`
}

/** Problem lines kept for `--summary` (the totals do not show which block is bad); more are counted. */
const MAX_SUMMARY_PROBLEMS = 100

/** `problem: <kind> at offset N: <what>` for a block that could not be read or failed its checksum. */
function problemLine(b: LayoutBlock, fileSize: number): string {
  // A block outside the file has no offset to give: its message names the handle that claims it.
  const at = b.offset + b.sizeOnDisk <= fileSize ? ` at offset ${b.offset}` : ''
  return printableLine(`problem: ${b.kind}${b.name && b.name !== b.kind ? ` (${b.name})` : ''}${at}: ${b.problem}`)
}

/** How `layout` shows each table: the view, and what it walks and prints. */
export interface LayoutRun {
  readonly view: LayoutView
  /** `--summary`: the totals only (in JSON, only the blocks with a problem). */
  readonly summary: boolean
  /** `--decompress`: every block decompressed to measure it. */
  readonly decompress: boolean
  /** Where the table renders (colour, width). */
  readonly tty: { color: boolean; width?: number }
}

/** A table's walk as `writeTableBlocks` made it: the totals and what `writeTableTotals` prints under them. */
export interface TableLayoutWalk {
  readonly fileSize: number
  readonly totals: readonly LayoutTotals[]
  /** Blocks with a problem. */
  readonly problems: number
  /** `--summary`: the first problems' lines (MAX_SUMMARY_PROBLEMS). */
  readonly problemLines: readonly string[]
  /** Whether the blocks table was printed above the totals. */
  readonly blocksTable: boolean
}

/**
 * One table's blocks on `write`, streamed as they are read: with `json` its object (the blocks,
 * then the totals); else the blocks table (not with --summary). A walk that stops part-way keeps
 * what it listed: `stopped` is told the error (to report it; the output so far is to be flushed
 * first) and returns its JSON, which the file's object ends with. Returns the walk, or null when
 * it stopped.
 */
export function writeTableBlocks(
  table: Table,
  file: string,
  run: LayoutRun,
  json: LayoutJsonStream | undefined,
  write: (text: string) => void,
  stopped: (error: unknown) => unknown,
): TableLayoutWalk | null {
  const { view, summary } = run
  const totals = new LayoutTotalsBuilder()
  json?.begin(file, table.fileSize)
  const rows = json || summary ? undefined : blockTable(table, view, write, run.tty.color)
  const problemLines: string[] = []
  let stop: { error: unknown } | undefined
  try {
    for (const b of layoutBlocks(table, { decompress: run.decompress })) {
      totals.add(b)
      if (json && (!summary || b.problem)) json.block(b)
      rows?.row(layoutRow(b, view), layoutNote(b, view))
      if (summary && b.problem && problemLines.length < MAX_SUMMARY_PROBLEMS) problemLines.push(problemLine(b, table.fileSize))
    }
  } catch (e) {
    stop = { error: e }
  } finally {
    rows?.end()
    const error = stop ? stopped(stop.error) : undefined
    json?.end(totals.totals, totals.problems, error)
  }
  if (stop) return null
  return { fileSize: table.fileSize, totals: totals.totals, problems: totals.problems, problemLines, blocksTable: rows !== undefined }
}

/** Under a table's blocks, in text: the totals table, the block count and the problem lines. */
export function writeTableTotals(walk: TableLayoutWalk, run: LayoutRun, write: (text: string) => void): void {
  const { view } = run
  if (walk.blocksTable && view.format !== 'csv') write('\n')
  write(`${renderTable(totalsModel(walk.totals, walk.fileSize, view), view.format, run.tty)}\n`)
  if (view.format === 'table') write(`${blockCountText(blockCount(walk.totals))}\n`)
  // In Markdown a line right under a table is one more row of it.
  if (view.format === 'markdown' && walk.problems > 0) write('\n')
  for (const line of walk.problemLines) write(`${line}\n`)
  if (walk.problems > walk.problemLines.length)
    write(`... and ${walk.problems - walk.problemLines.length} more ${walk.problems - walk.problemLines.length === 1 ? 'problem' : 'problems'}\n`)
}

/** The blocks table, its column widths fixed from what the file can hold. */
function blockTable(table: Table, view: LayoutView, write: (text: string) => void, color: boolean): TableStream {
  const bounds = { fileSize: table.fileSize, kinds: layoutKinds(table), names: table.metaindexEntries.map((e) => e.name) }
  return new TableStream(layoutColumns(view, bounds), view.format, write, color)
}

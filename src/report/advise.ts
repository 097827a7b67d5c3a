/**
 * The `advise` report for a terminal (fits 100 columns): the database as it is, the recommendation
 * per level, the total, how sampling stopped, and the RocksDB options to set. The table models here
 * are shared with the Markdown report (advise-markdown.ts); the words and number formats are
 * advise-format.ts's (re-exported here), shared with the HTML page too.
 */
import { blobCandidatesModel, blobSummaryLine } from './advise-blob.js'
import { BLOCK_SIZE_LEGEND, blockSizeModel, blockSizeSummaryLine } from './advise-block-size.js'
import { noteText } from './advise-notes.js'
import { anyReferenceSpeeds, COST_LEGEND, costLines, costTable } from './advise-cost.js'
import type { Advice, ColumnFamilyAdvice, LevelAdvice, SettingEstimate } from '../types/advice.js'
import { renderTable, type Cell, type Column, type TableModel } from './table.js'
import { escapeName, formatSize, signedPercent, wrapWords } from './text.js'
import {
  formatChange,
  formatProjected,
  formatCpu,
  formatSpeed,
  levelName,
  levelLabel,
  stopText,
  todayBytes,
  todayLabel,
  optionsDiffer,
  sharePercent,
  shortNames,
  sourceLine,
  versionLine,
  optionsCode,
  releaseLine,
  optionsFootnotes,
  objectiveLine,
  samplingLine,
  noteLines,
  MIGRATION,
  levelDbLines,
  leftOutLines,
  anyNoisy,
  NOISY_LEGEND,
  recommendationEstimates,
} from './advise-format.js'

export * from './advise-format.js'

export interface AdviceTextOptions {
  /** Columns to fit (default 100). */
  width?: number
  /** ANSI colours (terminal only). */
  color?: boolean
  /** Exact byte counts instead of KiB/MiB/GiB. */
  bytes?: boolean
  /** Also every evaluated setting of every level. */
  wide?: boolean
}

export const DEFAULT_TEXT_WIDTH = 100
/** Column family names longer than this are shortened in the middle in text tables. */
const CF_NAME_WIDTH = 20

// ---------------------------------------------------------------------------
// Text

/** Word-wrap one column so the whole table fits the width; the other columns keep their natural widths. */
function fitFlexColumn(model: TableModel, flex: number, width: number): TableModel {
  const longest = (c: Cell) =>
    Math.max(
      ...String(c ?? '')
        .split('\n')
        .map((l) => l.length),
    )
  const all = [...model.rows, ...(model.footer ?? [])]
  const natural = model.columns.map((col, i) => Math.max(longest(col.header), ...all.map((r) => longest(r[i]))))
  const others = natural.reduce((a, w, i) => (i === flex ? a : a + w + 2), 0)
  const room = Math.max(12, width - others - (model.columns.length + 1) - 2)
  const wrap = (c: Cell): Cell =>
    typeof c === 'string'
      ? c
          .split('\n')
          .flatMap((l) => (l.length > room ? wrapWords(l, room) : [l]))
          .join('\n')
      : c
  const fit = (r: Cell[]) => r.map((c, i) => (i === flex ? wrap(c) : c))
  return { ...model, rows: model.rows.map(fit), footer: model.footer?.map(fit) }
}

interface TextContext {
  width: number
  color: boolean
  exact: boolean
}

/** A spacer between groups of rows (the compact tables draw no rule between rows). */
function blankRow(columns: number): Cell[] {
  return Array.from({ length: columns }, () => '')
}

export function table(model: TableModel, ctx: TextContext, flex?: number): string {
  const fitted = flex === undefined ? model : fitFlexColumn(model, flex, ctx.width)
  return renderTable(fitted, 'table', { color: ctx.color, width: ctx.width })
}

function heading(s: string, ctx: TextContext): string {
  return ctx.color ? `\u001b[1m${s}\u001b[22m` : s
}

/** The first two columns of the per-level tables. */
export const LEVEL_COLUMNS: Column[] = [{ header: 'Column family' }, { header: 'Level' }]

/** How a column family is named in its levels' rows: for a terminal on its first level only, trimmed. */
export type NameCell = (cf: Pick<ColumnFamilyAdvice, 'name'>, firstLevel: boolean) => Cell
/** Names escaped and shortened for a terminal, no two alike. */
function textNames(advice: Advice): NameCell {
  const names = [
    ...advice.columnFamilies.map((c) => c.name),
    ...(advice.source.unreadableColumnFamilies ?? []).map((c) => c.name),
    ...(advice.source.emptyColumnFamilies ?? []),
  ]
  const short = shortNames(names.map(escapeName), CF_NAME_WIDTH)
  return (cf, first) => (first ? (short.get(escapeName(cf.name)) ?? escapeName(cf.name)) : '')
}

/** Rows for the column families that hold no live file: named, and said empty. */
export function emptyRows(advice: Advice, name: NameCell, columns: number): Cell[][] {
  return (advice.source.emptyColumnFamilies ?? []).map((n) => {
    const row: Cell[] = [name({ name: n }, true), 'empty']
    while (row.length < columns) row.push(row.length === 2 ? 0 : '')
    return row
  })
}

/**
 * Rows for the column families whose live tables could not be read (missing or damaged): one per
 * level, its files counted and said unreadable in the `said` column (the Left out section says why).
 */
export function unreadableRows<T>(advice: Advice, name: (n: string, first: boolean) => T, columns: number, said: number): (T | string | number)[][] {
  const rows: (T | string | number)[][] = []
  for (const cf of advice.source.unreadableColumnFamilies ?? []) {
    const levels = [...new Set(cf.files.map((f) => f.level))].sort((a, b) => a - b)
    for (const [i, level] of levels.entries()) {
      const row: (T | string | number)[] = [name(cf.name, i === 0), `L${level}`, cf.files.filter((f) => f.level === level).length]
      while (row.length < columns) row.push(row.length === said ? 'unreadable' : '')
      rows.push(row)
    }
  }
  return rows
}

/** One row per level: its column family, its label, then `cells`; with `gap`, a blank row of that width between column families. */
export function levelRows(advice: Advice, name: NameCell, cells: (l: LevelAdvice) => Cell[], gap?: number): Cell[][] {
  const rows: Cell[][] = []
  for (const cf of advice.columnFamilies) {
    if (gap !== undefined && rows.length > 0) rows.push(blankRow(gap))
    for (const [i, l] of cf.levels.entries()) rows.push([name(cf, i === 0), levelLabel(l), ...cells(l)])
  }
  return rows
}

function databaseModel(advice: Advice, ctx: TextContext): TableModel {
  const textName = textNames(advice)
  const rows = levelRows(
    advice,
    textName,
    (l) => [
      l.files,
      formatSize(l.fileBytes, ctx.exact),
      l.entries ?? 'unknown',
      optionsDiffer(l) ? `${l.todayCompression}\nOPTIONS: ${l.todayOptions?.label}` : l.todayCompression,
      l.todayRatio.toFixed(2),
    ],
    7,
  )
  const unreadable = unreadableRows(advice, (n, first) => textName({ name: n }, first), 7, 5) as Cell[][]
  if (unreadable.length > 0) rows.push(blankRow(7), ...unreadable)
  const empty = emptyRows(advice, textName, 7)
  if (empty.length > 0) rows.push(blankRow(7), ...empty)
  const levels = advice.columnFamilies.flatMap((c) => c.levels)
  const sum = (f: (l: LevelAdvice) => number) => levels.reduce((a, l) => a + f(l), 0)
  return {
    columns: [
      ...LEVEL_COLUMNS,
      { header: 'Files', align: 'right' },
      { header: 'Size', align: 'right' },
      { header: 'Entries', align: 'right' },
      { header: 'Compression' },
      { header: 'Ratio', align: 'right' },
    ],
    rows,
    footer: [
      [
        'total',
        '',
        sum((l) => l.files),
        formatSize(
          sum((l) => l.fileBytes),
          ctx.exact,
        ),
        levels.some((l) => l.entries === null) ? 'unknown' : sum((l) => l.entries ?? 0),
        '',
        '',
      ],
    ],
  }
}

const RECOMMENDATION_COLUMNS: Column[] = [
  { header: 'Level' },
  { header: 'Setting' },
  { header: 'Projected', align: 'right' },
  { header: 'Change vs today', align: 'right' },
  { header: 'CPU\ns/GB', align: 'right' },
  { header: 'Dec\nMB/s', align: 'right' },
]

/** A level the time budget left without a sample: it keeps today's setting, and its figures are today's. */
export function notSampled(l: LevelAdvice): boolean {
  return l.sample.stopped === 'not-sampled'
}

/** What a not-sampled level shows where a change and timings would be. */
export const NOT_SAMPLED_CELL = 'not sampled'

/** Projected, change, CPU and decompression speed of an estimate; `l`: its level, for one not sampled. */
export function estimateFigures(e: SettingEstimate, exact: boolean, l?: LevelAdvice): string[] {
  if (l && notSampled(l)) return [formatProjected(e.bytes, exact), NOT_SAMPLED_CELL, '-', '-']
  return [formatProjected(e.bytes, exact), formatChange(e.change), formatCpu(e.compressSecPerGB), formatSpeed(e.decompressMBps)]
}

export function estimateCells(e: SettingEstimate, exact: boolean, l?: LevelAdvice): Cell[] {
  return estimateFigures(e, exact, l)
}

/** Per level: today, the recommendation and its reason, the runner-up and its reason. */
function recommendationModel(levels: LevelAdvice[], ctx: TextContext): TableModel {
  const rows: Cell[][] = []
  for (const l of levels) {
    if (rows.length > 0) rows.push(blankRow(RECOMMENDATION_COLUMNS.length))
    rows.push([
      levelName(l),
      `today: ${todayLabel(l)}`,
      formatSize(todayBytes(l), ctx.exact),
      '',
      formatCpu(l.today?.compressSecPerGB),
      formatSpeed(l.today?.decompressMBps),
    ])
    const rec = l.recommended
    rows.push([l.bottommost ? 'bottom' : '', `→ ${rec.estimate.setting.label}\n  ${rec.reason}`, ...estimateCells(rec.estimate, ctx.exact, l)])
    if (l.runnerUp) rows.push(['', `runner-up: ${l.runnerUp.estimate.setting.label}\n  ${l.runnerUp.reason}`, ...estimateCells(l.runnerUp.estimate, ctx.exact)])
  }
  return { columns: RECOMMENDATION_COLUMNS, rows }
}

/** The pareto and recommended marks of a matrix row. */
function marks(l: LevelAdvice, e: SettingEstimate): string {
  const m = e === l.recommended.estimate || e.setting.label === l.recommended.estimate.setting.label ? '→' : ''
  return m + (e.pareto ? '*' : '')
}

export function matrixModel(l: LevelAdvice, ctx: TextContext): TableModel {
  return {
    columns: [
      { header: 'Setting' },
      { header: 'Projected', align: 'right' },
      { header: 'Change vs today', align: 'right' },
      { header: 'Ratio', align: 'right' },
      { header: 'CPU\ns/GB', align: 'right' },
      { header: 'Dec\nMB/s', align: 'right' },
      { header: 'Rej', align: 'right' },
      { header: '' },
    ],
    rows: l.matrix.map((e) => [
      e.setting.label,
      formatProjected(e.bytes, ctx.exact),
      formatChange(e.change),
      e.ratio.toFixed(2),
      formatCpu(e.compressSecPerGB),
      formatSpeed(e.decompressMBps),
      sharePercent(e.rejectedShare),
      marks(l, e),
    ]),
  }
}

const BAR_KEPT = '█'
const BAR_SAVED = '░'
const BAR_ADDED = '▓'
/** Columns of the level names beside the bars. */
const BAR_LABEL_WIDTH = 18

/**
 * Per level one bar, each on its own scale (the larger of today and the
 * recommendation fills it), so that a small level's change shows as well as a
 * large one's: what the recommendation keeps (█), what it saves against today
 * (░) or adds (▓), then the two sizes and the change. Levels without an
 * estimate are left out.
 */
function levelBars(advice: Advice, ctx: TextContext): string[] {
  const rows = advice.columnFamilies.flatMap((cf) =>
    cf.levels
      .filter((l) => Number.isFinite(l.recommended.estimate.bytes.estimate) && l.dataBlocks > 0)
      .map((l) => ({
        name: `${escapeName(cf.name)} ${levelName(l)}`,
        today: todayBytes(l),
        next: l.recommended.estimate.bytes.estimate,
      })),
  )
  if (rows.length === 0) return []
  const labels = shortNames(
    rows.map((r) => r.name),
    BAR_LABEL_WIDTH,
  )
  for (const r of rows) r.name = labels.get(r.name) ?? r.name
  const figures = rows.map((r) => `${formatSize(r.today, ctx.exact)} → ${formatSize(r.next, ctx.exact)} ${signedPercent(r.next / r.today - 1)}`)
  const room = ctx.width - 2 - BAR_LABEL_WIDTH - 2 - Math.max(...figures.map((f) => f.length)) - 2
  if (room < 10) return []
  const width = Math.min(40, room)
  const lines = rows.map((r, i) => {
    const kept = Math.round((width * Math.min(r.today, r.next)) / Math.max(r.today, r.next))
    const bar = BAR_KEPT.repeat(kept) + (r.next < r.today ? BAR_SAVED : BAR_ADDED).repeat(width - kept)
    return `  ${r.name.padEnd(BAR_LABEL_WIDTH)}  ${bar.padEnd(width)}  ${figures[i]}`
  })
  return [`  bytes per level against today: ${BAR_KEPT} kept, ${BAR_SAVED} saved, ${BAR_ADDED} added`, ...lines, '']
}

export function totalModel(advice: Advice, exact: boolean): TableModel {
  const t = advice.total
  return {
    columns: [{ header: '' }, { header: 'Today', align: 'right' }, { header: 'Projected', align: 'right' }, { header: 'Change', align: 'right' }],
    rows: [
      ['data blocks', formatSize(t.todayBytes, exact), formatProjected(t.projected, exact), formatChange(t.change)],
      ...(t.maxBytes ? [['--max-bytes', '', formatSize(t.maxBytes.bytes, exact), maxBytesVerdict(t.maxBytes)]] : []),
    ],
  }
}

/** Whether the projected total fits `--max-bytes`. */
export function maxBytesVerdict(m: { met: boolean }): string {
  return m.met ? 'fits' : 'does not fit'
}

export function samplingModel(advice: Advice, exact: boolean, name: NameCell): TableModel {
  const rows = levelRows(advice, name, (l) => [
    `${l.sample.blocks} of ${l.dataBlocks}`,
    formatSize(l.sample.uncompressedBytes, exact),
    sharePercent(l.sample.share),
    stopText(l),
  ])
  return {
    columns: [
      ...LEVEL_COLUMNS,
      { header: 'Blocks sampled', align: 'right' },
      { header: 'Sampled', align: 'right' },
      { header: 'Share', align: 'right' },
      { header: 'Stopped' },
    ],
    rows,
  }
}

/** A line of prose, wrapped to the width with a hanging indent. */
function prose(s: string, width: number, bullet = ''): string[] {
  const lines = wrapWords(s, width - bullet.length)
  return lines.map((l, i) => (i === 0 ? bullet : ' '.repeat(bullet.length)) + l)
}

/** The advice for a terminal, every line within `width` columns (the options block is printed verbatim for pasting). */
export function renderAdviceText(advice: Advice, opts: AdviceTextOptions = {}): string {
  const ctx: TextContext = { width: opts.width ?? DEFAULT_TEXT_WIDTH, color: opts.color ?? false, exact: opts.bytes ?? false }
  const out: string[] = []
  const section = (title: string) => out.push('', heading(title, ctx))

  out.push(...prose(`sstkit advise: ${advice.source.paths.join(', ')}`, ctx.width))
  out.push(...prose(`source: ${sourceLine(advice)}`, ctx.width, '  '))
  const version = versionLine(advice)
  if (version) out.push(...prose(`version: ${version}`, ctx.width, '  '))
  out.push(...prose(`objective: ${objectiveLine(advice)}`, ctx.width, '  '))
  out.push(...prose(`sampling: ${samplingLine(advice)}`, ctx.width, '  '))

  section('The database today')
  out.push(table(databaseModel(advice, ctx), ctx, 5))
  const leftOut = leftOutLines(advice)
  if (leftOut.length > 0) {
    section(`Left out (${leftOut.length} file${leftOut.length === 1 ? '' : 's'}: not in the advice)`)
    for (const n of leftOut) out.push(...prose(n, ctx.width, '- '))
  }

  section(advice.source.engine === 'leveldb' ? `Recommendation per level, ${MIGRATION}` : 'Recommendation per level')
  for (const cf of advice.columnFamilies) {
    out.push(...prose(`Column family "${escapeName(cf.name)}"`, ctx.width))
    out.push(table(recommendationModel(cf.levels, ctx), ctx, 1))
    for (const line of costLines(cf.levels)) out.push(...prose(line, ctx.width, '  '))
  }
  if (anyNoisy(advice.columnFamilies.flatMap((c) => c.levels.flatMap(recommendationEstimates)))) out.push(NOISY_LEGEND)

  if (opts.wide) {
    section('Every evaluated setting (→ recommended, * on the size-against-CPU Pareto front)')
    for (const cf of advice.columnFamilies) {
      for (const l of cf.levels) {
        if (notSampled(l)) continue
        out.push(...prose(`${escapeName(cf.name)} ${levelLabel(l)}`, ctx.width))
        out.push(table(matrixModel(l, ctx), ctx, 0))
        const costs = costTable(l)
        if (costs)
          out.push(table({ columns: costs.columns.map((c) => ({ header: c.header, align: c.numeric ? 'right' : undefined })), rows: costs.rows }, ctx, 0))
      }
    }
    if (anyNoisy(advice.columnFamilies.flatMap((c) => c.levels.flatMap((l) => l.matrix)))) out.push(NOISY_LEGEND)
    if (anyReferenceSpeeds(advice)) out.push(COST_LEGEND)
  }

  section('Total')
  out.push(...levelBars(advice, ctx))
  out.push(table(totalModel(advice, ctx.exact), ctx))

  section('Sampling')
  out.push(table(samplingModel(advice, ctx.exact, textNames(advice)), ctx, 5))
  for (const n of noteLines(advice)) out.push(...prose(n, ctx.width, '- '))

  if (advice.blobs?.length) {
    section('Blob files (blob_compression_type)')
    for (const b of advice.blobs) {
      out.push(...prose(blobSummaryLine(b, ctx.exact), ctx.width))
      if (b.candidates.length) out.push(table(blobCandidatesModel(b, ctx.exact), ctx))
    }
  }

  const blockSizes = advice.columnFamilies.flatMap((cf) => (cf.blockSize ? [cf.blockSize] : []))
  if (blockSizes.length) {
    section('Block size per column family (block_size)')
    for (const b of blockSizes) {
      out.push(...prose(blockSizeSummaryLine(b), ctx.width))
      out.push(table(blockSizeModel(b, ctx.exact), ctx))
      for (const n of b.notes) out.push(...prose(noteText(n), ctx.width, '- '))
    }
    out.push(...prose(BLOCK_SIZE_LEGEND, ctx.width))
  }

  if (advice.source.engine === 'leveldb') {
    section('LevelDB option to set')
    for (const line of levelDbLines(advice)) out.push(...prose(line, ctx.width, '  '))
  }
  section(advice.source.engine === 'leveldb' ? `RocksDB options, ${MIGRATION}` : 'RocksDB options to set')
  const release = releaseLine(advice)
  if (release) out.push(...prose(release, ctx.width))
  for (const cf of advice.columnFamilies) {
    out.push('', ...prose(`Column family "${escapeName(cf.name)}":`, ctx.width))
    const { code } = optionsCode(cf)
    out.push(code.trim() === '' ? '(nothing to change)' : code)
    for (const n of optionsFootnotes(advice, cf, (b) => formatSize(b, ctx.exact))) out.push(...prose(n, ctx.width, '  '))
  }
  return `${out.join('\n')}\n`
}

// ---------------------------------------------------------------------------
// Markdown

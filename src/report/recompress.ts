/**
 * The `recompress` report: a `stored` baseline row, then one row per
 * configuration, then a legend when a timing is noise and the verdict.
 *
 * By default the table fits 100 columns: one Setting column (advise's labels),
 * data + dictionary in human units, the change against the file as stored,
 * ratio, speeds and marks. `--wide` shows every column (type, level,
 * dictionary and checksum apart; data, dictionary and file bytes; blocks
 * compressed and rejected; dictionary time); `--bytes` exact byte counts. CSV
 * always has every column with exact numbers; JSON every field.
 */
import { MAX_TIMING_SPREAD, MIN_TIMED_MS } from '../recompress/engine.js'
import { BLOCK_TRAILER_BYTES } from '../format/block-trailer.js'
import type { RecompressReport, RecompressResult } from '../index.js'
import { recompressVerdict, resultLabel, layoutFieldsShown } from './recompress-verdict.js'
import { renderTable, type Cell, type Column, type TableFormat, type TableModel } from './table.js'
import { formatSize, NOISY_MARK, signedPercent, wrapWords } from './text.js'

export type SortKey = 'matrix' | 'size' | 'ratio' | 'compress' | 'decompress'

/** Columns the default table fits. */
export const DEFAULT_WIDTH = 100

export interface RecompressViewOptions {
  sort?: SortKey
  /** Every column. */
  wide?: boolean
  /** Exact byte counts instead of KiB/MiB/GiB. */
  bytes?: boolean
  /** Runs per timing (--repeat): with more than one, the spread is shown (wide) and enters the verdict. */
  repeats?: number
  /** Columns to fit (default DEFAULT_WIDTH; the terminal's when narrower). */
  width?: number
  color?: boolean
}

export function sortResults(results: RecompressResult[], key: SortKey): RecompressResult[] {
  const size = (r: RecompressResult) => r.dataBytes + r.dictBytes
  const s = [...results]
  switch (key) {
    case 'size':
      return s.sort((a, b) => size(a) - size(b))
    case 'ratio':
      return s.sort((a, b) => b.ratio - a.ratio)
    case 'compress':
      return s.sort((a, b) => (b.compressMBps ?? Infinity) - (a.compressMBps ?? Infinity))
    case 'decompress':
      return s.sort((a, b) => (b.decompressMBps ?? 0) - (a.decompressMBps ?? 0))
    default:
      return s
  }
}

/** Type, level, dictionary, checksum (and with `strategy`, zlib's strategy): the cells that name a setting (wide table, CSV). */
function settingCells(r: RecompressResult, strategy: boolean): Cell[] {
  const cells: Cell[] = [r.type, r.level === null ? 'default' : r.level, r.dict, r.type === 'zstd' ? (r.checksum ? 'on' : 'off') : '']
  return strategy ? [...cells, r.strategy ?? ''] : cells
}

/** The setting's columns, as settingCells fills them. */
function settingColumns(strategy: boolean): Column[] {
  const columns: Column[] = [{ header: 'Type' }, { header: 'Level', align: 'right' }, { header: 'Dict' }, { header: 'Checksum' }]
  return strategy ? [...columns, { header: 'Strategy', align: 'right' }] : columns
}

/**
 * Where the Strategy column goes: in CSV always, after the older columns and before the two wall columns (the others keep their places); in a
 * table after Checksum, when a row was evaluated under --compression-strategy.
 */
function strategyColumn(report: RecompressReport, csv: boolean): { inline: boolean; last: boolean } {
  return { inline: !csv && report.results.some((r) => r.strategy !== null), last: csv }
}

const fixed = (v: number | null, digits = 1) => (v === null || !Number.isFinite(v) ? '' : v.toFixed(digits))
const MARK_NAMES: Record<string, string> = { smallest: 'smallest', 'fastest-decompress': 'fastest-dec', pareto: 'pareto' }
const marksText = (r: RecompressResult) => r.marks.map((m) => MARK_NAMES[m] ?? m).join(' ')

/** A speed for people: whole MB/s, one decimal under 10, `~` when it is noise. */
function speed(v: number | null, noisy: boolean): string {
  if (v === null || !Number.isFinite(v)) return ''
  return `${noisy ? NOISY_MARK : ''}${v.toFixed(v < 10 ? 1 : 0)}`
}

/** " ±12%": the spread of repeated runs ((max - min) / median, shown as half of it either side). */
function spreadText(v: number, repeats: number): string {
  return repeats > 1 && v > 0 ? ` ±${(v * 50).toFixed(0)}%` : ''
}

/** A decompression speed as a row (a setting's, or the stored row's: no repeats) gives it. */
type DecompressTiming = Pick<RecompressResult, 'decompressMBps' | 'decompressInterval' | 'decompressNoisy'> & { decompressSpread?: number }

/** A sampled decompression speed's 95% interval as a share either side of it (the wider side), or 0 when exact. */
function intervalShare(r: DecompressTiming): number {
  const i = r.decompressInterval
  if (!i || r.decompressMBps === null || !(r.decompressMBps > 0)) return 0
  if (i.high === null) return Number.POSITIVE_INFINITY
  return Math.max(i.high / r.decompressMBps - 1, 1 - i.low / r.decompressMBps)
}

/** A decompression speed, " ±N%" after it when sampled (rounded up; with --repeat in the wide table, the wider of that and the spread). */
function decompressText(r: DecompressTiming, repeats: number): string {
  const share = intervalShare(r)
  const spread = r.decompressSpread ?? 0
  const base = speed(r.decompressMBps, r.decompressNoisy)
  if (r.decompressMBps === null || share === 0) return `${base}${r.decompressMBps === null ? '' : spreadText(spread, repeats)}`
  const half = repeats > 1 ? Math.max(share, spread / 2) : share
  return `${base} ±${Number.isFinite(half) ? Math.max(1, Math.ceil(half * 100)) : '∞'}%`
}

function storedLabel(report: RecompressReport): string {
  return `stored (${report.stored.compression})`
}

/** The default table: one Setting column, sizes in human units (exact with --bytes). */
function compactModel(report: RecompressReport, opts: RecompressViewOptions): TableModel {
  const st = report.stored
  const exact = opts.bytes ?? false
  const rows: Cell[][] = [[storedLabel(report), formatSize(st.dataBytes + st.dictBytes, exact), '', st.ratio.toFixed(2), '', decompressText(st, 1), '']]
  const layoutShown = layoutFieldsShown(report.results)
  for (const r of sortResults(report.results, opts.sort ?? 'matrix')) {
    rows.push([
      resultLabel(r, layoutShown),
      formatSize(r.dataBytes + r.dictBytes, exact),
      signedPercent(r.vsStored),
      r.ratio.toFixed(2),
      speed(r.compressMBps, r.compressNoisy),
      decompressText(r, 1),
      marksText(r),
    ])
  }
  return {
    columns: [
      { header: 'Setting' },
      { header: 'Data +\ndict', align: 'right' },
      { header: 'vs\nstored', align: 'right' },
      { header: 'Ratio', align: 'right' },
      { header: 'Comp\nMB/s', align: 'right' },
      { header: 'Decomp\nMB/s', align: 'right' },
      { header: 'Marks' },
    ],
    rows,
  }
}

/** Every column; `csv`: plain numbers (exact bytes, no marks or spreads in the cells) and the noise flags as columns. */
function wideModel(report: RecompressReport, opts: RecompressViewOptions, csv: boolean): TableModel {
  const st = report.stored
  const exact = csv || (opts.bytes ?? false)
  const repeats = csv ? 1 : (opts.repeats ?? 1)
  const size = (n: number | null) => (n === null ? '' : formatSize(n, exact))
  const rate = (v: number | null, noisy: boolean, spread: number) => (csv ? fixed(v, 0) : `${speed(v, noisy)}${v === null ? '' : spreadText(spread, repeats)}`)
  const noise = (r: { compressNoisy?: boolean; decompressNoisy: boolean }) =>
    csv ? [r.compressNoisy === undefined ? '' : String(r.compressNoisy), String(r.decompressNoisy)] : []
  // CSV: the sampled interval's bounds (empty when exact) and the blocks round-tripped.
  const interval = (r: Pick<RecompressResult, 'decompressInterval' | 'roundTripBlocks'>) =>
    csv
      ? [r.decompressInterval ? fixed(r.decompressInterval.low, 0) : '', r.decompressInterval ? fixed(r.decompressInterval.high, 0) : '', r.roundTripBlocks]
      : []
  const strategy = strategyColumn(report, csv)
  // Write and read wall ms: beside the CPU columns in the wide table, last in CSV (earlier columns keep their positions).
  const walls = (r: RecompressResult): Cell[] => [
    csv ? fixed(r.writeWallMs, 2) : `${r.writeWallMs < MIN_TIMED_MS ? NOISY_MARK : ''}${fixed(r.writeWallMs, 1)}`,
    csv || r.readWallMs === null ? fixed(r.readWallMs, 2) : `${r.readWallMs < MIN_TIMED_MS ? NOISY_MARK : ''}${fixed(r.readWallMs, 1)}`,
  ]
  const wallColumns: Column[] = [
    { header: 'Write wall ms', align: 'right' },
    { header: 'Read wall ms', align: 'right' },
  ]
  // The table layout's columns: in CSV always, in the wide table when the rows span several layouts.
  const layoutColumns = csv || layoutFieldsShown(report.results).size > 0
  const layout = (r: RecompressResult | null): Cell[] =>
    !layoutColumns
      ? []
      : r === null
        ? ['', '', '', '', '']
        : [
            r.blockSize ?? 'own',
            r.restartInterval ?? '',
            r.separateKeyValue === null ? '' : r.separateKeyValue ? 'separated' : 'inline',
            r.indexCompression ? 'on' : 'off',
            r.formatVersion,
          ]
  const rows: Cell[][] = [
    [
      storedLabel(report),
      '',
      '',
      '',
      ...(strategy.inline ? [''] : []),
      size(st.dataBytes),
      size(st.dictBytes),
      size(st.fileBytes),
      st.ratio.toFixed(3),
      '',
      `${st.blocksCompressed}/${st.blocks}`,
      '',
      '',
      csv ? fixed(st.decompressMBps, 0) : decompressText(st, repeats),
      '',
      '',
      '',
      '',
      ...(csv ? [] : ['', '']),
      ...noise(st),
      ...interval(st),
      ...layout(null),
      ...(strategy.last ? [''] : []),
      ...(csv ? ['', ''] : []),
    ],
  ]
  for (const r of sortResults(report.results, opts.sort ?? 'matrix')) {
    rows.push([
      ...settingCells(r, strategy.inline),
      size(r.dataBytes),
      size(r.dictBytes),
      size(r.fileBytes),
      r.ratio.toFixed(3),
      signedPercent(r.vsStored),
      `${r.blocksCompressed}/${r.blocks}`,
      r.blocksRejected,
      rate(r.compressMBps, r.compressNoisy, r.compressSpread),
      csv ? fixed(r.decompressMBps, 0) : decompressText(r, repeats),
      r.dictMs > 0 ? fixed(r.dictMs, 1) : '',
      // Under MIN_TIMED_MS the first writer of a pass also pays the code's warm-up: noise, marked as the speeds are.
      csv ? fixed(r.writeCpuMs, 2) : `${r.writeCpuMs < MIN_TIMED_MS ? NOISY_MARK : ''}${fixed(r.writeCpuMs, 1)}`,
      csv || r.readCpuMs === null ? fixed(r.readCpuMs, 2) : `${r.readCpuMs < MIN_TIMED_MS ? NOISY_MARK : ''}${fixed(r.readCpuMs, 1)}`,
      ...(csv ? [] : walls(r)),
      marksText(r),
      ...noise(r),
      ...interval(r),
      ...layout(r),
      ...(strategy.last ? [r.strategy ?? ''] : []),
      ...(csv ? walls(r) : []),
    ])
  }
  const columns: Column[] = [
    ...settingColumns(strategy.inline),
    { header: 'Data bytes', align: 'right' },
    { header: 'Dict bytes', align: 'right' },
    { header: 'File bytes', align: 'right' },
    { header: 'Ratio', align: 'right' },
    { header: 'vs stored', align: 'right' },
    { header: 'Compressed', align: 'right' },
    { header: 'Rejected', align: 'right' },
    { header: 'Comp MB/s', align: 'right' },
    { header: 'Decomp MB/s', align: 'right' },
    { header: 'Dict ms', align: 'right' },
    { header: 'Write CPU ms', align: 'right' },
    { header: 'Read CPU ms', align: 'right' },
    ...(csv ? [] : wallColumns),
    { header: 'Marks' },
    ...(csv
      ? [{ header: 'Comp noisy' }, { header: 'Decomp noisy' }, { header: 'Decomp MB/s low' }, { header: 'Decomp MB/s high' }, { header: 'Round-trip blocks' }]
      : []),
    ...(layoutColumns
      ? [
          { header: 'Block size', align: 'right' as const },
          { header: 'Restart interval', align: 'right' as const },
          { header: 'Values' },
          { header: 'Index compression' },
          { header: 'Format version', align: 'right' as const },
        ]
      : []),
    ...(strategy.last ? [{ header: 'Strategy', align: 'right' as const }] : []),
    ...(csv ? wallColumns : []),
  ]
  return { columns, rows }
}

/**
 * With --auto-skip: each configuration, then its auto-skip variants against it.
 * Compact, the variants sit under their setting ("↳ auto-skip rate"); wide and CSV keep a column per field.
 */
function autoSkipModel(report: RecompressReport, opts: RecompressViewOptions, csv: boolean): TableModel {
  const exact = csv || (opts.bytes ?? false)
  const wide = csv || (opts.wide ?? false)
  const strategy = strategyColumn(report, csv)
  const rows: Cell[][] = []
  const mark = (noisy: boolean) => (!csv && noisy ? NOISY_MARK : '')
  let base: RecompressResult | undefined
  for (const r of report.results) {
    if (r.autoSkip === null) base = r
    const change = (v: number | undefined) => (v === undefined ? '' : signedPercent(v))
    const name = wide
      ? [...settingCells(r, strategy.inline), r.autoSkip ?? 'no skip']
      : [r.autoSkip === null ? resultLabel(r, layoutFieldsShown(report.results)) : `↳ auto-skip ${r.autoSkip}`]
    rows.push([
      ...name,
      r.blocksAttempted,
      r.blocksBypassed,
      r.blocksRejected,
      `${mark(r.compressNoisy)}${fixed(r.compressMs, 1)}`,
      // A change between two timings is noise when either is.
      r.vsNoSkip ? `${mark(r.compressNoisy || (base?.compressNoisy ?? false))}${change(r.vsNoSkip.compressMs)}` : '',
      formatSize(r.dataBytes, exact),
      change(r.vsNoSkip?.dataBytes),
      ...(strategy.last ? [r.strategy ?? ''] : []),
    ])
  }
  const columns: Column[] = wide
    ? [
        ...settingColumns(strategy.inline),
        { header: 'Auto-skip' },
        { header: 'Attempted', align: 'right' },
        { header: 'Skipped', align: 'right' },
        { header: 'Rejected', align: 'right' },
        { header: 'Comp ms', align: 'right' },
        { header: 'CPU vs no skip', align: 'right' },
        { header: 'Data bytes', align: 'right' },
        { header: 'Bytes vs no skip', align: 'right' },
        ...(strategy.last ? [{ header: 'Strategy', align: 'right' as const }] : []),
      ]
    : [
        { header: 'Setting' },
        { header: 'Tried', align: 'right' },
        { header: 'Skipped', align: 'right' },
        { header: 'Rejected', align: 'right' },
        { header: 'Comp\nms', align: 'right' },
        { header: 'CPU\nchange', align: 'right' },
        { header: 'Data', align: 'right' },
        { header: 'Data\nchange', align: 'right' },
      ]
  return { columns, rows }
}

/** The table for `format`: CSV every column with exact numbers; table and Markdown as the options ask. */
export function recompressModel(report: RecompressReport, format: TableFormat, opts: RecompressViewOptions = {}): TableModel {
  const csv = format === 'csv'
  if (report.results.some((r) => r.autoSkip !== null)) return autoSkipModel(report, opts, csv)
  return csv || opts.wide ? wideModel(report, opts, csv) : compactModel(report, opts)
}

/** Width of a rendered table with these cells: the longest line of each column, padding and borders. */
function naturalWidth(model: TableModel): number {
  const lineWidth = (s: string) => Math.max(...s.split('\n').map((l) => l.length))
  const widths = model.columns.map((c, i) => Math.max(lineWidth(c.header), ...model.rows.map((r) => lineWidth(String(r[i] ?? '')))) + 2)
  return widths.reduce((a, b) => a + b, 0) + widths.length + 1
}

/** Narrow the column headed `header` toward `width` by wrapping its cells at spaces, no narrower than its longest word. */
function wrapColumn(model: TableModel, width: number, header: string): TableModel {
  const col = model.columns.findIndex((c) => c.header === header)
  const excess = naturalWidth(model) - width
  if (col < 0 || excess <= 0) return model
  const cells = model.rows.map((r) => String(r[col] ?? ''))
  const longestWord = Math.max(header.length, ...cells.flatMap((c) => c.split(/\s+/).map((w) => w.length)))
  const room = Math.max(longestWord, Math.max(...cells.map((c) => c.length)) - excess)
  return { ...model, rows: model.rows.map((r) => r.map((c, i) => (i === col ? wrapWords(String(c ?? ''), room).join('\n') : c))) }
}

const noisy = (report: RecompressReport) => report.stored.decompressNoisy || report.results.some((r) => r.compressNoisy || r.decompressNoisy)

/** The legend of the `~` mark, when one is shown; `sampled`: some decompression speed comes from the round trip's sample. */
export function noiseLegend(repeats: number, sampled = false): string {
  const why =
    repeats > 1
      ? `under ${MIN_TIMED_MS} ms measured in all, or runs spread over ${MAX_TIMING_SPREAD * 100}%`
      : `under ${MIN_TIMED_MS} ms measured (a larger file or --repeat N measures longer)`
  return `${NOISY_MARK} noise: ${why}${sampled ? `, or a sampled interval over ±${MAX_TIMING_SPREAD * 50}%` : ''}; not ranked on`
}

/** The run's notes under the table: in a table each within the width, in Markdown each its own paragraph. */
export function renderRecompressNotes(notes: readonly string[], format: TableFormat, opts: { width?: number } = {}): string[] {
  const width = opts.width ? Math.min(opts.width, DEFAULT_WIDTH) : DEFAULT_WIDTH
  return notes.flatMap((n) => (format === 'markdown' ? ['', `note: ${n}`] : format === 'csv' ? [`note: ${n}`] : wrapWords(`note: ${n}`, width, '  ')))
}

/** Table (or CSV / Markdown), then for people the noise legend and the verdict, each line within the width. */
export function renderRecompress(report: RecompressReport, format: TableFormat, opts: RecompressViewOptions = {}): string {
  // A terminal that reports no width (0) is taken as the default.
  const width = opts.width ? Math.min(opts.width, DEFAULT_WIDTH) : DEFAULT_WIDTH
  let model = recompressModel(report, format, opts)
  if (format === 'csv') return renderTable(model, 'csv')
  const people = format === 'table' && !opts.wide
  // Too wide (long labels, many marks): marks then settings go on two lines, before the last resort of cutting cells.
  if (people) model = wrapColumn(wrapColumn(model, width, 'Marks'), width, 'Setting')
  const out = [renderTable(model, format, { color: opts.color, width: people && naturalWidth(model) > width ? width : undefined })]
  // In Markdown a line right under a table is one more row of it: each line its own paragraph.
  const wrap = (text: string) => (format === 'markdown' ? ['', text] : wrapWords(text, width, '  '))
  if (noisy(report))
    out.push(
      ...wrap(
        noiseLegend(
          opts.repeats ?? 1,
          report.results.some((r) => r.decompressInterval !== null),
        ),
      ),
    )
  const verdict = recompressVerdict(report, { repeats: opts.repeats })
  if (verdict) out.push(...wrap(verdict.text))
  return out.join('\n')
}

/** The run's compression options every row shares, as the JSON document carries them. */
export interface RecompressRunOptions {
  maxDictBytes: number
  trainBytes: number
  maxDictBufferBytes: number
  maxCompressedBytesPerKb: number
}

/** The documented JSON document for one file (the verdict added to it). */
export function recompressJson(report: RecompressReport, opts: { repeats?: number; options?: RecompressRunOptions } = {}) {
  const verdict = recompressVerdict(report, opts)
  const st = report.stored
  return {
    file: report.file,
    ...(opts.options ? { options: opts.options } : {}),
    // Payloads without the 5-byte block trailers, as RocksDB's newer sst_dump --json counts them (docs/recompress.md).
    stored: { ...st, dataPayloadBytes: st.dataBytes - BLOCK_TRAILER_BYTES * st.blocks },
    results: report.results.map((r) => ({
      ...r,
      dataPayloadBytes: r.dataBytes - BLOCK_TRAILER_BYTES * r.blocks,
      // recompress writes a binary index: one index block.
      indexPayloadBytes: r.indexBytes > 0 ? r.indexBytes - BLOCK_TRAILER_BYTES : 0,
    })),
    notes: report.notes,
    skipped: report.skipped,
    samplePercent: report.samplePercent,
    roundTrip: report.roundTrip,
    roundTripStride: report.roundTripStride,
    verdict: verdict && { recommended: verdict.recommended, runnerUp: verdict.runnerUp, rankedOnSpeed: verdict.rankedOnSpeed, text: verdict.text },
  }
}

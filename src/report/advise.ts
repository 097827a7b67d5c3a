/**
 * The `advise` report for people: text for a terminal (fits 100 columns) and
 * GitHub-flavoured Markdown for a pull-request comment. Both show, in order:
 * the database as it is, the recommendation per level, the total, how
 * sampling stopped, and the RocksDB options to set. The number formats here
 * are shared with the HTML page (advise-html.ts).
 *
 * Signed percentages use ASCII '-' and '+', as the recompress report does.
 */
import { applyPlanLines } from './advise-apply.js'
import { blobCandidatesModel, blobSummaryLine } from './advise-blob.js'
import { anyReferenceSpeeds, COST_LEGEND, costLines, costTable } from './advise-cost.js'
import type { Advice, ColumnFamilyAdvice, Interval, LevelAdvice, SettingEstimate, StopReason, Timing } from '../types/advice.js'
import { hasRawBytes } from '../format/exact-text.js'
import { escapeOptionString } from '../format/options-file.js'
import { renderTable, type Cell, type Column, type TableModel } from './table.js'
import { escapeName, formatBytes, formatSize, NOISY_MARK, printable, signedPercent, wrapWords } from './text.js'

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
// Number and name formats (shared with the HTML page)

/** A fraction as signed percentage points, the sign the change's own: "+8.6", "-50.4". */
function signedPoints(v: number, digits: number): string {
  // a bound that rounds to zero has no sign ("-0.0" reads as a loss)
  return Math.abs(v * 100).toFixed(digits) === (0).toFixed(digits) ? (0).toFixed(digits) : signedPercent(v, digits).slice(0, -1)
}

export { escapeName, formatSize, NOISY_MARK, printable, signedPercent, wrapWords }

/** "-18.4% (-18.9..-17.9)": the change and its 95% interval; "-<0.1%" alone where all three round to less than 0.1. */
export function formatChange(c: Interval): string {
  const tiny = (v: number) => Math.abs(v) < 0.0005
  if (tiny(c.estimate) && tiny(c.low) && tiny(c.high)) return c.estimate === 0 ? '0.0%' : `${c.estimate < 0 ? '-' : '+'}<0.1%`
  return `${signedPercent(c.estimate)} (${signedPoints(c.low, 1)}..${signedPoints(c.high, 1)})`
}

/** Half the interval's width, relative to the estimate: "±0.3%". */
export function relativeHalfWidth(b: Interval): string {
  if (b.estimate === 0) return '±0.0%'
  const half = ((b.high - b.low) / 2 / Math.abs(b.estimate)) * 100
  return half > 0 && half < 0.05 ? '±<0.1%' : `±${half.toFixed(1)}%`
}

/** "41.2 MiB ±0.3%". */
export function formatProjected(b: Interval, exact = false): string {
  return `${formatSize(b.estimate, exact)} ${relativeHalfWidth(b)}`
}

/** Marks a value whose interval is too wide to rank on. */
function timingText(t: Timing | undefined, digits: (v: number) => number): string {
  if (!t || t.value === null || !Number.isFinite(t.value)) return '-'
  return `${t.noisy ? NOISY_MARK : ''}${t.value.toFixed(digits(t.value))}`
}

/** Compression CPU, s/GB: two significant digits for small values, whole seconds from 100. */
export function formatCpu(t: Timing | undefined): string {
  return timingText(t, (v) => (v < 1 ? 2 : v < 100 ? 1 : 0))
}

/** Decompression speed, whole MB/s. */
export function formatSpeed(t: Timing | undefined): string {
  return timingText(t, () => 0)
}

/** "L3", or "files" when the levels are unknown (plain files, no MANIFEST). */
export function levelName(l: Pick<LevelAdvice, 'level'>): string {
  return l.level === null ? 'files' : `L${l.level}`
}

/** "L4 bottom" for the bottommost level. */
export function levelLabel(l: Pick<LevelAdvice, 'level' | 'bottommost'>): string {
  return l.bottommost ? `${levelName(l)} bottom` : levelName(l)
}

export const STOP_TEXT: Record<StopReason, string> = {
  precision: 'precision reached',
  'time-budget': 'time budget spent',
  'all-blocks': 'all blocks',
  'fixed-sample': 'fixed sample size',
  'not-sampled': 'not sampled: keeps today',
}

/** How sampling stopped, and how many files the first pass read when the time budget left some unread. */
export function stopText(l: LevelAdvice): string {
  const partial = l.sample.filesRead < l.files ? `; ${l.sample.filesRead} of ${l.files} files read` : ''
  return STOP_TEXT[l.sample.stopped] + partial
}

/** Today's bytes as every projection is compared with them: the data blocks and the dictionary block. */
export function todayBytes(l: LevelAdvice): number {
  return l.dataBytes + l.todayDictBytes
}

/** The setting in use today: as evaluated, else as OPTIONS says, else as the files say. */
export function todayLabel(l: LevelAdvice): string {
  return l.today?.setting.label ?? l.todayOptions?.label ?? l.todayCompression
}

/** RocksDB's names for the compression types (property rocksdb.compression) → sstkit's short names. */
const PROPERTY_TYPES: Record<string, string> = {
  nocompression: 'none',
  snappy: 'snappy',
  zlib: 'zlib',
  bzip2: 'bzip2',
  lz4: 'lz4',
  lz4hc: 'lz4hc',
  xpress: 'xpress',
  zstd: 'zstd',
  zstdnotfinalcompression: 'zstd',
}

/** The compression types the files name, in sstkit's short names. */
function fileTypes(todayCompression: string): Set<string> {
  const words = todayCompression.toLowerCase().match(/[a-z0-9]+/g) ?? []
  return new Set(words.map((w) => PROPERTY_TYPES[w]).filter((t): t is string => t !== undefined))
}

/** The OPTIONS setting, when the files do not all use its compression type (OPTIONS changed since they were written). */
export function optionsDiffer(l: LevelAdvice): boolean {
  if (!l.todayOptions) return false
  const types = fileTypes(l.todayCompression)
  return types.size > 0 && (types.size > 1 || !types.has(l.todayOptions.type))
}

/** "1.3%", "0.05%": a share with the digits that keep small shares visible. */
export function sharePercent(share: number): string {
  const p = share * 100
  return `${p.toFixed(p >= 10 || p === 0 ? 0 : p >= 1 ? 1 : p >= 0.1 ? 2 : 3)}%`
}

/** Shorten in the middle so that names sharing a prefix stay apart. */
export function trimMiddle(s: string, max: number, head = Math.ceil((max - 1) / 2)): string {
  if (s.length <= max) return s
  const keep = max - 1
  return `${s.slice(0, head)}…${s.slice(s.length - (keep - head))}`
}

/**
 * Each name shortened to `max` columns, no two alike: names whose middle-trimmed forms collide
 * ("transacti…_hash" twice) are cut elsewhere, at the first split that tells them apart, and
 * numbered (#2, #3) when no split does.
 */
export function shortNames(names: string[], max: number): Map<string, string> {
  const out = new Map(names.map((n) => [n, trimMiddle(n, max)]))
  const byShort = new Map<string, string[]>()
  for (const [n, short] of out) byShort.set(short, [...(byShort.get(short) ?? []), n])
  const taken = new Set(out.values())
  for (const [short, group] of byShort) {
    if (group.length < 2) continue
    taken.delete(short)
    // Splits from the middle outwards: more of the head, or more of the tail.
    const splits = Array.from({ length: max }, (_, i) => i).sort((a, b) => Math.abs(a - max / 2) - Math.abs(b - max / 2))
    const split = splits.find((h) => {
      const forms = group.map((n) => trimMiddle(n, max, h))
      return new Set(forms).size === group.length && forms.every((f) => !taken.has(f))
    })
    group.forEach((n, i) => {
      const form = split !== undefined ? trimMiddle(n, max, split) : `${trimMiddle(n, max - 3)}#${i + 1}`
      out.set(n, form)
      taken.add(form)
    })
  }
  return out
}

function sourceLine(advice: Advice): string {
  const s = advice.source
  if (s.kind === 'files') return 'SST files without a MANIFEST (levels unknown)'
  const parts = [s.manifest, s.optionsFile ?? 'no OPTIONS file'].filter((p): p is string => p !== null)
  return `database (${parts.join(', ')})`
}

/** Which version of the database was advised and what RocksDB changed while it was read (null for plain files or an older JSON). */
export function versionLine(advice: Advice): string | null {
  const v = advice.source.version
  if (!v) return null
  const held = v.heldBy === 'none' ? 'files read in place' : `${v.heldFiles} file(s) held by ${v.heldBy === 'hard-links' ? 'hard links' : 'open descriptors'}`
  const parts = [`${v.manifest} up to byte ${v.manifestBytes} (${v.manifestRecords} edits, last sequence ${v.lastSequence}); ${held}`]
  const c = v.changedDuringRun
  if (c) {
    const manifest =
      c.manifest === null
        ? ''
        : c.manifest !== v.manifest
          ? `; CURRENT now names ${c.manifest}`
          : c.manifestBytes !== v.manifestBytes
            ? `; ${c.manifest} now ${c.manifestBytes} bytes`
            : ''
    parts.push(
      c.deletedFiles === 0 && c.addedFiles === 0 && manifest === ''
        ? 'unchanged during the run'
        : `during the run RocksDB deleted ${c.deletedFiles} and added ${c.addedFiles} table file(s)${manifest}`,
    )
  }
  return parts.join('; ')
}

/** The options to set for a column family: a diff against today's OPTIONS section when there is one, else the section to paste. */
export function optionsCode(cf: Advice['columnFamilies'][number]): { code: string; diff: boolean } {
  if (cf.optionsChange) {
    if (cf.optionsChange.length === 0) return { code: '', diff: true }
    // The section header as RocksDB writes it (a newline in the name as \n), so it matches today's file.
    const lines = [`[CFOptions "${rawBytesEscaped(escapeOptionString(cf.name))}"]`]
    for (const c of cf.optionsChange) {
      if (c.today !== null) lines.push(`-  ${c.key}=${c.today}`)
      lines.push(`+  ${c.key}=${c.advised}`)
    }
    return { code: lines.join('\n'), diff: true }
  }
  return { code: rawBytesEscaped(cf.optionsText.replace(/\n+$/, '')), diff: false }
}

/** A name's bytes that are not UTF-8 (format/exact-text.ts) as \xNN: a terminal would show each as U+FFFD. */
const rawBytesEscaped = (s: string) => s.replace(/[\udc80-\udcff]/g, (c) => `\\x${(c.charCodeAt(0) & 0xff).toString(16)}`)

/** Which release the options are written for, or that it is unknown. */
export function releaseLine(advice: Advice): string | null {
  if (advice.source.rocksdbVersion === undefined) return null
  const r = advice.source.rocksdbVersion
  if (r === null) return 'RocksDB release unknown: newest syntax; the release each option needs is listed under it'
  const from = r.from === 'OPTIONS' ? "the OPTIONS file's rocksdb_version" : r.from === 'LOG' ? "the LOG's header" : '--rocksdb-version'
  return `written for RocksDB ${r.version} (${from}): only what it parses, in its syntax`
}

/** Lines under a column family's options: a later release's saving per level, and (release unknown) what each option needs. */
export function optionsFootnotes(advice: Advice, cf: Advice['columnFamilies'][number], size: (bytes: number) => string): string[] {
  const out: string[] = []
  for (const l of cf.levels) {
    const n = l.newerRelease
    if (!n) continue
    const where = l.level === null ? cf.name : `L${l.level}`
    const release = n.since === null ? 'a RocksDB release to come' : `RocksDB ≥ ${n.since}`
    out.push(`with ${release}: ${where} ${n.setting.label}, −${(n.savedShare * 100).toFixed(1)}% more (${size(n.savedBytes)} less)`)
  }
  if (advice.source.rocksdbVersion === null && cf.optionsNeed) {
    for (const n of cf.optionsNeed) {
      if (n.since !== null && Number(n.since.split('.')[0]) < 6) continue
      out.push(`${n.key} as written needs RocksDB ${n.since === null ? 'of a release to come' : `≥ ${n.since}`} (${n.why.join(', ')})`)
    }
  }
  if (hasRawBytes(cf.name)) out.push("the name's bytes that are not UTF-8 are shown as \\xNN: --write-options FILE writes them as they are")
  if (cf.optionsChange?.length)
    out.push(
      "replace these lines in today's section (RocksDB keeps the last of duplicate keys, so adding them below is not enough), or write the whole file with --write-options FILE",
    )
  return out
}

function objectiveLine(advice: Advice): string {
  const o = advice.objective
  const limits = Object.entries(o.limits).map(([k, v]) => `${k}=${v}`)
  return `${o.name} (${[o.description, ...limits].join('; ')})`
}

/** How the sample was drawn: a fixed share of every level (--sample: no time budget applies), or until precision or budget. */
export function samplingRule(advice: Advice): string {
  const rate = advice.evaluation.sampleRate
  if (rate !== null) return `a fixed sample of ${sharePercent(rate)} of each level's blocks (whole levels of up to 256 blocks; no time budget)`
  return `until the 95% interval is within ±${(advice.precision * 100).toFixed(1)}% or ${advice.timeBudgetSec} s are spent`
}

export function samplingLine(advice: Advice): string {
  const parts = [samplingRule(advice), `took ${advice.elapsedSec.toFixed(1)} s`, `seed ${advice.seed}`]
  if (advice.shard) parts.push(`shard ${advice.shard.index + 1} of ${advice.shard.count}`)
  return parts.join('; ')
}

/** Notes that belong to no table: auto-skip per level, files left out, blob files, the engine's notes; each one printable line. */
export function noteLines(advice: Advice): string[] {
  const out: string[] = []
  for (const cf of advice.columnFamilies) {
    for (const l of cf.levels) if (l.autoSkip) out.push(`${escapeName(cf.name)} ${levelLabel(l)}: ${l.autoSkip.note}`)
  }
  const unlisted = advice.source.unlistedFiles
  if (unlisted.length > 0) {
    const shown = unlisted.slice(0, 5).join(', ')
    out.push(`${unlisted.length} SST file(s) on disk that the MANIFEST does not list were left out: ${shown}${unlisted.length > 5 ? ', …' : ''}`)
  }
  out.push(...blobLines(advice), ...applyPlanLines(advice.applyPlan))
  return [...out, ...advice.notes].map(printable)
}

/** How the RocksDB sections of a LevelDB database's advice are labelled. */
const MIGRATION = 'for a migration to RocksDB (a separate suggestion)'

/** A LevelDB database's one option, and why. */
export function levelDbLines(advice: Advice): string[] {
  const l = advice.leveldb
  if (!l) return ['not chosen: the evaluated settings (--types) lack snappy or none, the two LevelDB has']
  return [
    `options.compression = ${l.compression}: ${l.reason} (data blocks ${formatBytes(l.todayBytes)} today; ${formatBytes(l.snappyBytes)} with snappy, ${formatBytes(l.noneBytes)} without)`,
  ]
}

/** Blob files per column family: live bytes that the advice does not cover. */
export function blobLines(advice: Advice): string[] {
  const advised = new Set((advice.blobs ?? []).map((b) => b.columnFamily))
  return (advice.source.blobFiles ?? [])
    .filter((b) => !advised.has(b.columnFamily))
    .map(
      (b) =>
        `column family "${escapeName(b.columnFamily)}" also holds ${b.files} blob file(s), ${formatBytes(b.bytes)}${b.garbageBytes > 0 ? ` (${formatBytes(b.garbageBytes)} of it garbage)` : ''}: values stored in blob files are not in this advice (only the SSTs' data blocks are)`,
    )
}

/** The files left out of the run (a live file missing on disk, a damaged table, a block that could not be read): one line each. */
export function leftOutLines(advice: Advice): string[] {
  return advice.problems.map(problemLine)
}

/** One problem as one printable line: the file, the offset (unless the message has it), the message. */
export function problemLine(p: Advice['problems'][number]): string {
  const offset = p.offset !== null && !p.message.includes(`offset ${p.offset}`) ? `offset ${p.offset}: ` : ''
  return printable(`${p.file}: ${offset}${p.message}`)
}

function anyNoisy(estimates: (SettingEstimate | null | undefined)[]): boolean {
  return estimates.some((e) => e && (e.compressSecPerGB.noisy || e.decompressMBps.noisy))
}

const NOISY_LEGEND = `${NOISY_MARK} noisy timing: its 95% interval is too wide to rank on`

function recommendationEstimates(l: LevelAdvice): (SettingEstimate | null)[] {
  return [l.today, l.recommended.estimate, l.runnerUp?.estimate ?? null]
}

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

function table(model: TableModel, ctx: TextContext, flex?: number): string {
  const fitted = flex === undefined ? model : fitFlexColumn(model, flex, ctx.width)
  return renderTable(fitted, 'table', { color: ctx.color, width: ctx.width })
}

function heading(s: string, ctx: TextContext): string {
  return ctx.color ? `\u001b[1m${s}\u001b[22m` : s
}

/** The first two columns of the per-level tables. */
const LEVEL_COLUMNS: Column[] = [{ header: 'Column family' }, { header: 'Level' }]

/** How a column family is named in its levels' rows: for a terminal on its first level only, trimmed. */
type NameCell = (cf: Pick<ColumnFamilyAdvice, 'name'>, firstLevel: boolean) => Cell
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
const mdName: NameCell = (cf) => mdCode(escapeName(cf.name))

/** Rows for the column families that hold no live file: named, and said empty. */
function emptyRows(advice: Advice, name: NameCell, columns: number): Cell[][] {
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
function levelRows(advice: Advice, name: NameCell, cells: (l: LevelAdvice) => Cell[], gap?: number): Cell[][] {
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

function estimateCells(e: SettingEstimate, exact: boolean, l?: LevelAdvice): Cell[] {
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

function matrixModel(l: LevelAdvice, ctx: TextContext): TableModel {
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

function totalModel(advice: Advice, exact: boolean): TableModel {
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

function samplingModel(advice: Advice, exact: boolean, name: NameCell): TableModel {
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

/**
 * Escape Markdown's inline syntax in free text (reasons, notes); table cells
 * get '|' escaped by renderTable. An underscore inside a word is left alone:
 * GitHub does not read it as emphasis.
 */
export function mdText(s: string): string {
  return s.replace(/[\\`*[\]<>#~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, (c) => `\\${c}`)
}

/** A name as a code span: no Markdown inside, whatever it contains. */
export function mdCode(s: string): string {
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length))
  const ticks = '`'.repeat(longest + 1)
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : ''
  return `${ticks}${pad}${s}${pad}${ticks}`
}

/** A fence longer than any backtick run inside the text. */
function fence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length))
  return '`'.repeat(Math.max(3, longest + 1))
}

function mdTable(model: TableModel): string {
  return renderTable(model, 'markdown')
}

function mdDatabaseModel(advice: Advice): TableModel {
  const rows = levelRows(advice, mdName, (l) => [
    l.files,
    formatBytes(l.fileBytes),
    formatBytes(l.dataBytes),
    l.entries ?? 'unknown',
    mdText(l.todayCompression),
    l.todayOptions ? mdText(l.todayOptions.label) + (optionsDiffer(l) ? ' (differs)' : '') : '',
    l.todayRatio.toFixed(2),
  ])
  rows.push(...(unreadableRows(advice, (n) => mdName({ name: n }, true), 9, 6) as Cell[][]), ...emptyRows(advice, mdName, 9))
  return {
    columns: [
      ...LEVEL_COLUMNS,
      { header: 'Files', align: 'right' },
      { header: 'Size', align: 'right' },
      { header: 'Data blocks', align: 'right' },
      { header: 'Entries', align: 'right' },
      { header: 'Compression (files)' },
      { header: 'OPTIONS' },
      { header: 'Ratio', align: 'right' },
    ],
    rows,
  }
}

function mdEstimateCells(e: SettingEstimate, l?: LevelAdvice): Cell[] {
  return estimateCells(e, false, l).map((c) => mdText(String(c)))
}

function mdRecommendationModel(levels: LevelAdvice[]): TableModel {
  const rows: Cell[][] = []
  for (const l of levels) {
    const today = l.today
    rows.push([
      levelLabel(l),
      'today',
      mdText(todayLabel(l)),
      formatBytes(todayBytes(l)),
      '',
      mdText(formatCpu(today?.compressSecPerGB)),
      mdText(formatSpeed(today?.decompressMBps)),
      '',
    ])
    const rec = l.recommended
    rows.push(['', '**recommended**', `**${mdText(rec.estimate.setting.label)}**`, ...mdEstimateCells(rec.estimate, l), mdText(rec.reason)])
    if (l.runnerUp) rows.push(['', 'runner-up', mdText(l.runnerUp.estimate.setting.label), ...mdEstimateCells(l.runnerUp.estimate), mdText(l.runnerUp.reason)])
  }
  return {
    columns: [
      { header: 'Level' },
      { header: '' },
      { header: 'Setting' },
      { header: 'Projected', align: 'right' },
      { header: 'Change vs today (95%)', align: 'right' },
      { header: 'CPU s/GB', align: 'right' },
      { header: 'Decompress MB/s', align: 'right' },
      { header: 'Why' },
    ],
    rows,
  }
}

/** The text matrix with one-line headers and every cell escaped. */
function mdMatrixModel(l: LevelAdvice): TableModel {
  const m = matrixModel(l, { width: Infinity, color: false, exact: false })
  return {
    columns: m.columns.map((c) => ({ ...c, header: c.header.replace('\n', ' ') || 'Marks' })),
    rows: m.rows.map((r) => r.map((c) => mdText(String(c)))),
  }
}

/** The advice as GitHub-flavoured Markdown (deterministic for the same advice). */
export function renderAdviceMarkdown(advice: Advice): string {
  const out: string[] = []
  out.push(`## sstkit advise: ${advice.source.paths.map(mdCode).join(', ')}`, '')
  out.push(`- **Source:** ${mdText(sourceLine(advice))}`)
  const version = versionLine(advice)
  if (version) out.push(`- **Version:** ${mdText(version)}`)
  out.push(`- **Objective:** ${mdText(objectiveLine(advice))}`)
  out.push(`- **Sampling:** ${mdText(samplingLine(advice))}`)
  const t = advice.total
  out.push(`- **Total:** ${formatBytes(t.todayBytes)} → ${formatProjected(t.projected)}, ${formatChange(t.change)}`)
  if (t.maxBytes) out.push(`- **--max-bytes:** ${formatBytes(t.maxBytes.bytes)}: the projected total ${maxBytesVerdict(t.maxBytes)}`)

  out.push('', '### The database today', '', mdTable(mdDatabaseModel(advice)))
  const leftOut = leftOutLines(advice)
  if (leftOut.length > 0)
    out.push('', `### Left out (${leftOut.length} file${leftOut.length === 1 ? '' : 's'}: not in the advice)`, '', ...leftOut.map((n) => `- ${mdText(n)}`))

  out.push('', advice.source.engine === 'leveldb' ? `### Recommendation per level, ${MIGRATION}` : '### Recommendation per level')
  for (const cf of advice.columnFamilies) {
    out.push('', `#### ${mdName(cf, true)}`, '', mdTable(mdRecommendationModel(cf.levels)))
    const lines = costLines(cf.levels)
    if (lines.length > 0) out.push('', ...lines.map((n) => `- ${mdText(n)}`))
  }
  const all = advice.columnFamilies.flatMap((c) => c.levels)
  if (anyNoisy([...all.flatMap(recommendationEstimates), ...all.flatMap((l) => l.matrix)])) out.push('', mdText(NOISY_LEGEND))

  out.push('', '<details><summary>Every evaluated setting (→ recommended, * on the size-against-CPU Pareto front)</summary>')
  for (const cf of advice.columnFamilies) {
    for (const l of cf.levels) {
      if (notSampled(l)) out.push('', `**${mdName(cf, true)} ${levelLabel(l)}**: ${NOT_SAMPLED_CELL}, keeps today's setting`)
      else {
        out.push('', `**${mdName(cf, true)} ${levelLabel(l)}**`, '', mdTable(mdMatrixModel(l)))
        const costs = costTable(l)
        if (costs)
          out.push(
            '',
            mdTable({
              columns: costs.columns.map((c) => ({ header: c.header, align: c.numeric ? 'right' : undefined })),
              rows: costs.rows.map((r) => r.map((c) => mdText(c))),
            }),
          )
      }
    }
  }
  if (anyReferenceSpeeds(advice)) out.push('', mdText(COST_LEGEND))
  out.push('', '</details>')

  out.push('', '### Total', '', mdTable(totalModel(advice, false)))

  out.push('', '### Sampling', '')
  out.push(mdTable(samplingModel(advice, false, mdName)))
  const notes = noteLines(advice)
  if (notes.length > 0) out.push('', ...notes.map((n) => `- ${mdText(n)}`))

  if (advice.blobs?.length) {
    out.push('', '### Blob files (blob_compression_type)')
    for (const b of advice.blobs) {
      out.push('', mdText(blobSummaryLine(b)))
      if (b.candidates.length) out.push('', mdTable(blobCandidatesModel(b)))
    }
  }

  if (advice.source.engine === 'leveldb') out.push('', '### LevelDB option to set', '', ...levelDbLines(advice).map((l) => `- ${mdText(l)}`))
  out.push('', advice.source.engine === 'leveldb' ? `### RocksDB options, ${MIGRATION}` : '### RocksDB options to set')
  const release = releaseLine(advice)
  if (release) out.push('', mdText(release))
  for (const cf of advice.columnFamilies) {
    const { code: text, diff } = optionsCode(cf)
    out.push('', `#### ${mdName(cf, true)}`, '')
    if (text.trim() === '') out.push('Nothing to change.')
    else out.push(`${fence(text)}${diff ? 'diff' : 'ini'}`, text, fence(text))
    const notes = optionsFootnotes(advice, cf, (b) => formatSize(b, false))
    if (notes.length) out.push('', ...notes.map((n) => `- ${mdText(n)}`))
  }
  return `${out.join('\n')}\n`
}

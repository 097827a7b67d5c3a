/**
 * The advice's numbers, names and lines in words, shared by the text, Markdown and HTML renderers
 * (advise.ts, advise-markdown.ts, advise-html.ts).
 *
 * Signed percentages use ASCII '-' and '+', as the recompress report does.
 */
import { applyPlanLines } from './advise-apply.js'
import type { Advice, Interval, LevelAdvice, SettingEstimate, StopReason, Timing } from '../types/advice.js'
import { hasRawBytes } from '../format/exact-text.js'
import { blockSizeOptionsDiff } from './advise-block-size.js'
import { noteText } from './advise-notes.js'
import { optionsSectionHeader, rawBytesEscaped } from './options-section.js'
import { escapeName, formatBytes, formatSize, NOISY_MARK, printable, signedPercent, wrapWords } from './text.js'

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

export function sourceLine(advice: Advice): string {
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

/**
 * The options to set for a column family: a diff against today's OPTIONS sections when there is one
 * (its CFOptions section, then its TableOptions/BlockBasedTable section where block_size is advised),
 * else the section to paste.
 */
export function optionsCode(cf: Advice['columnFamilies'][number]): { code: string; diff: boolean } {
  if (cf.optionsChange) {
    const parts: string[] = []
    if (cf.optionsChange.length > 0) {
      // The section header as RocksDB writes it (a newline in the name as \n), so it matches today's file.
      const lines = [optionsSectionHeader('CFOptions', cf.name)]
      for (const c of cf.optionsChange) {
        if (c.today !== null) lines.push(`-  ${c.key}=${c.today}`)
        lines.push(`+  ${c.key}=${c.advised}`)
      }
      parts.push(lines.join('\n'))
    }
    const table = cf.blockSize ? blockSizeOptionsDiff(cf.blockSize) : ''
    if (table) parts.push(table)
    return { code: parts.join('\n'), diff: true }
  }
  return { code: rawBytesEscaped(cf.optionsText.replace(/\n+$/, '')), diff: false }
}

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
  const table = cf.blockSize !== undefined && blockSizeOptionsDiff(cf.blockSize) !== ''
  if (cf.optionsChange?.length || table)
    out.push(
      `replace these lines in today's section${cf.optionsChange?.length && table ? 's' : ''} (RocksDB keeps the last of duplicate keys, so adding them below is not enough), or write the whole file with --write-options FILE`,
    )
  return out
}

export function objectiveLine(advice: Advice): string {
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
  return [...out, ...advice.notes.map(noteText)].map(printable)
}

/** How the RocksDB sections of a LevelDB database's advice are labelled. */
export const MIGRATION = 'for a migration to RocksDB (a separate suggestion)'

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

export function anyNoisy(estimates: (SettingEstimate | null | undefined)[]): boolean {
  return estimates.some((e) => e && (e.compressSecPerGB.noisy || e.decompressMBps.noisy))
}

export const NOISY_LEGEND = `${NOISY_MARK} noisy timing: its 95% interval is too wide to rank on`

export function recommendationEstimates(l: LevelAdvice): (SettingEstimate | null)[] {
  return [l.today, l.recommended.estimate, l.runnerUp?.estimate ?? null]
}

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

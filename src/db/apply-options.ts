/**
 * The advice applied to today's OPTIONS file. RocksDB keeps the last of duplicate keys in a section
 * without a word, so pasting the advised lines under today's is not an edit: each advised key
 * replaces today's line (a diff), and an OPTIONS file with the advice applied is written whole.
 *
 * compression_opts and bottommost_compression_opts in the brace form are merged field by field
 * into today's value: fields advise does not set (parallel_threads, window_bits, ...) keep today's
 * value, and a zstd checksum today's value turns on is turned off when the advice does not want it.
 */
import type { DbOptions } from '../db/options.js'
import { type OptionsFile, columnFamilySections, encodeOptionsFile, encodeOptionMap, parseOptionMap, parseOptionsFile } from '../format/options-file.js'
import type { AdviceNote, BlockSizeAdvice, ColumnFamilyAdvice } from '../types/advice.js'

export interface OptionChange {
  key: string
  /** Today's value in the section (null: not set, RocksDB's default applies). */
  today: string | null
  advised: string
}

/** The lines of a column family's section the advice changes (keys whose value is the same today are left out). */
export function optionsChange(today: Record<string, string> | null, advised: Record<string, string>): OptionChange[] {
  const out: OptionChange[] = []
  for (const [key, value] of Object.entries(advised)) {
    const now = today?.[key] ?? null
    const next = key.endsWith('compression_opts') && now !== null ? mergeCompressionOpts(now, value) : value
    if (next !== now) out.push({ key, today: now, advised: next })
  }
  return out
}

/** Today's brace-form value with the advised fields set; the advised value as is when either is in the colon form. */
export function mergeCompressionOpts(today: string, advised: string): string {
  if (!today.trim().startsWith('{') || !advised.startsWith('{')) return advised
  let base: Map<string, string>
  try {
    base = parseOptionMap(today)
  } catch {
    return advised
  }
  const set = parseOptionMap(advised)
  for (const [k, v] of set) base.set(k, v)
  if (base.get('checksum') === 'true' && !set.has('checksum')) base.set('checksum', 'false')
  // The advice trains a zstd dictionary by leaving use_zstd_dict_trainer at its default: undo today's finalize.
  if (base.get('use_zstd_dict_trainer') === 'false' && !set.has('use_zstd_dict_trainer') && Number(set.get('zstd_max_train_bytes') ?? 0) > 0)
    base.set('use_zstd_dict_trainer', 'true')
  return encodeOptionMap(base)
}

/**
 * `file` with each advised column family's changes applied in place (an advised key not in the
 * section is added at its end). Column families the file has no section for are returned by name.
 */
export function applyAdvice(file: OptionsFile, families: Pick<ColumnFamilyAdvice, 'name' | 'options'>[]): { file: OptionsFile; missing: string[] } {
  const missing: string[] = []
  const sections = file.sections.map((s) => ({ ...s, entries: new Map(s.entries) }))
  const copy: OptionsFile = { ...file, sections }
  for (const cf of families) {
    const found = columnFamilySections(copy, cf.name)
    if (!found) {
      missing.push(cf.name)
      continue
    }
    for (const c of optionsChange(Object.fromEntries(found.cf.entries), cf.options)) found.cf.entries.set(c.key, c.advised)
  }
  return { file: copy, missing }
}

/** Each column family's `optionsChange` against its section of today's OPTIONS file. */
export function addOptionsChanges(families: ColumnFamilyAdvice[], today: DbOptions): void {
  for (const cf of families) cf.optionsChange = optionsChange(today.columnFamilies.find((c) => c.name === cf.name)?.raw ?? null, cf.options)
}

/**
 * Today's OPTIONS file (`text`, read from `today.path`) with the advice applied, as text to write;
 * `note` names the column families it has no section for (left as they are).
 */
export function advisedOptionsFile(text: string, today: DbOptions, families: ColumnFamilyAdvice[]): { text: string; note: AdviceNote | null } {
  const { file, missing } = applyAdvice(parseOptionsFile(text, today.path), families)
  const note: AdviceNote | null = missing.length ? { code: 'write-options-missing-sections', file: today.path, columnFamilies: missing } : null
  return { text: encodeOptionsFile(file), note }
}

/** Today's OPTIONS file text with each advised block_size set in its column family's table section. */
export function applyBlockSizes(text: string, path: string, advices: readonly Pick<BlockSizeAdvice, 'columnFamily' | 'today' | 'recommended'>[]): string {
  const file = parseOptionsFile(text, path)
  let changed = false
  for (const a of advices) {
    if (a.recommended === null || a.recommended === a.today) continue
    const table = columnFamilySections(file, a.columnFamily)?.table
    if (!table) continue
    table.entries.set('block_size', String(a.recommended))
    changed = true
  }
  return changed ? encodeOptionsFile(file) : text
}

/**
 * The RocksDB options that put the advice into effect, in OPTIONS-file syntax.
 *
 * RocksDB picks a file's compression by the level it is written to
 * (db/compaction/compaction_picker.cc GetCompressionType, GetCompressionOptions):
 * `bottommost_compression` (with `bottommost_compression_opts`, when their
 * `enabled=true`) for the bottommost level, else `compression_per_level[i]`,
 * else `compression`; every level but the bottommost shares one
 * `compression_opts` (level, dictionary, checksum). With
 * level_compaction_dynamic_level_bytes, entry i > 0 of compression_per_level
 * applies to level base_level + i - 1.
 */

import { DEFAULT_COMPRESSION_LEVEL, effectiveLevel } from '../codec/setting.js'
import { encodeOptionsSection } from '../format/options-file.js'
import type { DictOptions as DictionaryOptions, SettingSpec } from '../types/advice.js'
import {
  atLeast,
  bottommostOwnOpts,
  compressionOptsNeeds,
  compressionOptsValue,
  laterRelease,
  optionSince,
  type RocksdbVersion,
  typeNameSince,
} from './option-syntax.js'
import { dictionaryOptionsOf, optionName, sameDictOptions, typeByte } from '../decide/settings.js'

/** Types whose behaviour compression_opts' level changes. */
const LEVELLED = new Set(['zstd', 'zlib', 'lz4hc'])
/** Types that use a dictionary when compression_opts has max_dict_bytes > 0. */
const DICTIONARY_USERS = new Set(['zstd', 'zlib', 'lz4', 'lz4hc'])

/**
 * Whether `s` behaves as evaluated when the shared compression_opts are those
 * of `carrier`: same effective level where the type has levels, same
 * dictionary mode where the type uses one, same checksum for zstd.
 */
export function sharesOpts(s: SettingSpec, carrier: SettingSpec): boolean {
  const level = (x: SettingSpec) => effectiveLevel(typeByte(x), x.level)
  if (DICTIONARY_USERS.has(s.type)) {
    const carried = carrier.dict === 'none' ? 'none' : s.type === 'zstd' ? carrier.dict : 'raw'
    if (s.dict !== carried) return false
    // A dictionary of other options than the carrier's (today's own) would not be the one evaluated.
    if (carried !== 'none' && !sameDictOptions(s.dictOptions, carrier.dictOptions)) return false
  }
  if (LEVELLED.has(s.type)) {
    const carried = carrier.level === null ? effectiveLevel(typeByte(s), null) : carrier.level
    if (level(s) !== carried) return false
  }
  if (s.type === 'lz4' && carrier.level !== null && carrier.level < 0 && s.level !== carrier.level) return false
  if (s.type === 'zstd' && s.checksum !== carrier.checksum) return false
  if (s.type !== 'none' && s.maxCompressedBytesPerKb !== carrier.maxCompressedBytesPerKb) return false
  return true
}

/** Whether a setting depends on compression_opts at all (a level, a dictionary, a checksum). */
export function needsOpts(s: SettingSpec): boolean {
  return LEVELLED.has(s.type) || s.dict !== 'none' || s.checksum || (s.type === 'lz4' && s.level !== null)
}

/**
 * `dict`: the run's dictionary options, for a setting without its own (today's keeps today's exact sizes).
 * `version`: the database's RocksDB release, for its syntax and the fields it parses (null: the newest).
 */
export function compressionOptsText(s: SettingSpec, run: DictionaryOptions, enabled: boolean, version: RocksdbVersion | null = null): string {
  return compressionOptsValue(compressionOptsFields(s, run, enabled), version)
}

/** compression_opts' fields for `s`, in the order written. */
export function compressionOptsFields(s: SettingSpec, run: DictionaryOptions, enabled: boolean): [string, string][] {
  const dict = dictionaryOptionsOf(s, run)
  const fields: [string, string | number | boolean][] = [['level', s.level ?? DEFAULT_COMPRESSION_LEVEL]]
  if (s.dict === 'none') fields.push(['max_dict_bytes', 0], ['zstd_max_train_bytes', 0])
  else {
    fields.push(['max_dict_bytes', dict.maxDictBytes], ['zstd_max_train_bytes', s.dict === 'raw' ? 0 : dict.trainBytes])
    // The trainer is RocksDB's default (use_zstd_dict_trainer=true): written only for finalize, which needs 7.3.
    if (s.dict === 'finalize') fields.push(['use_zstd_dict_trainer', false])
    fields.push(['max_dict_buffer_bytes', dict.maxDictBufferBytes])
  }
  // CompressionOptions::checksum exists from RocksDB 8.6: written only when wanted.
  if (s.checksum) fields.push(['checksum', true])
  // max_compressed_bytes_per_kb exists from RocksDB 8.2: written only for a setting with its own (today's).
  if (s.maxCompressedBytesPerKb !== undefined) fields.push(['max_compressed_bytes_per_kb', s.maxCompressedBytesPerKb])
  if (enabled) fields.push(['enabled', true])
  return fields.map(([k, v]) => [k, String(v)])
}

export interface LevelChoice {
  level: number
  bottommost: boolean
  setting: SettingSpec
}

export interface OptionsPlan {
  columnFamily: string
  /** null: levels unknown (plain files): one setting for the column family. */
  levels: LevelChoice[] | null
  single: SettingSpec | null
  /** level_compaction_dynamic_level_bytes, and the base level it implies. */
  dynamicLevels: { baseLevel: number } | null
  /** Today's `compression` and `compression_per_level` (the OPTIONS file's section); null or absent: unknown. */
  today?: TodayCompression | null
}

export interface TodayCompression {
  compression: string
  compressionPerLevel: string[]
}

/** Options as key → value, in the order an OPTIONS file section lists them. */
export function optionsFor(plan: OptionsPlan, dict: DictionaryOptions, version: RocksdbVersion | null = null): Record<string, string> {
  if (plan.single) return { compression: optionName(plan.single), compression_opts: compressionOptsText(plan.single, dict, false, version) }
  const levels = plan.levels ?? []
  const upper = levels.filter((l) => !l.bottommost)
  const bottom = levels.find((l) => l.bottommost) ?? null
  const out: Record<string, string> = {}
  const ownBottom = bottommostOwnOpts(version)
  const deepestUpper = upper.length ? Math.max(...upper.map((l) => l.level)) : -1
  if (upper.length) {
    const byLevel = new Map(upper.map((l) => [l.level, l.setting]))
    // An empty level takes the next deeper upper level's choice (data passes through it on the way down), else the nearest above.
    const at = (level: number): SettingSpec => {
      for (let l = level; l <= deepestUpper; l++) if (byLevel.has(l)) return byLevel.get(l)!
      for (let l = level; l >= 0; l--) if (byLevel.has(l)) return byLevel.get(l)!
      return upper[0].setting
    }
    const last = bottom ? bottom.level : deepestUpper
    const entries: string[] = []
    if (plan.dynamicLevels) {
      const base = plan.dynamicLevels.baseLevel
      entries.push(optionName(at(0)))
      for (let level = base; level <= last; level++) entries.push(optionName(level === last && bottom ? bottom.setting : at(level)))
    } else for (let level = 0; level <= last; level++) entries.push(optionName(level === last && bottom ? bottom.setting : at(level)))
    const carrier = largest(ownBottom || !bottom ? upper : [...upper, bottom])
    out.compression = optionName(carrier)
    out.compression_per_level = entries.join(':')
    out.compression_opts = compressionOptsText(carrier, dict, false, version)
  }
  if (bottom) {
    const bottommostOption = version === null || atLeast(version, optionSince('bottommost_compression'))
    // Levels above that hold no data were not sampled: `compression` (flushes, upper levels) stays today's.
    // Before 4.9 compression_per_level alone sets the last level: today's entries above it, where known.
    if (!upper.length && !bottommostOption) {
      if (plan.today) out.compression_per_level = [...todayEntries(plan.today, bottom.level, plan.dynamicLevels !== null), optionName(bottom.setting)].join(':')
      else out.compression = optionName(bottom.setting)
    }
    if (bottommostOption) out.bottommost_compression = optionName(bottom.setting)
    if (ownBottom) out.bottommost_compression_opts = compressionOptsText(bottom.setting, dict, true, version)
    // Before 5.15 the bottommost level reads the one compression_opts.
    else if (!upper.length) out.compression_opts = compressionOptsText(bottom.setting, dict, false, version)
  }
  // A compression_per_level whose every entry is what `compression` gives, where today has none, changes nothing.
  const perLevel = out.compression_per_level
  const compression = out.compression ?? plan.today?.compression
  if (perLevel !== undefined && plan.today?.compressionPerLevel.length === 0 && perLevel.split(':').every((e) => e === compression))
    delete out.compression_per_level
  return out
}

/** Today's compression_per_level entries for L0 up to (not including) `last`: one entry for L0 under dynamic levels (the base level is `last`). */
function todayEntries(today: TodayCompression, last: number, dynamic: boolean): string[] {
  const n = today.compressionPerLevel.length
  const at = (idx: number) => (n === 0 ? today.compression : today.compressionPerLevel[Math.min(idx, n - 1)])
  return dynamic ? [at(0)] : Array.from({ length: last }, (_, level) => at(level))
}

/** The carrier of the shared compression_opts: the setting of the upper levels that most needs them (levels first, then dictionaries). */
function largest(upper: LevelChoice[]): SettingSpec {
  const weight = (s: SettingSpec) => (needsOpts(s) ? 1 : 0)
  return [...upper].sort((a, b) => weight(b.setting) - weight(a.setting) || b.level - a.level)[0].setting
}

export function optionsText(columnFamily: string, options: Record<string, string>): string {
  return encodeOptionsSection({ title: 'CFOptions', argument: columnFamily, entries: new Map(Object.entries(options)) }).trimEnd()
}

/** Per option written, the first RocksDB release that parses its name and value as written (see option-versions.ts). */
export function optionsNeed(options: Record<string, string>): { key: string; since: string | null; why: string[] }[] {
  return Object.entries(options).map(([key, value]) => {
    const needs: { what: string; since: string | null }[] = [{ what: key, since: optionSince(key) }]
    if (key.endsWith('_opts')) needs.push(...compressionOptsNeeds(value))
    else for (const name of value.split(':').filter((n) => n !== '')) needs.push({ what: name, since: typeNameSince(name) })
    const since = needs.reduce<string | null>((acc, n) => laterRelease(acc, n.since), '0.0')
    return { key, since, why: [...new Set(needs.filter((n) => n.since === since).map((n) => n.what))] }
  })
}

/**
 * A database's options as its newest OPTIONS-NNNNNN file states them, per column family, and
 * RocksDB's rule for which compression a file written to a level gets.
 *
 * Values missing from a file fall back to RocksDB's defaults (`include/rocksdb/options.h`,
 * `advanced_options.h`, `table.h`, `util/compression.h` CompressionOptions); every OPTIONS file
 * RocksDB writes lists them all, so the fallbacks matter only for hand-edited files.
 *
 * Values are read as RocksDB reads them (`options/options_helper.cc`): a double as `std::stod`
 * does, and with a decimal comma as the process that wrote it reads it back (RocksDB writes
 * doubles with `std::to_string`, which follows the writer's LC_NUMERIC: rocksdbjni under a German
 * locale writes `max_bytes_for_level_multiplier=10,000000`). A value that cannot be read is an
 * error citing its own line when the compression decision needs it (COMPRESSION_KEYS), else a
 * note, and the default stands in: an option the decision does not use never stops it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { compressionOptionName } from '../codec/compression.js'
import { COMPRESSION_DEFAULTS, DEFAULT_COMPRESSION_LEVEL } from '../codec/setting.js'
import { CorruptionError } from '../format/errors.js'
import { exactText } from '../format/exact-text.js'
import type { DatabaseNote } from '../types/advice.js'
import {
  OPTIONS_SECTION,
  columnFamilySections,
  parseOptionMap,
  parseOptionsFile,
  unescapeOptionString,
  type OptionsFile,
  type OptionsSection,
} from '../format/options-file.js'

export interface CompressionOpts {
  level: number
  windowBits: number
  strategy: number
  maxDictBytes: number
  zstdMaxTrainBytes: number
  parallelThreads: number
  enabled: boolean
  maxDictBufferBytes: number
  useZstdDictTrainer: boolean
  /** zstd frame content checksum (RocksDB >= 8.6). */
  checksum: boolean
  /** The acceptance rule: a block is kept compressed at most this many bytes per KiB of input (RocksDB >= 8.2; 896 = the 7/8 rule before). */
  maxCompressedBytesPerKb: number
}

export interface ColumnFamilyOptions {
  name: string
  /** Option names as RocksDB writes them: kZSTD, kLZ4Compression, kNoCompression, ... */
  compression: string
  compressionPerLevel: string[]
  /** kDisableCompressionOption when not set. */
  bottommostCompression: string
  compressionOpts: CompressionOpts
  bottommostCompressionOpts: CompressionOpts
  numLevels: number
  levelCompactionDynamicLevelBytes: boolean
  /** kCompactionStyleLevel, kCompactionStyleUniversal, kCompactionStyleFIFO, kCompactionStyleNone. */
  compactionStyle: string
  maxBytesForLevelBase: number
  maxBytesForLevelMultiplier: number
  /** target_file_size_base and _multiplier: a compaction's output files, and the dictionary buffer of each (advise). */
  targetFileSizeBase: number
  targetFileSizeMultiplier: number
  // From [TableOptions/BlockBasedTable "name"].
  blockSize: number
  formatVersion: number
  /** kCRC32c, kxxHash, kxxHash64, kXXH3, kNoChecksum. */
  checksum: string
  blockRestartInterval: number
  /** separate_key_value_in_data_block (RocksDB 11.0+; default false): data blocks with their values after the keys. */
  separateKeyValue: boolean
  /** enable_index_compression (default true): false stores index blocks raw. */
  indexCompression: boolean
  /** The table factory's section title (TableOptions/BlockBasedTable), null when there is none. */
  tableFactory: string | null
  /** Every CFOptions statement, raw; table options under "table." + key. */
  raw: Record<string, string>
}

export interface DbOptions {
  path: string
  rocksdbVersion: string | null
  columnFamilies: ColumnFamilyOptions[]
  /** Values read otherwise than written (a decimal comma), values ignored, sections skipped (databaseNoteText words them). */
  notes: DatabaseNote[]
}

/**
 * The options RocksDB's choice of a file's compression depends on (compressionForLevel and
 * dynamicBaseLevel): a value of these that cannot be read is an error; of any other, a note.
 */
export const COMPRESSION_KEYS: ReadonlySet<string> = new Set([
  'compression',
  'compression_per_level',
  'bottommost_compression',
  'compression_opts',
  'bottommost_compression_opts',
  'num_levels',
  'level_compaction_dynamic_level_bytes',
  'compaction_style',
  'max_bytes_for_level_base',
  'max_bytes_for_level_multiplier',
])

/** RocksDB's CompressionOptions defaults (what an OPTIONS file means by a field it leaves out); the values codec/setting.ts also uses come from there. */
export const DEFAULT_COMPRESSION_OPTS: Readonly<CompressionOpts> = Object.freeze({
  level: DEFAULT_COMPRESSION_LEVEL,
  windowBits: -14,
  strategy: COMPRESSION_DEFAULTS.strategy,
  maxDictBytes: 0,
  zstdMaxTrainBytes: 0,
  parallelThreads: 1,
  enabled: false,
  maxDictBufferBytes: 0,
  useZstdDictTrainer: true,
  checksum: COMPRESSION_DEFAULTS.zstdChecksum,
  maxCompressedBytesPerKb: COMPRESSION_DEFAULTS.maxCompressedBytesPerKb,
})

export const DISABLE_COMPRESSION_OPTION = compressionOptionName(0xff)

const DEFAULTS = {
  compression: compressionOptionName(1), // kSnappyCompression
  numLevels: 7,
  compactionStyle: 'kCompactionStyleLevel',
  maxBytesForLevelBase: 256 * 1024 * 1024,
  maxBytesForLevelMultiplier: 10,
  targetFileSizeBase: 64 * 1024 * 1024,
  targetFileSizeMultiplier: 1,
  blockSize: 4096,
  formatVersion: 6,
  checksum: 'kXXH3',
  blockRestartInterval: 16,
} as const

const OPTIONS_FILE = /^OPTIONS-(\d+)$/

/** The newest OPTIONS file of a directory (highest number), or null. */
export function newestOptionsFile(dir: string): string | null {
  let best: { n: number; name: string } | null = null
  for (const name of readdirSync(dir)) {
    const m = OPTIONS_FILE.exec(name)
    if (m && (best === null || Number(m[1]) > best.n)) best = { n: Number(m[1]), name }
  }
  return best === null ? null : join(dir, best.name)
}

/** Options of the newest OPTIONS file in `dir`, or null when it has none. */
export function readNewestOptions(dir: string): DbOptions | null {
  const path = newestOptionsFile(dir)
  return path === null ? null : readOptionsFile(path)
}

export function readOptionsFile(path: string): DbOptions {
  // Column family names are bytes: read exactly (format/exact-text.ts), so that they match the MANIFEST's.
  return dbOptionsFrom(parseOptionsFile(exactText(readFileSync(path)), path), path)
}

/** The typed view of a parsed OPTIONS file. */
export function dbOptionsFrom(file: OptionsFile, path: string): DbOptions {
  const version = file.sections.find((s) => s.title === OPTIONS_SECTION.Version)
  const notes: DatabaseNote[] = file.skipped.map((s) => ({ code: 'options-section-skipped', file: path, line: s.line, section: s.title }))
  const columnFamilies = file.sections
    .filter((s) => s.title === OPTIONS_SECTION.CFOptions && s.argument !== null)
    .map((s) => columnFamilyOptions(file, s.argument as string, path, notes))
  return { path, rocksdbVersion: version?.entries.get('rocksdb_version') ?? null, columnFamilies, notes }
}

function columnFamilyOptions(file: OptionsFile, name: string, path: string, notes: DatabaseNote[]): ColumnFamilyOptions {
  const sections = columnFamilySections(file, name)
  if (!sections) throw new CorruptionError(`${path}: no [CFOptions "${name}"] section`)
  const { cf, table } = sections
  const raw: Record<string, string> = Object.fromEntries(cf.entries)
  if (table) for (const [k, v] of table.entries) raw[`table.${k}`] = v
  // One value of a section, parsed where it is set; `where` cites the file, the value's own line and the key.
  const read = <T>(section: OptionsSection | null, key: string, fallback: T, parse: (v: string, where: string, at: { line: number; key: string }) => T): T => {
    const v = section?.entries.get(key)
    if (section === null || v === undefined || v === '') return fallback
    const line = section.lines.get(key) ?? section.line
    const where = `${path}:${line}: ${key}`
    try {
      return parse(v, where, { line, key })
    } catch (e) {
      if (!(e instanceof CorruptionError) || COMPRESSION_KEYS.has(key)) throw e
      notes.push({ code: 'option-not-used', problem: e.message, default: String(fallback) })
      return fallback
    }
  }
  const int = (v: string, where: string) => parseIntOption(v, where)
  const double = (v: string, where: string, at: { line: number; key: string }) =>
    parseDoubleOption(v, where, (readAs) => notes.push({ code: 'option-decimal-comma', file: path, ...at, value: v, readAs }))
  const text = (v: string) => v
  const perLevel = read(cf, 'compression_per_level', '', text)
  return {
    name,
    compression: read(cf, 'compression', DEFAULTS.compression, text),
    compressionPerLevel: perLevel ? perLevel.split(':').filter((s) => s !== '') : [],
    bottommostCompression: read(cf, 'bottommost_compression', DISABLE_COMPRESSION_OPTION, text),
    compressionOpts: read(cf, 'compression_opts', { ...DEFAULT_COMPRESSION_OPTS }, compressionOpts),
    bottommostCompressionOpts: read(cf, 'bottommost_compression_opts', { ...DEFAULT_COMPRESSION_OPTS }, compressionOpts),
    numLevels: read(cf, 'num_levels', DEFAULTS.numLevels, int),
    levelCompactionDynamicLevelBytes: read(cf, 'level_compaction_dynamic_level_bytes', false, parseBoolOption),
    compactionStyle: read(cf, 'compaction_style', DEFAULTS.compactionStyle, text),
    maxBytesForLevelBase: read(cf, 'max_bytes_for_level_base', DEFAULTS.maxBytesForLevelBase, int),
    maxBytesForLevelMultiplier: read(cf, 'max_bytes_for_level_multiplier', DEFAULTS.maxBytesForLevelMultiplier, double),
    targetFileSizeBase: read(cf, 'target_file_size_base', DEFAULTS.targetFileSizeBase, int),
    targetFileSizeMultiplier: read(cf, 'target_file_size_multiplier', DEFAULTS.targetFileSizeMultiplier, int),
    blockSize: read(table, 'block_size', DEFAULTS.blockSize, int),
    formatVersion: read(table, 'format_version', DEFAULTS.formatVersion, int),
    checksum: read(table, 'checksum', DEFAULTS.checksum, text),
    blockRestartInterval: read(table, 'block_restart_interval', DEFAULTS.blockRestartInterval, int),
    separateKeyValue: read(table, 'separate_key_value_in_data_block', false, parseBoolOption),
    indexCompression: read(table, 'enable_index_compression', true, parseBoolOption),
    tableFactory: table?.title ?? null,
    raw,
  }
}

/** A decimal number as RocksDB writes one: digits, an optional fraction after '.' (or ',', see below), an exponent. */
const DOUBLE = /^\s*([+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?)\s*$/

/**
 * A double option. A decimal comma (`10,000000`) is read as the locale that wrote it reads it
 * back (10.0) and noted: RocksDB under the C locale (std::stod) would stop at the comma, which
 * gives the same value whenever the fraction is zero, as it is for every double RocksDB's own
 * defaults write.
 */
export function parseDoubleOption(v: string, where: string, onDecimalComma?: (readAs: number) => void): number {
  const m = DOUBLE.exec(v)
  if (!m) throw new CorruptionError(`${where}: '${v}' is not a number`)
  const n = Number(m[1].replace(',', '.'))
  if (!Number.isFinite(n)) throw new CorruptionError(`${where}: '${v}' is not a number`)
  if (m[1].includes(',')) onDecimalComma?.(n)
  return n
}

const SUFFIX_SHIFT: Record<string, number> = { k: 10, m: 20, g: 30, t: 40 }

/** An integer option, with the k/m/g/t suffixes (powers of 1024) RocksDB's ParseUint64 takes. */
function parseIntOption(v: string, where: string): number {
  const m = /^\s*([+-]?\d+)([kmgtKMGT]?)\s*$/.exec(v)
  const n = m ? Number(m[1]) * 2 ** (SUFFIX_SHIFT[m[2].toLowerCase()] ?? 0) : Number.NaN
  if (!Number.isSafeInteger(n)) throw new CorruptionError(`${where}: '${v}' is not ${Number.isFinite(Number(v)) ? 'an integer' : 'a number'}`)
  return n
}

function parseBoolOption(v: string, where: string): boolean {
  if (v === 'true' || v === '1') return true
  if (v === 'false' || v === '0') return false
  throw new CorruptionError(`${where}: '${v}' is not a boolean`)
}

/** Option-map keys of CompressionOptions, in the order of its legacy colon form. */
const COMPRESSION_OPTS_KEYS: [keyof CompressionOpts, string][] = [
  ['windowBits', 'window_bits'],
  ['level', 'level'],
  ['strategy', 'strategy'],
  ['maxDictBytes', 'max_dict_bytes'],
  ['zstdMaxTrainBytes', 'zstd_max_train_bytes'],
  ['parallelThreads', 'parallel_threads'],
  ['enabled', 'enabled'],
  ['maxDictBufferBytes', 'max_dict_buffer_bytes'],
  ['useZstdDictTrainer', 'use_zstd_dict_trainer'],
  ['checksum', 'checksum'],
  ['maxCompressedBytesPerKb', 'max_compressed_bytes_per_kb'],
]

/**
 * compression_opts / bottommost_compression_opts: the struct form `{level=3;max_dict_bytes=...}`
 * RocksDB writes today, or the legacy `window_bits:level:strategy:max_dict_bytes[:zstd_max_train_bytes
 * [:parallel_threads[:enabled[:max_dict_buffer_bytes[:use_zstd_dict_trainer]]]]]` form.
 */
export function compressionOpts(value: string | undefined, where: string): CompressionOpts {
  const out: CompressionOpts = { ...DEFAULT_COMPRESSION_OPTS }
  if (value === undefined || value.trim() === '') return out
  const v = value.trim()
  const set = (field: keyof CompressionOpts, text: string, key: string) => {
    const fallback = DEFAULT_COMPRESSION_OPTS[field]
    if (text === '') return
    ;(out as unknown as Record<string, number | boolean>)[field] =
      typeof fallback === 'boolean' ? parseBoolOption(text, `${where}.${key}`) : parseIntOption(text, `${where}.${key}`)
  }
  if (!v.startsWith('{') && !v.includes('=')) {
    const parts = v.split(':')
    if (parts.length < 4) throw new CorruptionError(`${where}: '${v}' has fewer than 4 ':'-separated fields`)
    parts.forEach((p, i) => {
      if (i < COMPRESSION_OPTS_KEYS.length) set(COMPRESSION_OPTS_KEYS[i][0], p, COMPRESSION_OPTS_KEYS[i][1])
    })
    return out
  }
  const map = parseOptionMap(v, where)
  for (const [field, key] of COMPRESSION_OPTS_KEYS) {
    const text = map.get(key)
    if (text !== undefined) set(field, unescapeOptionString(text), key)
  }
  return out
}

export interface LevelContext {
  /** The output level is the bottommost non-empty level (level >= num_non_empty_levels - 1). */
  bottommost: boolean
  /**
   * The LSM's base level (where L0 compacts to). Default: 1 for level compaction without
   * level_compaction_dynamic_level_bytes, -1 for other styles (RocksDB's static base level);
   * with dynamic level bytes pass `dynamicBaseLevel(...)` of the level sizes at write time.
   */
  baseLevel?: number
  /** The file is a memtable flush (RocksDB's GetCompressionFlush: no bottommost override). */
  flush?: boolean
}

/**
 * Which compression, and which compression options, RocksDB gives a file written to `level`
 * (`db/compaction/compaction_picker.cc` GetCompressionType / GetCompressionOptions, and
 * `db/db_impl/db_impl.cc` GetCompressionFlush for flushes):
 *
 * 1. Compaction output to the bottommost level (level >= num_non_empty_levels - 1) uses
 *    bottommost_compression when it is not kDisableCompressionOption.
 * 2. Else, when compression_per_level is non-empty, entry idx = 0 for L0 and
 *    level - base_level + 1 above it, clamped to [0, n - 1] (levels past its end use its last
 *    entry). With level_compaction_dynamic_level_bytes the base level moves with the data, so
 *    the same level maps to different entries over time.
 * 3. Else compression.
 * Options: compaction output to the bottommost level uses bottommost_compression_opts when its
 * `enabled` is true (independently of rule 1), else compression_opts.
 * A flush uses compression_per_level[0] when it is set, else compression, and compression_opts.
 * (Universal compaction with compression_size_percent >= 0 flushes uncompressed; not modelled.)
 */
export function compressionForLevel(cf: ColumnFamilyOptions, level: number, ctx: LevelContext): { compression: string; opts: CompressionOpts } {
  const bottommost = ctx.bottommost && !ctx.flush
  const opts = bottommost && cf.bottommostCompressionOpts.enabled ? cf.bottommostCompressionOpts : cf.compressionOpts
  if (bottommost && cf.bottommostCompression !== DISABLE_COMPRESSION_OPTION) {
    return { compression: cf.bottommostCompression, opts }
  }
  const perLevel = cf.compressionPerLevel
  if (perLevel.length === 0) return { compression: cf.compression, opts }
  if (ctx.flush) return { compression: perLevel[0], opts }
  const base = ctx.baseLevel ?? staticBaseLevel(cf)
  const idx = level === 0 ? 0 : level - base + 1
  return { compression: perLevel[Math.max(0, Math.min(idx, perLevel.length - 1))], opts }
}

function staticBaseLevel(cf: ColumnFamilyOptions): number {
  return cf.compactionStyle === 'kCompactionStyleLevel' ? 1 : -1
}

/**
 * The base level of a column family: static (1, or -1 for non-level styles) without
 * level_compaction_dynamic_level_bytes; with it, RocksDB's VersionStorageInfo::CalculateBaseBytes
 * (`db/version_set.cc`): from the largest non-L0 level size, divide by the multiplier level by
 * level up to the first non-empty level; if that is no more than base/multiplier the base level
 * is the first non-empty level, else move the base level up while the size exceeds
 * max_bytes_for_level_base. All levels above L0 empty: num_levels - 1.
 * `levelBytes[i]` = bytes of level i's files.
 */
export function dynamicBaseLevel(cf: ColumnFamilyOptions, levelBytes: number[]): number {
  if (!cf.levelCompactionDynamicLevelBytes || cf.compactionStyle !== 'kCompactionStyleLevel') return staticBaseLevel(cf)
  const n = cf.numLevels
  let first = -1
  let max = 0
  for (let i = 1; i < n; i++) {
    const size = levelBytes[i] ?? 0
    if (size > 0 && first === -1) first = i
    if (size > max) max = size
  }
  if (max === 0) return n - 1
  const mult = cf.maxBytesForLevelMultiplier
  const baseMax = cf.maxBytesForLevelBase
  const baseMin = Math.floor(baseMax / mult)
  let cur = max
  for (let i = n - 2; i >= first; i--) cur = Math.floor(cur / mult)
  if (cur <= baseMin) return first
  let base = first
  while (base > 1 && cur > baseMax) {
    base--
    cur = Math.floor(cur / mult)
  }
  return base
}

/**
 * The target file size RocksDB's table builder gets for a file it writes on `level`
 * (MaxFileSizeForLevel: target_file_size_base on the first level, times the multiplier per level
 * below the next, counted from the base level under level_compaction_dynamic_level_bytes), or 0
 * where it gets none: a flush (L0), or a compaction style other than levelled.
 */
export function targetFileSize(cf: ColumnFamilyOptions, level: number, baseLevel: number): number {
  if (level <= 0 || cf.compactionStyle !== 'kCompactionStyleLevel') return 0
  const index = cf.levelCompactionDynamicLevelBytes && level >= baseLevel ? level - baseLevel : level
  let size = cf.targetFileSizeBase
  for (let i = 2; i <= index; i++) size *= Math.max(1, cf.targetFileSizeMultiplier)
  return Math.min(size, Number.MAX_SAFE_INTEGER)
}

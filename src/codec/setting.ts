/**
 * A compression setting: what RocksDB's `compression` and
 * `CompressionOptions` (include/rocksdb/advanced_options.h) say about how a
 * table's blocks are compressed, with RocksDB's defaults and the rules for
 * which combinations exist. Every flag definition, library default and the
 * recompress matrix read their defaults and validation from here.
 */
import { CompressionType, compressionShortName } from '../format/compression-type.js'

/**
 * How a dictionary is made: none; raw samples (max_dict_bytes without
 * training); zstd's trainer (train, use_zstd_dict_trainer=true); zstd's
 * finalizer over raw samples (finalize, use_zstd_dict_trainer=false); or an
 * external dictionary file.
 */
export type DictMode = 'none' | 'raw' | 'finalize' | 'train' | 'file'
/** The modes RocksDB itself builds (file is sstkit's). */
export const BUILT_DICT_MODES: readonly DictMode[] = ['none', 'raw', 'finalize', 'train']

/** RocksDB's kDefaultCompressionLevel: "use the library's default". */
export const DEFAULT_COMPRESSION_LEVEL = 32767

/**
 * The defaults of a setting sstkit builds: RocksDB's CompressionOptions defaults where a block's
 * bytes depend on them (checksum, max_compressed_bytes_per_kb), and sstkit's sizes for a dictionary
 * once one is asked for (RocksDB's max_dict_bytes=0 means none). What an OPTIONS file's missing
 * field means is db/options.ts's DEFAULT_COMPRESSION_OPTS, which takes these shared values from here.
 */
export const COMPRESSION_DEFAULTS = Object.freeze({
  /** sstkit's default type for rewrite (RocksDB's own is Snappy). */
  compressionType: CompressionType.ZSTD as number,
  level: null as number | null,
  dict: 'none' as DictMode,
  /** max_dict_bytes once a dictionary is asked for (RocksDB's default 0 means "no dictionary"). */
  maxDictBytes: 16384,
  /** zstd_max_train_bytes = this × max_dict_bytes (RocksDB's recommendation). */
  trainBytesPerDictByte: 100,
  /** max_dict_buffer_bytes: what RocksDB buffers for a 64 MiB target file. */
  maxDictBufferBytes: 64 * 1024 * 1024,
  /** CompressionOptions::checksum (zstd frame content checksum). */
  zstdChecksum: false,
  /** max_compressed_bytes_per_kb: a block must shrink to 7/8 or is stored raw. */
  maxCompressedBytesPerKb: 896,
  /** CompressionOptions::strategy: zlib's Z_DEFAULT_STRATEGY. */
  strategy: 0,
})

/** CompressionOptions::strategy values, as zlib names them (deflateInit2's strategy; the one codec RocksDB 11.8.1 hands it to). */
export const ZLIB_STRATEGY_NAMES: readonly string[] = ['default', 'filtered', 'huffman-only', 'rle', 'fixed']

/** zstd_max_train_bytes when not given: 100 × max_dict_bytes. */
export function defaultTrainBytes(maxDictBytes: number = COMPRESSION_DEFAULTS.maxDictBytes): number {
  return COMPRESSION_DEFAULTS.trainBytesPerDictByte * maxDictBytes
}

export interface CompressionSetting {
  /** The CompressionType byte. */
  compressionType: number
  /** null (or 32767) = the library's default; see effectiveLevel. */
  level: number | null
  dict: DictMode
  /** CompressionOptions::checksum: zstd frame content checksum. */
  zstdChecksum: boolean
  maxDictBytes: number
  /** zstd_max_train_bytes: sample budget for train and finalize. */
  trainBytes: number
  maxDictBufferBytes: number
  maxCompressedBytesPerKb: number
  /** CompressionOptions::strategy: zlib's deflate strategy (0..4; default COMPRESSION_DEFAULTS.strategy); the other codecs ignore it, as RocksDB's do. */
  strategy?: number
}

/** A setting with RocksDB's defaults for everything not given (trainBytes follows maxDictBytes). */
export function compressionSetting(given: Partial<CompressionSetting> = {}): CompressionSetting {
  const d = COMPRESSION_DEFAULTS
  const maxDictBytes = given.maxDictBytes ?? d.maxDictBytes
  return {
    compressionType: given.compressionType ?? d.compressionType,
    level: given.level ?? d.level,
    dict: given.dict ?? d.dict,
    zstdChecksum: given.zstdChecksum ?? d.zstdChecksum,
    maxDictBytes,
    trainBytes: given.trainBytes ?? defaultTrainBytes(maxDictBytes),
    maxDictBufferBytes: given.maxDictBufferBytes ?? d.maxDictBufferBytes,
    maxCompressedBytesPerKb: given.maxCompressedBytesPerKb ?? d.maxCompressedBytesPerKb,
  }
}

/** The level each library uses for kDefaultCompressionLevel. */
const LIBRARY_DEFAULT_LEVELS: Partial<Record<number, number>> = {
  [CompressionType.ZSTD]: 3,
  [CompressionType.ZSTDNotFinal]: 3,
  // Z_DEFAULT_COMPRESSION
  [CompressionType.Zlib]: -1,
  // acceleration 1 (RocksDB reads a negative LZ4 level as -acceleration)
  [CompressionType.LZ4]: -1,
  [CompressionType.LZ4HC]: 9,
}

export function isDefaultLevel(level: number | null | undefined): boolean {
  return level === null || level === undefined || level === DEFAULT_COMPRESSION_LEVEL
}

/**
 * The level RocksDB's compressor actually uses: the given one, or the
 * library's default (zstd 3, zlib -1, lz4 -1 = acceleration 1, lz4hc 9);
 * null for types without levels.
 */
export function effectiveLevel(compressionType: number, level: number | null | undefined): number | null {
  if (!isDefaultLevel(level)) return level!
  return LIBRARY_DEFAULT_LEVELS[compressionType] ?? null
}

/** The zstd level RocksDB uses for a setting's level (the given one, or zstd's default 3). */
export function zstdLevel(level: number | null | undefined): number {
  return effectiveLevel(CompressionType.ZSTD, level) as number
}

/** Explicit levels per type that change the output (RocksDB passes them to the library). */
const LEVEL_RANGES: Partial<Record<number, readonly [number, number]>> = {
  [CompressionType.Zlib]: [-1, 9],
  // LZ4: negative levels are the acceleration (RocksDB >= 8.7); LZ4HC: 1..12.
  [CompressionType.LZ4]: [-65537, -1],
  [CompressionType.LZ4HC]: [1, 12],
  [CompressionType.ZSTD]: [-131072, 22],
}

/** The explicit levels a type accepts, inclusive, or null for a type without levels. */
export function levelRange(compressionType: number): readonly [number, number] | null {
  return LEVEL_RANGES[compressionType] ?? null
}

/** Whether `level` is valid for the type: the default always is; an explicit one inside levelRange. */
export function levelFits(compressionType: number, level: number | null): boolean {
  if (isDefaultLevel(level)) return true
  const range = levelRange(compressionType)
  return range !== null && level! >= range[0] && level! <= range[1]
}

/** Dictionary modes a type supports: RocksDB trains and finalizes only for zstd; zlib and lz4 use raw samples. */
export function supportedDictModes(compressionType: number): readonly DictMode[] {
  if (compressionType === CompressionType.ZSTD) return ['none', 'raw', 'finalize', 'train', 'file']
  if (compressionType === CompressionType.Zlib || compressionType === CompressionType.LZ4 || compressionType === CompressionType.LZ4HC) {
    return ['none', 'raw', 'file']
  }
  return ['none']
}

/** use_zstd_dict_trainer: false only for finalize. */
export function usesZstdDictTrainer(dict: DictMode): boolean {
  return dict !== 'finalize'
}

/** The types sstkit compresses with (Xpress and custom types have no codec here). */
export const WRITABLE_TYPES: readonly number[] = [
  CompressionType.None,
  CompressionType.Snappy,
  CompressionType.Zlib,
  CompressionType.BZip2,
  CompressionType.LZ4,
  CompressionType.LZ4HC,
  CompressionType.ZSTD,
]

/** The names a validation message uses for each setting (flag names for a command). */
export interface SettingNames {
  compressionType: string
  level: string
  dict: string
  zstdChecksum: string
}

const FIELD_NAMES: SettingNames = { compressionType: 'compression', level: 'level', dict: 'dict', zstdChecksum: 'checksum' }

/**
 * Why a setting cannot be written, in one line naming the setting, its value
 * and the allowed values; null when it is valid. `names` lets a command use
 * its flag names (`--level`).
 */
export function validateSetting(
  s: Pick<CompressionSetting, 'compressionType' | 'level' | 'dict' | 'zstdChecksum'>,
  names: SettingNames = FIELD_NAMES,
): string | null {
  const t = s.compressionType
  const type = compressionShortName(t)
  if (!WRITABLE_TYPES.includes(t)) {
    return `${names.compressionType} ${type}: not a type sstkit writes (${WRITABLE_TYPES.map(compressionShortName).join(', ')})`
  }
  if (s.level !== null && !Number.isInteger(s.level)) return `${names.level} ${s.level}: not an integer`
  if (!levelFits(t, s.level)) {
    const range = levelRange(t)
    return range
      ? `${names.level} ${s.level}: ${type} accepts levels ${range[0]}..${range[1]} (or the default)`
      : `${names.level} ${s.level}: ${type} has no levels (only the default)`
  }
  const dicts = supportedDictModes(t)
  if (!dicts.includes(s.dict)) return `${names.dict} ${s.dict}: ${type} supports dictionary modes ${dicts.join(', ')}`
  if (s.zstdChecksum && t !== CompressionType.ZSTD) return `${names.zstdChecksum} on: the frame checksum is zstd's; ${type} has none`
  return null
}

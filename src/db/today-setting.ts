/**
 * Today's compression setting of a level or a file, as the OPTIONS file or the table properties
 * write it (RocksDB's compression name plus its CompressionOptions), as the decision's SettingSpec.
 */
import { DEFAULT_COMPRESSION_LEVEL, effectiveLevel } from '../codec/setting.js'
import {
  compressionOptionName,
  compressionShortName,
  CompressionType,
  compressionPropertyTypes,
  compressionTypeFromOptionName,
  compressionTypeFromShortName,
} from '../format/compression-type.js'
import { Property } from '../format/properties.js'
import { spec } from '../decide/settings.js'
import type { DictMode, SettingSpec } from '../types/advice.js'
import { type CompressionOpts, compressionOpts, DEFAULT_COMPRESSION_OPTS } from './options.js'

/** The parts of RocksDB's CompressionOptions that decide a setting (db/options.ts owns the whole struct). */
export type CompressionOptsLike = Pick<
  CompressionOpts,
  'level' | 'maxDictBytes' | 'zstdMaxTrainBytes' | 'useZstdDictTrainer' | 'maxDictBufferBytes' | 'checksum' | 'maxCompressedBytesPerKb'
>

/**
 * What a RocksDB compression name plus its options mean as a setting (null for types sstkit cannot evaluate),
 * with its own options (dictionary options when it uses a dictionary, the acceptance rule; withRunOptions drops
 * them where they are the run's).
 */
export function settingFromOptions(optionTypeName: string, o: CompressionOptsLike): SettingSpec | null {
  let t = compressionTypeFromOptionName(optionTypeName)
  // The pre-1.0 zstd id writes the same frames.
  if (t === CompressionType.ZSTDNotFinal) t = CompressionType.ZSTD
  if (t === undefined || compressionTypeFromShortName(compressionShortName(t)) === undefined) return null
  const type = compressionShortName(t)
  // The library default is named as the matrix names it: zstd by the level it means (3), the others by none.
  // LZ4 reads only negative levels (its acceleration); a positive one means the default, as before RocksDB 11.5.
  const explicit = o.level !== DEFAULT_COMPRESSION_LEVEL && !(t === CompressionType.LZ4 && o.level >= 0)
  const level = !levelled(t) ? null : explicit ? o.level : t === CompressionType.ZSTD ? effectiveLevel(t, null) : null
  const dict: DictMode =
    t === CompressionType.None || o.maxDictBytes <= 0 || !dictionaryCodec(t)
      ? 'none'
      : t !== CompressionType.ZSTD || o.zstdMaxTrainBytes <= 0
        ? 'raw'
        : o.useZstdDictTrainer
          ? 'train'
          : 'finalize'
  const dictOptions = { maxDictBytes: o.maxDictBytes, trainBytes: dict === 'raw' ? 0 : o.zstdMaxTrainBytes, maxDictBufferBytes: o.maxDictBufferBytes }
  return spec(type, level, dict, t === CompressionType.ZSTD && o.checksum, { dictOptions, maxCompressedBytesPerKb: o.maxCompressedBytesPerKb })
}

/**
 * Today's setting of a file from its properties: rocksdb.compression plus
 * rocksdb.compression_options ("window_bits=-14; level=32767; ...;
 * max_dict_bytes=0; zstd_max_train_bytes=0; ...; use_zstd_dict_trainer=1;").
 */
export function settingFromProperties(compression: string | undefined, options: string | undefined): SettingSpec | null {
  if (compression === undefined) return null
  // fv7 files record e.g. "BuiltinV2;07;": the type bytes in hex (the first where several).
  const types = compressionPropertyTypes(compression)
  if (types === undefined) return null
  const type = types[0]
  const optionTypeName = compressionOptionName(type)
  let opts: CompressionOptsLike
  try {
    opts = compressionOpts(options, Property.CompressionOptions)
  } catch {
    // A property sstkit cannot read: the type alone, at its defaults.
    opts = DEFAULT_COMPRESSION_OPTS
  }
  return settingFromOptions(optionTypeName, opts)
}

function levelled(t: number): boolean {
  return t === CompressionType.ZSTD || t === CompressionType.Zlib || t === CompressionType.LZ4 || t === CompressionType.LZ4HC
}

function dictionaryCodec(t: number): boolean {
  return t === CompressionType.ZSTD || t === CompressionType.Zlib || t === CompressionType.LZ4 || t === CompressionType.LZ4HC
}

/**
 * sstkit as a library: typed access to RocksDB block-based SST files.
 *
 *   import { openTable } from 'sstkit'
 *   const table = openTable('000123.sst')
 *   table.footer.formatVersion; table.properties.known.get('rocksdb.num.entries')
 *   const it = table.iterator(); for (it.seek(key); it.valid; it.next()) ...
 */
export * from './reader.js'
export { recompressFile, DictFileError } from './recompress/engine.js'
export type { RecompressOptions, RecompressReport, RecompressResult, StoredBaseline } from './recompress/engine.js'
export { buildMatrix, parseLevels, parseTypes, parseDicts, parseChecksums, MatrixError } from './recompress/config.js'
export type { DictMode, RecompressConfig, MatrixSpec } from './recompress/config.js'
export { rewriteFile, rewrittenSize, RewriteError, defaultFormatVersion, defaultRewriteOptions } from './table/rewrite.js'
export type { RewriteOptions, RewriteResult } from './table/rewrite.js'
export { TableWriter, FileSink, CountingSink } from './table/writer.js'
export type { TableWriterOptions, WriteSummary } from './table/writer.js'
export { writeSynth, synthValues } from './table/synth.js'
export type { SynthOptions } from './table/synth.js'
export { RateDecider, RatioDecider, prng, ALPHA_BETTER, ALPHA_WORSE, DEFAULT_MIN_SAMPLE_EVERY } from './table/auto-skip.js'
export type { AutoSkipStrategy, SkipDecider } from './table/auto-skip.js'
export {
  COMPRESSION_DEFAULTS,
  DEFAULT_COMPRESSION_LEVEL,
  BUILT_DICT_MODES,
  compressionSetting,
  defaultTrainBytes,
  effectiveLevel,
  isDefaultLevel,
  levelRange,
  levelFits,
  supportedDictModes,
  usesZstdDictTrainer,
  validateSetting,
} from './codec/setting.js'
export type { CompressionSetting, SettingNames } from './codec/setting.js'
export { BlockCompressor } from './codec/block-compressor.js'
export type { BlockCompressorSetting } from './codec/block-compressor.js'
export {
  CompressionType,
  COMPRESSION_SHORT_NAMES,
  compressionOptionName,
  compressionShortName,
  compressionTypeFromOptionName,
  compressionTypeFromShortName,
  isCustomCompressionType,
  isKnownCompressionType,
} from './format/compression-type.js'
export { ChecksumType, CHECKSUM_SHORT_NAMES, checksumTypeFromShortName } from './format/checksum-type.js'

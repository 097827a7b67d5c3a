/**
 * sstkit as a library: typed access to RocksDB block-based SST files.
 *
 *   import { openTable } from 'sstkit'
 *   const table = openTable('000123.sst')
 *   table.footer.formatVersion; table.properties.known.get('rocksdb.num.entries')
 *   const it = table.iterator(); for (it.seek(key); it.valid; it.next()) ...
 *
 * The public surface, deliberately (everything else is internal and may change):
 * - reading (also `sstkit/reader`, which loads only this): openTable, Table,
 *   TableIterator, tableLayout, verifyTable, filterInfo, the byte sources and
 *   the value decoders (blob index, wide columns, preferred seqno);
 * - errors: SstkitError and its kind (errorCode), CorruptionError,
 *   NotSupportedError, ChecksumMismatchError, UsageError; the feature errors
 *   below (MatrixError, DictFileError, RewriteError);
 * - recompression: recompressFile and its matrix (buildMatrix, parseTypes,
 *   parseLevels, parseDicts, parseChecksums; matrixNoteText words the matrix's notes);
 * - rewriting: rewriteFile, rewrittenSize, defaultRewriteOptions,
 *   defaultFormatVersion; writing: TableWriter with FileSink / CountingSink;
 * - synthetic tables for experiments: writeSynth, synthValues;
 * - auto-skip deciders a TableWriter can use: RateDecider, RatioDecider;
 * - advice: advise (a database or SST files to the advice `sstkit advise` prints) with its
 *   defaults (DEFAULT_TIME_BUDGET_MS, DEFAULT_PRECISION, ...), mergeAdviceParts for shards,
 *   NothingToAdviseError, MergeError, and the advice's data shapes (Advice, LevelAdvice, ...;
 *   its notes are coded, AdviceNote: `sstkit advise --json` writes each one's sentence beside it).
 */
export * from './reader.js'
export { recompressFile, DictFileError } from './recompress/engine.js'
export type { RecompressOptions, RecompressReport, RecompressResult, StoredBaseline } from './recompress/engine.js'
export { buildMatrix, matrixNoteText, parseLevels, parseTypes, parseDicts, parseChecksums, MatrixError } from './recompress/config.js'
export type { DictMode, RecompressConfig, MatrixSpec } from './recompress/config.js'
export { rewriteFile, rewrittenSize, RewriteError, defaultRewriteOptions } from './rewrite/rewrite.js'
export { defaultFormatVersion } from './format/footer.js'
export type { RewriteOptions, RewriteResult } from './rewrite/rewrite.js'
export { TableWriter, FileSink, CountingSink } from './table/writer.js'
export type { TableWriterOptions, WriteSummary } from './table/writer.js'
export { writeSynth, synthValues } from './synth/synth.js'
export type { SynthOptions } from './synth/synth.js'
export {
  advise,
  mergeAdviceParts,
  NothingToAdviseError,
  DEFAULT_BLOCK_SIZES,
  DEFAULT_DICTIONARY,
  DEFAULT_MAX_COMPRESSED_BYTES_PER_KB,
  DEFAULT_OBJECTIVE,
  DEFAULT_PRECISION,
  DEFAULT_SEED,
  DEFAULT_TIME_BUDGET_MS,
} from './advise/advise.js'
export type { AdviseRequest } from './advise/advise.js'
export { MergeError } from './advise/merge.js'
export { DEFAULT_PRICES } from './decide/cost.js'
export type {
  Advice,
  AdviceNote,
  BlockSizeNote,
  MatrixNote,
  ReadsNote,
  WorkloadNote,
  ColumnFamilyAdvice,
  ExplicitLimits,
  Interval,
  LevelAdvice,
  Objective,
  Prices,
  SettingEstimate,
  SettingSpec,
  Timing,
} from './types/advice.js'
export { RateDecider, RatioDecider } from './codec/auto-skip.js'
export type { AutoSkipStrategy, SkipDecider } from './codec/auto-skip.js'
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
export type { AcceptanceRule, BlockCompressorSetting } from './codec/block-compressor.js'
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

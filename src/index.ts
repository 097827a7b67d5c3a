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
export { writeSynth, synthValues } from './synth/synth.js'
export type { SynthOptions } from './synth/synth.js'
export { prng } from './util/prng.js'
export { RateDecider, RatioDecider, ALPHA_BETTER, ALPHA_WORSE, DEFAULT_MIN_SAMPLE_EVERY } from './recompress/auto-skip.js'
export type { AutoSkipStrategy, SkipDecider } from './recompress/auto-skip.js'

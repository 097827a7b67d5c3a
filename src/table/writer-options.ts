/** A table writer's options (TableWriterOptions, plainWriterOptions for tables sstkit makes up), its index builder's, and the rocksdb.compression_options property they make. */
import type { AcceptanceRule } from '../codec/block-compressor.js'
import { COMPRESSION_DEFAULTS, DEFAULT_COMPRESSION_LEVEL, usesZstdDictTrainer, type CompressionSetting } from '../codec/setting.js'
import { CompressionType } from '../format/compression-type.js'
import { ChecksumType } from '../format/checksum-type.js'
import type { IndexBuilderOptions, SeparatorLog } from '../format/index-block.js'
import type { DictionaryMode } from './compression-dict.js'
import { encodePropertyNumber, Property } from '../format/properties.js'

export type WriterDictMode = DictionaryMode

/** Counts over one whole data block's entries (for addDataBlock). */
export interface BlockEntryStats {
  entries: number
  deletions: number
  merges: number
  rawKeyBytes: number
  rawValueBytes: number
  smallestSeq: number | bigint | null
  largestSeq: number | bigint | null
}

/** The compression setting (codec/setting.ts; an external dictionary comes as `dictionary`), then the table's layout. */
export interface TableWriterOptions extends Omit<CompressionSetting, 'dict'> {
  formatVersion: number
  checksumType: number
  dict: WriterDictMode
  /** Use this dictionary instead of building one (e.g. an external file). */
  dictionary?: Uint8Array
  blockSize: number
  restartInterval: number
  /**
   * Data blocks built here (add()) in RocksDB 11's separated key/value layout
   * (separate_key_value_in_data_block), recorded in the properties with the restart interval, which
   * a reader needs to find the values. undefined: inline for blocks built here; blocks that come
   * whole (addDataBlock) keep what the source's properties say.
   */
  separateKeyValue?: boolean
  index: 'binary' | 'partitioned'
  /** metadata_block_size: index partitions are cut near this size. */
  metadataBlockSize: number
  /** enable_index_compression (default true): false stores the index blocks raw, without an attempt. */
  indexCompression?: boolean
  /** Carry a full filter over verbatim (valid when the keys are unchanged). */
  filter?: { metaName: string; bytes: Uint8Array }
  /** Properties to keep from the source (name -> raw value), updated where the layout changed. */
  baseProperties: Map<string, Uint8Array>
  /** Properties to leave out (e.g. a dropped filter's policy). */
  dropProperties?: string[]
  /** Where blocks buffered for a dictionary spill, past `memoryBytes` (default 4 MiB); without it they all stay in memory. */
  spill?: { dir: string; memoryBytes?: number }
  /** Shorten index separators: only for leveldb.BytewiseComparator. */
  shortenSeparators?: boolean
  /** Which release's rule keeps a compressed block (default: RocksDB 8.3+'s max_compressed_bytes_per_kb). */
  acceptance?: AcceptanceRule
  /**
   * A binary index's separators, shared with other writers fed the same data blocks (recompress):
   * the writer keeps only its blocks' sizes and builds its index from the log at finish. The log's
   * options must be those the writer would use (indexBuilderOptions).
   */
  separatorLog?: SeparatorLog
  /** Auto-skip: decides per data block whether to attempt compression (see codec/auto-skip.ts). */
  skip?: {
    attempt(): boolean
    record(rejected: boolean, storedBytes: number, rawBytes: number): void
  }
}

/**
 * A plain table: format_version 5, XXH3 checksums, no dictionary, a binary
 * index, 4 KiB blocks, the bytewise comparator recorded; `o` overrides any of it.
 * For tables sstkit makes up (synth, tests), not for rewriting a file.
 */
/** A batch of data blocks compressed ahead: those tried, their payloads and the batch's compression CPU (ns). */
export interface AheadBatch {
  raws: readonly Uint8Array[]
  payloads: readonly Uint8Array[]
  ns: number
  /** The part of `ns` spent on the codec's helper thread, not the writer's (codec/kernel.ts splitKernelCompression). */
  helperNs?: number
}

/** Buffered data blocks compressed per batch once the dictionary is built (32 blocks of 4 KiB: one batch of recompress's feed). */
export const AHEAD_BLOCKS = 32

export function plainWriterOptions(o: Partial<TableWriterOptions> = {}): TableWriterOptions {
  return {
    formatVersion: 5,
    checksumType: ChecksumType.XXH3,
    compressionType: CompressionType.None,
    level: null,
    zstdChecksum: false,
    dict: 'none',
    maxDictBytes: 0,
    trainBytes: 0,
    maxDictBufferBytes: 0,
    blockSize: 4096,
    restartInterval: 16,
    index: 'binary',
    metadataBlockSize: 4096,
    maxCompressedBytesPerKb: COMPRESSION_DEFAULTS.maxCompressedBytesPerKb,
    baseProperties: new Map([[Property.Comparator, new TextEncoder().encode('leveldb.BytewiseComparator')]]),
    ...o,
  }
}

/** The index builder options a writer with these options uses (also those a shared SeparatorLog needs). */
export function indexBuilderOptions(o: Pick<TableWriterOptions, 'formatVersion' | 'shortenSeparators'>): IndexBuilderOptions {
  return { userKeys: o.formatVersion >= 3, deltaValues: o.formatVersion >= 4, valueTypeForSeek: 0x18, shorten: o.shortenSeparators ?? true }
}

/** The properties saying how data blocks built by the writer are laid out (RocksDB 11 writes both, 11.0 and on). */
export function layoutProperties(props: Map<string, Uint8Array>, o: Pick<TableWriterOptions, 'separateKeyValue' | 'restartInterval'>): void {
  if (o.separateKeyValue === undefined) return
  if (o.separateKeyValue) props.set(Property.SeparateKeyValueInDataBlock, encodePropertyNumber(1))
  else props.delete(Property.SeparateKeyValueInDataBlock)
  if (o.separateKeyValue || props.has(Property.DataBlockRestartInterval)) props.set(Property.DataBlockRestartInterval, encodePropertyNumber(o.restartInterval))
}

/** rocksdb.compression_options in the shape of the RocksDB release that writes this format_version. */
export function compressionOptionsProperty(o: TableWriterOptions): string {
  const level = o.level ?? DEFAULT_COMPRESSION_LEVEL
  const dictOn = o.dict !== 'none' || (o.dictionary?.length ?? 0) > 0
  const parts = [
    'window_bits=-14',
    `level=${level}`,
    `strategy=${o.strategy ?? COMPRESSION_DEFAULTS.strategy}`,
    `max_dict_bytes=${dictOn ? o.maxDictBytes : 0}`,
    `zstd_max_train_bytes=${o.dict === 'train' || o.dict === 'finalize' ? o.trainBytes : 0}`,
    'enabled=0',
    `max_dict_buffer_bytes=${dictOn ? o.maxDictBufferBytes : 0}`,
    `use_zstd_dict_trainer=${usesZstdDictTrainer(o.dict) ? 1 : 0}`,
  ]
  // 11.8 and on append the configured compression type as a pseudo-option (`_type`).
  if (o.formatVersion >= 7)
    parts.push(`max_compressed_bytes_per_kb=${o.maxCompressedBytesPerKb}`, `checksum=${o.zstdChecksum ? 1 : 0}`, `_type=${o.compressionType}`)
  return parts.map((p) => `${p}; `).join('')
}

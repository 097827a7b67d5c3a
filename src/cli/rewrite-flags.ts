/**
 * The flags of `rewrite` and their translation into RewriteOptions; the
 * compression setting's defaults and validation come from codec/setting.ts
 * its textual forms from rewrite/plan.ts.
 */
import { Flags } from '@oclif/core'
import { sizeFlag } from './units.js'
import { COMPRESSION_DEFAULTS, defaultTrainBytes } from '../codec/setting.js'
import { CHECKSUM_SHORT_NAMES, checksumTypeFromShortName } from '../format/checksum-type.js'
import { resolveCompression } from '../rewrite/plan.js'
import { RewriteError, type RewriteOptions } from '../rewrite/rewrite.js'
import { COMPRESSION_SHORT_NAMES, CompressionType } from '../format/compression-type.js'

export const rewriteFlags = {
  output: Flags.string({
    char: 'o',
    description: 'Output file (or directory, for a directory input); for a database, the new database directory (must not exist).',
    required: true,
  }),
  advice: Flags.string({
    description:
      'A database input: the JSON of `sstkit advise --json` for it; each column family and level is written with its recommended setting, and the OPTIONS file gets the advice (instead of --compression, --level, --dict, --checksum).',
    exclusive: ['compression', 'level', 'dict', 'checksum'],
  }),
  jobs: Flags.integer({
    description:
      'A database input: tables written (and checked) at once, each on a worker thread (default 1, within 150 MB peak RSS: 138 MB on a 1.06 GB database of 64 MiB tables; 2 took 207 MB).',
    min: 1,
    max: 64,
  }),
  compression: Flags.string({ description: `${COMPRESSION_SHORT_NAMES.join(', ')}.`, default: 'zstd' }),
  level: Flags.string({ description: 'Compression level (e.g. 3, 19, -5), or "default".', default: 'default' }),
  dict: Flags.string({ description: "Dictionary: none, raw, finalize, train (RocksDB's modes), or a path to a dictionary file.", default: 'none' }),
  'max-dict-bytes': sizeFlag({ description: "RocksDB's max_dict_bytes.", default: COMPRESSION_DEFAULTS.maxDictBytes, min: 1 }),
  'train-bytes': sizeFlag({ description: "RocksDB's zstd_max_train_bytes (default 100 × --max-dict-bytes).", min: 1 }),
  'max-dict-buffer-bytes': sizeFlag({
    description: "RocksDB's max_dict_buffer_bytes (0 = the whole file).",
    default: COMPRESSION_DEFAULTS.maxDictBufferBytes,
    min: 0,
  }),
  checksum: Flags.string({ description: 'zstd frame checksum.', options: ['on', 'off'], default: 'off' }),
  'block-size': sizeFlag({ description: 'Data block size (bytes, or with a unit: 8KiB).', default: 4096, min: 64, exclusive: ['keep-blocks'] }),
  'keep-blocks': Flags.boolean({
    description: "Keep the input's data block boundaries (what `recompress` evaluates by default).",
    exclusive: ['ingestible', 'salvage'],
  }),
  ingestible: Flags.boolean({
    description:
      'Write a file IngestExternalFile accepts, as SstFileWriter does: the newest entry of each user key at sequence number 0, range tombstones kept, the external-file properties; what cannot be carried over (older versions, merge operands needing the merge operator, blob values) is dropped and said.',
  }),
  salvage: Flags.boolean({
    description:
      'Rewrite an input that verify flags: keep the data blocks that still read, drop the rest and say what was dropped (without it such an input is refused, exit 1).',
  }),
  'restart-interval': Flags.integer({ description: 'Data block restart interval.', default: 16, min: 1 }),
  'compression-strategy': Flags.integer({
    description:
      "zlib's deflate strategy (RocksDB's CompressionOptions::strategy, which only zlib takes): 0 default, 1 filtered, 2 Huffman only, 3 RLE, 4 fixed.",
    min: 0,
    max: 4,
  }),
  'separate-key-value': Flags.boolean({
    description: "Data blocks with their values after the keys (RocksDB 11's separate_key_value_in_data_block; RocksDB before 11.0 cannot read them).",
    exclusive: ['keep-blocks'],
  }),
  'format-version': Flags.integer({ description: "Output format_version, 2..7 (default: the input's, or 5 for older inputs).", min: 2, max: 7 }),
  'checksum-type': Flags.string({ description: "Block checksum (default: the input's).", options: [...CHECKSUM_SHORT_NAMES] }),
  index: Flags.string({ description: 'Index kind.', options: ['binary', 'partitioned'], default: 'binary' }),
  'metadata-block-size': sizeFlag({ description: 'Index partition size (partitioned index).', default: 4096, min: 64 }),
  'max-compressed-bytes-per-kb': Flags.integer({
    description: 'Acceptance rule for compressed blocks.',
    default: COMPRESSION_DEFAULTS.maxCompressedBytesPerKb,
    min: 0,
    max: 1024,
  }),
  'auto-skip': Flags.string({
    description: 'Skip compression of blocks auto-skip deems hopeless: ratio or rate (stored raw, counted as bypassed).',
    options: ['rate', 'ratio'],
  }),
  'min-sample-every': Flags.integer({ description: 'ratio auto-skip: sample a block at least every N skipped blocks.', default: 64, min: 1 }),
  seed: Flags.integer({ description: "Seed of auto-skip's random choices.", default: 0 }),
  verify: Flags.boolean({
    description:
      'Read the output back and compare every entry before renaming it into place (a database: every table, blob value and copied file against a second read of the source).',
    default: true,
    allowNo: true,
  }),
  force: Flags.boolean({ description: 'Replace an existing output.' }),
}

/** The parsed values of rewriteFlags. */
export interface RewriteFlagValues {
  advice?: string
  jobs?: number
  compression: string
  level: string
  dict: string
  'max-dict-bytes': number
  'train-bytes'?: number
  'max-dict-buffer-bytes': number
  checksum: string
  'block-size': number
  'keep-blocks': boolean
  'restart-interval': number
  'separate-key-value': boolean
  'compression-strategy'?: number
  'format-version'?: number
  'checksum-type'?: string
  index: string
  'metadata-block-size': number
  'max-compressed-bytes-per-kb': number
  'auto-skip'?: string
  'min-sample-every': number
  seed: number
  verify: boolean
  force: boolean
  ingestible: boolean
  salvage: boolean
}

/** RewriteOptions from the flags; throws a usage RewriteError on a bad or unsupported setting. */
export function rewriteOptions(f: RewriteFlagValues): RewriteOptions {
  const compression = resolveCompression({ compression: f.compression, level: f.level, dict: f.dict, zstdChecksum: f.checksum === 'on' })
  if (f['compression-strategy'] !== undefined && compression.compressionType !== CompressionType.Zlib)
    throw new RewriteError('usage', "--compression-strategy is zlib's deflate strategy: it needs --compression zlib")
  return {
    ...compression,
    maxDictBytes: f['max-dict-bytes'],
    trainBytes: f['train-bytes'] ?? defaultTrainBytes(f['max-dict-bytes']),
    maxDictBufferBytes: f['max-dict-buffer-bytes'],
    blockSize: f['block-size'],
    keepBlocks: f['keep-blocks'],
    restartInterval: f['restart-interval'],
    separateKeyValue: f['separate-key-value'] ? true : undefined,
    strategy: f['compression-strategy'],
    formatVersion: f['format-version'],
    checksumType: f['checksum-type'] !== undefined ? checksumTypeFromShortName(f['checksum-type']) : undefined,
    index: f.index as 'binary' | 'partitioned',
    metadataBlockSize: f['metadata-block-size'],
    maxCompressedBytesPerKb: f['max-compressed-bytes-per-kb'],
    verify: f.verify,
    force: f.force,
    autoSkip: f['auto-skip'] as 'rate' | 'ratio' | undefined,
    minSampleEvery: f['min-sample-every'],
    seed: f.seed,
    ingestible: f.ingestible,
    salvage: f.salvage,
  }
}

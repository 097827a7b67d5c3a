/**
 * The measurement flags of `recompress`, shared with `baseline` (and, through
 * the settings a baseline records, `check-size`): oclif's flag definitions. Their
 * values become `RecompressOptions` in recompress-options.ts, which owns the defaults.
 */
import { Flags } from '@oclif/core'
import { sizeFlag } from './units.js'
import { WRITABLE_FORMAT_VERSIONS } from '../recompress/config.js'
import { RECOMPRESS_FLAG_DEFAULTS as D, RECOMPRESS_FLAG_OPTIONS } from './recompress-options.js'

/** Defaults of the matrix flags; a command without a default leaves the flag undefined. */
export interface MatrixFlagDefaults {
  types?: string
  checksum?: 'off' | 'on' | 'both'
  levelsHelp: string
  dictHelp: string
}

/** --types, --levels, --dict, --checksum. */
export function matrixFlags(d: MatrixFlagDefaults) {
  return {
    types: Flags.string({ description: 'Compression types: zstd, none, snappy, lz4, lz4hc, zlib, bzip2 (comma-separated).', default: d.types }),
    levels: Flags.string({ description: d.levelsHelp }),
    dict: Flags.string({ description: d.dictHelp }),
    checksum: Flags.string({ description: 'zstd frame checksum: off, on or both.', options: [...RECOMPRESS_FLAG_OPTIONS.checksum], default: d.checksum }),
  }
}

/** --compression-strategy: recompress's CompressionOptions::strategy list (zlib's rows only). */
export const strategyFlags = {
  'compression-strategy': Flags.string({
    description:
      "zlib's deflate strategies (RocksDB's CompressionOptions::strategy, which only zlib takes): 0 default, 1 filtered, 2 Huffman only, 3 RLE, 4 fixed; a list or range (0..4): each zlib setting evaluated under each, a row apiece.",
  }),
}

/** How the blocks are cut, dictionaries built and blocks accepted; repeats and worker threads. */
export const sourceFlags = {
  'max-dict-bytes': sizeFlag({ description: "Dictionary size (RocksDB's max_dict_bytes).", default: D['max-dict-bytes'], min: 1 }),
  'train-bytes': sizeFlag({
    description: "Sample budget for train and finalize (RocksDB's zstd_max_train_bytes). Default: 100 × --max-dict-bytes.",
    min: 1,
  }),
  'max-dict-buffer-bytes': sizeFlag({
    description:
      "Data bytes buffered before the dictionary is built (RocksDB's max_dict_buffer_bytes; 0 = the whole file). Bounds memory. Default 64 MiB, what RocksDB buffers for a 64 MiB target file.",
    default: D['max-dict-buffer-bytes'],
    min: 0,
  }),
  'dict-file': Flags.string({ description: 'Also evaluate this external dictionary (e.g. from `zstd --train`).' }),
  'block-size': sizeFlag({
    description: "Re-cut the entries into blocks of this size as RocksDB's builder does (sst_dump uses 16384). Default: keep the file's own blocks.",
    min: 64,
  }),
  'max-compressed-bytes-per-kb': Flags.integer({
    description:
      'Acceptance rule: a compressed block (size prefix included) must fit in this many bytes per KiB of input, else it is stored raw and counted as rejected.',
    default: D['max-compressed-bytes-per-kb'],
    min: 0,
    max: 1024,
  }),
  repeat: Flags.integer({ description: 'Run each configuration N times; timings are the median, with the spread shown.', default: D.repeat, min: 1, max: 100 }),
  jobs: Flags.integer({ description: 'Worker threads (default: all cores). Results do not depend on it.', min: 1 }),
  // `10` or `10%`: a number is a percentage, as in advise's --sample.
  sample: Flags.custom<number>({
    description: 'Evaluate a deterministic, evenly spread PCT% of the data blocks (own block boundaries only): 10 or 10%.',
    parse: async (input) => {
      const m = /^(\d+)%?$/.exec(input.trim())
      const pct = m ? Number(m[1]) : Number.NaN
      if (!(pct >= 1 && pct <= 100)) throw new Error(`expected a whole percentage from 1 to 100, such as 10 or 10% (got "${input}")`)
      return pct
    },
  })(),
}

/**
 * recompress's table-layout flags: lists, like --levels, each combination a layout evaluated with
 * every setting (recompress/layouts.ts). --block-size here replaces sourceFlags' single size.
 */
export const layoutFlags = {
  'block-size': Flags.string({
    description:
      "Re-cut the entries into blocks of these sizes as RocksDB's builder does (block_size; sst_dump uses 16384): 4KiB,16KiB,64KiB or bytes. Default: keep the file's own blocks.",
  }),
  'restart-interval': Flags.string({
    description: 'Restart intervals of the re-cut data blocks (block_restart_interval; default 16): 4,16,32 or 1..4. Needs --block-size.',
  }),
  'index-compression': Flags.string({
    description: 'Compress the index block (enable_index_compression): on, off or both.',
    options: ['on', 'off', 'both'],
  }),
  'separate-key-value': Flags.string({
    description: "Re-cut data blocks with their values after the keys (RocksDB 11's separate_key_value_in_data_block): on, off or both. Needs --block-size.",
    options: ['on', 'off', 'both'],
  }),
  'format-version': Flags.string({
    description: `format_version of the tables written (${WRITABLE_FORMAT_VERSIONS[0]}..${WRITABLE_FORMAT_VERSIONS.at(-1)}), a list or range: 5,7. Default: the file's own.`,
  }),
}

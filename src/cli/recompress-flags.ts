/**
 * The measurement flags of `recompress`, shared with `baseline` (and, through
 * the settings a baseline records, `check-size`): flag definitions and the
 * translation of their values into `RecompressOptions`.
 */
import { Flags } from '@oclif/core'
import { sizeFlag } from './units.js'
import { availableParallelism } from 'node:os'
import { COMPRESSION_DEFAULTS, defaultTrainBytes, ZLIB_STRATEGY_NAMES } from '../codec/setting.js'
import {
  layoutMatrix,
  MatrixError,
  type MatrixSpec,
  parseByteSizes,
  parseChecksums,
  parseCounts,
  parseDicts,
  parseLevels,
  parseOnOff,
  parseTypes,
  type TableLayout,
  WRITABLE_FORMAT_VERSIONS,
} from '../recompress/config.js'
import type { RecompressOptions } from '../recompress/engine.js'

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
    checksum: Flags.string({ description: 'zstd frame checksum: off, on or both.', options: ['off', 'on', 'both'], default: d.checksum }),
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
  'max-dict-bytes': sizeFlag({ description: "Dictionary size (RocksDB's max_dict_bytes).", default: COMPRESSION_DEFAULTS.maxDictBytes, min: 1 }),
  'train-bytes': sizeFlag({
    description: "Sample budget for train and finalize (RocksDB's zstd_max_train_bytes). Default: 100 × --max-dict-bytes.",
    min: 1,
  }),
  'max-dict-buffer-bytes': sizeFlag({
    description:
      "Data bytes buffered before the dictionary is built (RocksDB's max_dict_buffer_bytes; 0 = the whole file). Bounds memory. Default 64 MiB, what RocksDB buffers for a 64 MiB target file.",
    default: COMPRESSION_DEFAULTS.maxDictBufferBytes,
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
    default: COMPRESSION_DEFAULTS.maxCompressedBytesPerKb,
    min: 0,
    max: 1024,
  }),
  repeat: Flags.integer({ description: 'Run each configuration N times; timings are the median, with the spread shown.', default: 1, min: 1, max: 100 }),
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

/** The parsed values of layoutFlags. */
export interface LayoutFlagValues {
  'block-size'?: string
  'restart-interval'?: string
  'index-compression'?: string
  'format-version'?: string
  'separate-key-value'?: string
  sample?: number
}

/** The table layouts the flags ask for; throws MatrixError (a usage error) on bad or conflicting values. */
export function tableLayouts(f: LayoutFlagValues): TableLayout[] {
  const blockSizes = f['block-size'] !== undefined ? parseByteSizes(f['block-size'], 'block size', 64) : undefined
  if (f.sample !== undefined && blockSizes) throw new MatrixError("--sample works on the file's own blocks: it cannot be combined with --block-size")
  const fv = WRITABLE_FORMAT_VERSIONS
  return layoutMatrix({
    blockSizes,
    restartIntervals: f['restart-interval'] !== undefined ? parseCounts(f['restart-interval'], 'restart interval', 1, 1 << 16) : undefined,
    indexCompression: f['index-compression'] !== undefined ? parseOnOff(f['index-compression'], '--index-compression') : undefined,
    separateKeyValue: f['separate-key-value'] !== undefined ? parseOnOff(f['separate-key-value'], '--separate-key-value') : undefined,
    formatVersions: f['format-version'] !== undefined ? parseCounts(f['format-version'], 'format_version', fv[0], fv[fv.length - 1]) : undefined,
  })
}

/** The parsed values of matrixFlags + sourceFlags. */
export interface RecompressFlagValues {
  types?: string
  levels?: string
  dict?: string
  checksum?: string
  'compression-strategy'?: string
  'max-dict-bytes': number
  'train-bytes'?: number
  'max-dict-buffer-bytes': number
  'dict-file'?: string
  'block-size'?: number
  'max-compressed-bytes-per-kb': number
  repeat: number
  jobs?: number
  sample?: number
}

/** The matrix the flags describe; throws MatrixError (a usage error) on bad values. */
export function matrixSpec(f: Pick<RecompressFlagValues, 'types' | 'levels' | 'dict' | 'checksum' | 'compression-strategy'>): MatrixSpec {
  const strategy = f['compression-strategy']
  return {
    types: parseTypes(f.types ?? 'zstd'),
    levels: f.levels !== undefined ? parseLevels(f.levels) : undefined,
    dicts: f.dict !== undefined ? parseDicts(f.dict) : undefined,
    checksums: parseChecksums(f.checksum ?? 'both'),
    ...(strategy !== undefined ? { strategies: parseCounts(strategy, 'compression strategy', 0, ZLIB_STRATEGY_NAMES.length - 1) } : {}),
  }
}

/** `--auto-skip rate,ratio`: the auto-skip simulations to run; throws MatrixError on an unknown one. */
export function autoSkipModes(flag: string | undefined): ('rate' | 'ratio')[] | undefined {
  if (flag === undefined) return undefined
  const modes = flag
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
  for (const m of modes) if (m !== 'rate' && m !== 'ratio') throw new MatrixError(`--auto-skip takes rate and/or ratio (got "${m}")`)
  return modes as ('rate' | 'ratio')[]
}

/** RecompressOptions from the flags (without progress); throws MatrixError on bad or conflicting values. */
export function recompressOptions(f: RecompressFlagValues, matrix: MatrixSpec = matrixSpec(f)): RecompressOptions {
  if (f.sample !== undefined && f['block-size'] !== undefined) {
    throw new MatrixError("--sample works on the file's own blocks: it cannot be combined with --block-size")
  }
  return {
    matrix,
    source: { blockSize: f['block-size'] ?? null, samplePercent: f.sample ?? 100 },
    dict: {
      maxDictBytes: f['max-dict-bytes'],
      trainBytes: f['train-bytes'] ?? defaultTrainBytes(f['max-dict-bytes']),
      maxDictBufferBytes: f['max-dict-buffer-bytes'],
    },
    dictFile: f['dict-file'],
    maxCompressedBytesPerKb: f['max-compressed-bytes-per-kb'],
    repeat: f.repeat,
    jobs: f.jobs ?? availableParallelism(),
  }
}

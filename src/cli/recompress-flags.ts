/**
 * The measurement flags of `recompress`, shared with `baseline` (and, through
 * the settings a baseline records, `check-size`): flag definitions and the
 * translation of their values into `RecompressOptions`.
 */
import { Flags } from '@oclif/core'
import { availableParallelism } from 'node:os'
import {
  COMPRESSION_DEFAULTS,
  defaultTrainBytes,
  MatrixError,
  parseChecksums,
  parseDicts,
  parseLevels,
  parseTypes,
  type MatrixSpec,
  type RecompressOptions,
} from '../index.js'

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

/** How the blocks are cut, dictionaries built and blocks accepted; repeats and worker threads. */
export const sourceFlags = {
  'max-dict-bytes': Flags.integer({ description: "Dictionary size (RocksDB's max_dict_bytes).", default: COMPRESSION_DEFAULTS.maxDictBytes, min: 1 }),
  'train-bytes': Flags.integer({
    description: "Sample budget for train and finalize (RocksDB's zstd_max_train_bytes). Default: 100 × --max-dict-bytes.",
    min: 1,
  }),
  'max-dict-buffer-bytes': Flags.integer({
    description:
      "Data bytes buffered before the dictionary is built (RocksDB's max_dict_buffer_bytes; 0 = the whole file). Bounds memory. Default 64 MiB, what RocksDB buffers for a 64 MiB target file.",
    default: COMPRESSION_DEFAULTS.maxDictBufferBytes,
    min: 0,
  }),
  'dict-file': Flags.string({ description: 'Also evaluate this external dictionary (e.g. from `zstd --train`).' }),
  'block-size': Flags.integer({
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

/** The parsed values of matrixFlags + sourceFlags. */
export interface RecompressFlagValues {
  types?: string
  levels?: string
  dict?: string
  checksum?: string
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
export function matrixSpec(f: Pick<RecompressFlagValues, 'types' | 'levels' | 'dict' | 'checksum'>): MatrixSpec {
  return {
    types: parseTypes(f.types ?? 'zstd'),
    levels: f.levels !== undefined ? parseLevels(f.levels) : undefined,
    dicts: f.dict !== undefined ? parseDicts(f.dict) : undefined,
    checksums: parseChecksums(f.checksum ?? 'both'),
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

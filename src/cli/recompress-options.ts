/**
 * recompress's flag values turned into the library's options, and the defaults of its flags: no
 * oclif here, so that the command's plain path (src/entry/recompress-main.ts) and oclif's
 * (src/commands/recompress.ts, whose flag definitions take these defaults) share both.
 */
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

/** The defaults of recompress's flags (the flag definitions' `default`), by flag name. */
export const RECOMPRESS_FLAG_DEFAULTS = {
  types: 'zstd',
  checksum: 'both',
  'max-dict-bytes': COMPRESSION_DEFAULTS.maxDictBytes,
  'max-dict-buffer-bytes': COMPRESSION_DEFAULTS.maxDictBufferBytes,
  'max-compressed-bytes-per-kb': COMPRESSION_DEFAULTS.maxCompressedBytesPerKb,
  repeat: 1,
  format: 'table',
  'min-sample-every': 64,
  seed: 0,
  sort: 'matrix',
} as const

/** The values of recompress's flags that take a fixed set (the flag definitions' `options`). */
export const RECOMPRESS_FLAG_OPTIONS = {
  checksum: ['off', 'on', 'both'],
  format: ['table', 'csv', 'markdown'],
  sort: ['matrix', 'size', 'ratio', 'compress', 'decompress'],
} as const

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
    types: parseTypes(f.types ?? RECOMPRESS_FLAG_DEFAULTS.types),
    levels: f.levels !== undefined ? parseLevels(f.levels) : undefined,
    dicts: f.dict !== undefined ? parseDicts(f.dict) : undefined,
    checksums: parseChecksums(f.checksum ?? RECOMPRESS_FLAG_DEFAULTS.checksum),
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

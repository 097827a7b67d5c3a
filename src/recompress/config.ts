/**
 * The recompression matrix: compression types × levels × dictionary modes ×
 * zstd frame checksum, with RocksDB's rules for which combinations exist.
 */
import { CompressionType, COMPRESSION_SHORT_NAMES, compressionShortName, compressionTypeFromShortName } from '../format/compression-type.js'
import { BUILT_DICT_MODES, levelRange, supportedDictModes, validateSetting, type DictMode } from '../codec/setting.js'
import { transferable, UsageError } from '../errors.js'

export type { DictMode } from '../codec/setting.js'
/** The modes --dict accepts (an external file comes through --dict-file). */
export const DICT_MODES: readonly DictMode[] = BUILT_DICT_MODES

export interface RecompressConfig {
  /** Position in the matrix; results come back in this order. */
  readonly id: number
  readonly type: number
  /** null: the library's default level (RocksDB's kDefaultCompressionLevel). */
  readonly level: number | null
  readonly dict: DictMode
  /** zstd frame content checksum (CompressionOptions::checksum). */
  readonly checksum: boolean
}

/** recompress's exhaustive zstd levels when --levels is not given (advise's sampled matrix is decide/settings.ts's). */
export const EXHAUSTIVE_ZSTD_LEVELS: readonly number[] = [1, 3, 6, 9, 12, 15, 19]

export class MatrixError extends UsageError {
  override name = 'MatrixError'
}
transferable(MatrixError)

/** Parse `1..19`, `1,3,6,9`, `-5..3`, `-5,-1,1`, `default` (ranges inclusive, mixed lists allowed). */
export function parseLevels(spec: string): (number | null)[] {
  const out: (number | null)[] = []
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (part === 'default') {
      out.push(null)
      continue
    }
    const m = /^(-?\d+)\.\.(-?\d+)$/.exec(part)
    if (m) {
      const a = Number(m[1])
      const b = Number(m[2])
      if (a > b) throw new MatrixError(`level range ${part} runs backwards`)
      if (b - a > 1000) throw new MatrixError(`level range ${part} is too long`)
      for (let l = a; l <= b; l++) out.push(l)
    } else if (/^-?\d+$/.test(part)) out.push(Number(part))
    else throw new MatrixError(`not a level or range: "${part}" (use e.g. 1..19 or 1,3,6)`)
  }
  if (out.length === 0) throw new MatrixError('no levels given')
  return [...new Set(out)]
}

export function parseTypes(spec: string): number[] {
  const out: number[] = []
  for (const name of spec
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    const t = compressionTypeFromShortName(name)
    if (t === undefined) throw new MatrixError(`unknown compression type "${name}" (known: ${COMPRESSION_SHORT_NAMES.join(', ')})`)
    out.push(t)
  }
  if (out.length === 0) throw new MatrixError('no compression types given')
  return [...new Set(out)]
}

export function parseDicts(spec: string): DictMode[] {
  const out: DictMode[] = []
  for (const d of spec
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)) {
    if (!(DICT_MODES as readonly string[]).includes(d)) throw new MatrixError(`unknown dictionary mode "${d}" (known: ${DICT_MODES.join(', ')})`)
    out.push(d as DictMode)
  }
  if (out.length === 0) throw new MatrixError('no dictionary modes given')
  return [...new Set(out)]
}

export function parseChecksums(spec: string): boolean[] {
  switch (spec) {
    case 'off':
      return [false]
    case 'on':
      return [true]
    case 'both':
      return [false, true]
    default:
      throw new MatrixError(`--checksum must be off, on or both (got "${spec}")`)
  }
}

export interface MatrixSpec {
  types: number[]
  /** Explicit levels (null = the library default), or undefined for each type's defaults. */
  levels?: (number | null)[]
  /** Explicit dictionary modes, or undefined for the defaults (all four for zstd, none otherwise). */
  dicts?: DictMode[]
  checksums: boolean[]
  /** Also evaluate an external dictionary (zstd, lz4, lz4hc, zlib). */
  dictFile?: boolean
}

export interface Matrix {
  configs: RecompressConfig[]
  /** Combinations left out, and why (e.g. "train applies to zstd only"). */
  notes: string[]
}

export function buildMatrix(spec: MatrixSpec): Matrix {
  const configs: RecompressConfig[] = []
  const notes = new Set<string>()
  for (const type of spec.types) {
    const range = levelRange(type)
    let levels: (number | null)[]
    if (range === null) {
      if (spec.levels && spec.types.length === 1) notes.add(`${compressionShortName(type)} has no levels: --levels ignored`)
      levels = [null]
    } else if (spec.levels) {
      levels = spec.levels.filter((l) => l === null || (l >= range[0] && l <= range[1]))
      const dropped = spec.levels.filter((l) => l !== null && (l < range[0] || l > range[1]))
      if (dropped.length) notes.add(`${compressionShortName(type)} accepts levels ${range[0]}..${range[1]}: left out ${dropped.join(', ')}`)
    } else levels = type === CompressionType.ZSTD ? [...EXHAUSTIVE_ZSTD_LEVELS] : [null]

    const supported = supportedDictModes(type)
    let dicts: DictMode[] = spec.dicts ?? (type === CompressionType.ZSTD ? [...DICT_MODES] : ['none'])
    const unsupported = dicts.filter((d) => !supported.includes(d))
    if (unsupported.length) notes.add(`dictionary mode ${unsupported.join(', ')} does not apply to ${compressionShortName(type)}`)
    dicts = dicts.filter((d) => supported.includes(d))
    if (spec.dictFile && supported.includes('file')) dicts = [...dicts, 'file']

    const checksums = type === CompressionType.ZSTD ? spec.checksums : [false]
    for (const level of levels)
      for (const dict of dicts)
        for (const checksum of checksums) {
          // The filters above leave only valid settings; validateSetting is the one rule they follow.
          const problem = validateSetting({ compressionType: type, level, dict, zstdChecksum: checksum })
          if (problem) throw new MatrixError(problem)
          configs.push({ id: configs.length, type, level, dict, checksum })
        }
  }
  if (configs.length === 0) throw new MatrixError(`these flags leave nothing to evaluate${notes.size ? `: ${[...notes].join('; ')}` : ''}`)
  return { configs, notes: [...notes] }
}

export function configLabel(c: RecompressConfig): string {
  const level = c.level === null ? '' : ` ${c.level}`
  const dict = c.dict === 'none' ? '' : ` dict=${c.dict}`
  return `${compressionShortName(c.type)}${level}${dict}${c.checksum ? ' +checksum' : ''}`
}

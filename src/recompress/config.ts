/**
 * The recompression matrix: compression types × levels × dictionary modes ×
 * zstd frame checksum, with RocksDB's rules for which combinations exist.
 */
import { CompressionType, compressionTypeName } from '../codec/compression.js'
import { transferable, UsageError } from '../errors.js'

export type DictMode = 'none' | 'raw' | 'finalize' | 'train' | 'file'
export const DICT_MODES: readonly DictMode[] = ['none', 'raw', 'finalize', 'train']

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

/** Names accepted by --types, mapped to RocksDB type bytes. */
export const TYPE_NAMES: Record<string, number> = {
  none: CompressionType.None,
  snappy: CompressionType.Snappy,
  zlib: CompressionType.Zlib,
  bzip2: CompressionType.BZip2,
  lz4: CompressionType.LZ4,
  lz4hc: CompressionType.LZ4HC,
  zstd: CompressionType.ZSTD,
}

export function typeLabel(type: number): string {
  return Object.entries(TYPE_NAMES).find(([, v]) => v === type)?.[0] ?? compressionTypeName(type)
}

/** zstd's default levels when --levels is not given. */
export const DEFAULT_ZSTD_LEVELS = [1, 3, 6, 9, 12, 15, 19]

/** Valid explicit levels per type (RocksDB passes them to the library). */
const LEVEL_RANGES: Record<number, [number, number] | null> = {
  [CompressionType.None]: null,
  [CompressionType.Snappy]: null,
  [CompressionType.BZip2]: null,
  [CompressionType.Zlib]: [-1, 9],
  // LZ4: negative levels are the acceleration (RocksDB >= 8.7); LZ4HC: 1..12.
  [CompressionType.LZ4]: [-65537, -1],
  [CompressionType.LZ4HC]: [1, 12],
  [CompressionType.ZSTD]: [-131072, 22],
}

export class MatrixError extends UsageError {
  override name = 'MatrixError'
}
transferable(MatrixError)

/** Parse `1..19`, `1,3,6,9`, `-5..3`, `-5,-1,1`, `default` (ranges inclusive, mixed lists allowed). */
export function parseLevels(spec: string): (number | null)[] {
  const out: (number | null)[] = []
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
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
  for (const name of spec.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    const t = TYPE_NAMES[name]
    if (t === undefined) throw new MatrixError(`unknown compression type "${name}" (known: ${Object.keys(TYPE_NAMES).join(', ')})`)
    out.push(t)
  }
  if (out.length === 0) throw new MatrixError('no compression types given')
  return [...new Set(out)]
}

export function parseDicts(spec: string): DictMode[] {
  const out: DictMode[] = []
  for (const d of spec.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
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

/** Dictionary modes a type supports: RocksDB trains and finalizes only for zstd; others use raw samples. */
function supportedDicts(type: number): DictMode[] {
  if (type === CompressionType.ZSTD) return ['none', 'raw', 'finalize', 'train', 'file']
  if (type === CompressionType.Zlib || type === CompressionType.LZ4 || type === CompressionType.LZ4HC) return ['none', 'raw', 'file']
  return ['none']
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
    const range = LEVEL_RANGES[type]
    let levels: (number | null)[]
    if (range === null) {
      if (spec.levels && spec.types.length === 1) notes.add(`${typeLabel(type)} has no levels: --levels ignored`)
      levels = [null]
    } else if (spec.levels) {
      levels = spec.levels.filter((l) => l === null || (l >= range[0] && l <= range[1]))
      const dropped = spec.levels.filter((l) => l !== null && (l < range[0] || l > range[1]))
      if (dropped.length) notes.add(`${typeLabel(type)} accepts levels ${range[0]}..${range[1]}: left out ${dropped.join(', ')}`)
    } else levels = type === CompressionType.ZSTD ? DEFAULT_ZSTD_LEVELS : [null]

    const supported = supportedDicts(type)
    let dicts: DictMode[] = spec.dicts ?? (type === CompressionType.ZSTD ? [...DICT_MODES] : ['none'])
    const unsupported = dicts.filter((d) => !supported.includes(d))
    if (unsupported.length) notes.add(`dictionary mode ${unsupported.join(', ')} does not apply to ${typeLabel(type)}`)
    dicts = dicts.filter((d) => supported.includes(d))
    if (spec.dictFile && supported.includes('file')) dicts = [...dicts, 'file']

    const checksums = type === CompressionType.ZSTD ? spec.checksums : [false]
    for (const level of levels)
      for (const dict of dicts)
        for (const checksum of checksums) configs.push({ id: configs.length, type, level, dict, checksum })
  }
  if (configs.length === 0) throw new MatrixError(`these flags leave nothing to evaluate${notes.size ? `: ${[...notes].join('; ')}` : ''}`)
  return { configs, notes: [...notes] }
}

/** The level RocksDB's compressor actually uses (kDefaultCompressionLevel → the library default). */
export function effectiveLevel(c: Pick<RecompressConfig, 'type' | 'level'>): number | null {
  if (c.level !== null) return c.level
  switch (c.type) {
    case CompressionType.ZSTD:
      return 3
    case CompressionType.Zlib:
      return -1
    case CompressionType.LZ4HC:
      return 9
    default:
      return null
  }
}

export function configLabel(c: RecompressConfig): string {
  const level = c.level === null ? '' : ` ${c.level}`
  const dict = c.dict === 'none' ? '' : ` dict=${c.dict}`
  return `${typeLabel(c.type)}${level}${dict}${c.checksum ? ' +checksum' : ''}`
}

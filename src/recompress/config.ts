/**
 * The recompression matrix: compression types × levels × dictionary modes ×
 * zstd frame checksum, with RocksDB's rules for which combinations exist.
 */
import { CompressionType, COMPRESSION_SHORT_NAMES, compressionShortName, compressionTypeFromShortName } from '../format/compression-type.js'
import { BUILT_DICT_MODES, levelRange, supportedDictModes, validateSetting, type DictMode } from '../codec/setting.js'
import { transferable, UsageError } from '../errors.js'
import { DEFAULT_RESTART_INTERVAL } from '../format/block.js'
import type { MatrixNote } from '../types/advice.js'

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
  /** CompressionOptions::strategy of a zlib setting from --compression-strategy; null: not given (zlib's default; the other codecs take none). */
  readonly strategy: number | null
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
  /** CompressionOptions::strategy values each zlib setting is evaluated under (undefined: zlib's default only). */
  strategies?: number[]
}

export interface Matrix {
  configs: RecompressConfig[]
  /** Combinations left out, and why (matrixNoteText words them). */
  notes: MatrixNote[]
}

/** A matrix note in words: recompress's notes, and advise's (report/advise-notes.ts). */
export function matrixNoteText(n: MatrixNote): string {
  switch (n.code) {
    case 'matrix-type-has-no-levels':
      return `${n.type} has no levels: --levels ignored`
    case 'matrix-levels-out-of-range':
      return `${n.type} accepts levels ${n.min}..${n.max}: left out ${n.leftOut.join(', ')}${n.defaultLevelKept ? '; its default level evaluated' : ''}`
    case 'matrix-dict-mode-not-applicable':
      return `dictionary mode ${n.modes.join(', ')} does not apply to ${n.type}`
    case 'matrix-strategy-without-zlib':
      return `--compression-strategy is zlib's deflate strategy, and no zlib type is evaluated: ignored (${n.types.join(', ')} ${n.types.length === 1 ? 'takes' : 'take'} none)`
  }
}

export function buildMatrix(spec: MatrixSpec): Matrix {
  const configs: RecompressConfig[] = []
  // One note of each, in the order first met (a type's notes differ from another's by its name).
  const notes = new Map<string, MatrixNote>()
  const note = (n: MatrixNote) => {
    const key = JSON.stringify(n)
    if (!notes.has(key)) notes.set(key, n)
  }
  for (const type of spec.types) {
    const range = levelRange(type)
    let levels: (number | null)[]
    if (range === null) {
      if (spec.levels && spec.types.length === 1) note({ code: 'matrix-type-has-no-levels', type: compressionShortName(type) })
      levels = [null]
    } else if (spec.levels) {
      levels = spec.levels.filter((l) => l === null || (l >= range[0] && l <= range[1]))
      const dropped = spec.levels.filter((l) => l !== null && (l < range[0] || l > range[1]))
      // A type none of whose levels is in the list keeps its default level's row (lz4 beside zstd's --levels 1,3).
      const kept = levels.length === 0 && spec.types.length > 1
      if (kept) levels = [null]
      if (dropped.length)
        note({
          code: 'matrix-levels-out-of-range',
          type: compressionShortName(type),
          min: range[0],
          max: range[1],
          leftOut: dropped as number[],
          defaultLevelKept: kept,
        })
    } else levels = type === CompressionType.ZSTD ? [...EXHAUSTIVE_ZSTD_LEVELS] : [null]

    const supported = supportedDictModes(type)
    let dicts: DictMode[] = spec.dicts ?? (type === CompressionType.ZSTD ? [...DICT_MODES] : ['none'])
    const unsupported = dicts.filter((d) => !supported.includes(d))
    if (unsupported.length) note({ code: 'matrix-dict-mode-not-applicable', type: compressionShortName(type), modes: unsupported })
    dicts = dicts.filter((d) => supported.includes(d))
    if (spec.dictFile && supported.includes('file')) dicts = [...dicts, 'file']

    const checksums = type === CompressionType.ZSTD ? spec.checksums : [false]
    // CompressionOptions::strategy reaches zlib alone (RocksDB 11.8.1): the other codecs' rows are not multiplied.
    const strategies: (number | null)[] = type === CompressionType.Zlib && spec.strategies ? spec.strategies : [null]
    for (const level of levels)
      for (const dict of dicts)
        for (const checksum of checksums)
          for (const strategy of strategies) {
            // The filters above leave only valid settings; validateSetting is the one rule they follow.
            const problem = validateSetting({ compressionType: type, level, dict, zstdChecksum: checksum })
            if (problem) throw new MatrixError(problem)
            configs.push({ id: configs.length, type, level, dict, checksum, strategy })
          }
  }
  if (spec.strategies && !spec.types.includes(CompressionType.Zlib))
    note({ code: 'matrix-strategy-without-zlib', types: spec.types.map((t) => compressionShortName(t)) })
  if (configs.length === 0)
    throw new MatrixError(`these flags leave nothing to evaluate${notes.size ? `: ${[...notes.values()].map(matrixNoteText).join('; ')}` : ''}`)
  return { configs, notes: [...notes.values()] }
}

export function configLabel(c: RecompressConfig): string {
  const level = c.level === null ? '' : ` ${c.level}`
  const dict = c.dict === 'none' ? '' : ` dict=${c.dict}`
  return `${compressionShortName(c.type)}${level}${dict}${c.checksum ? ' +checksum' : ''}${strategyLabel(c.strategy)}`
}

/** " strategy=1" for a setting evaluated under a given CompressionOptions::strategy; '' when not given. */
export function strategyLabel(strategy: number | null | undefined): string {
  return strategy === null || strategy === undefined ? '' : ` strategy=${strategy}`
}

/** How the table is written around its data blocks: format_version and enable_index_compression (null/undefined: rewrite's defaults). */
export interface TableShape {
  /** null or undefined: rewrite's default (the file's own, 5 for a file older than 2). */
  formatVersion?: number | null
  /** enable_index_compression; undefined: on, as RocksDB's default. */
  indexCompression?: boolean
}

/** One table layout of the matrix: how the data blocks are cut and encoded, and the table around them. */
export interface TableLayout {
  /** null: the file's own blocks; else re-cut into blocks of this size (block_size). */
  blockSize: number | null
  /** block_restart_interval of re-cut blocks; null with the file's own blocks (kept as stored). */
  restartInterval: number | null
  indexCompression: boolean
  /** null: rewrite's default (the file's own format_version). */
  formatVersion: number | null
  /** separate_key_value_in_data_block (RocksDB 11) of re-cut blocks; null with the file's own blocks (kept as stored). */
  separateKeyValue: boolean | null
}

/** format_versions sstkit's writer writes. */
export const WRITABLE_FORMAT_VERSIONS: readonly number[] = [2, 3, 4, 5, 6, 7]

/** `4KiB,16KiB,64KiB`, `4096`, `1MiB`: a list of byte sizes (K, KB, KiB = 1024; M, MB, MiB = 1024²). */
export function parseByteSizes(spec: string, what: string, min: number): number[] {
  const out: number[] = []
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(\d+)\s*(k|kb|kib|m|mb|mib)?$/i.exec(part)
    if (!m) throw new MatrixError(`not a ${what}: "${part}" (use e.g. 4096, 4KiB or 1MiB)`)
    const unit = (m[2] ?? '').toLowerCase()
    const n = Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1 << 20 : 1)
    if (n < min || n > 1 << 30) throw new MatrixError(`${what} ${part} is out of range (${min} bytes to 1 GiB)`)
    out.push(n)
  }
  if (out.length === 0) throw new MatrixError(`no ${what} given`)
  return [...new Set(out)]
}

/** `1,4,16` or `2..5`: whole numbers within [min, max]. */
export function parseCounts(spec: string, what: string, min: number, max: number): number[] {
  const out: number[] = []
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const range = /^(\d+)\.\.(\d+)$/.exec(part)
    const [a, b] = range ? [Number(range[1]), Number(range[2])] : /^\d+$/.test(part) ? [Number(part), Number(part)] : [Number.NaN, Number.NaN]
    if (!(a <= b)) throw new MatrixError(`not a ${what} or range: "${part}"`)
    if (a < min || b > max) throw new MatrixError(`${what} ${part} is out of range (${min}..${max})`)
    for (let n = a; n <= b; n++) out.push(n)
  }
  if (out.length === 0) throw new MatrixError(`no ${what} given`)
  return [...new Set(out)]
}

export function parseOnOff(spec: string, flag: string): boolean[] {
  switch (spec) {
    case 'on':
      return [true]
    case 'off':
      return [false]
    case 'both':
      return [true, false]
    default:
      throw new MatrixError(`${flag} must be on, off or both (got "${spec}")`)
  }
}

export interface LayoutSpec {
  /** undefined: the file's own blocks. */
  blockSizes?: number[]
  restartIntervals?: number[]
  indexCompression?: boolean[]
  formatVersions?: number[]
  separateKeyValue?: boolean[]
}

/**
 * Every table layout the flags ask for, block size outermost. A restart interval re-encodes the
 * blocks, so it needs a block size to re-cut them with.
 */
export function layoutMatrix(spec: LayoutSpec): TableLayout[] {
  for (const [given, flag] of [
    [spec.restartIntervals, '--restart-interval'],
    [spec.separateKeyValue, '--separate-key-value'],
  ] as const) {
    if (given && !spec.blockSizes)
      throw new MatrixError(`${flag} re-encodes the data blocks: give --block-size to re-cut them (the file keeps its own blocks otherwise)`)
  }
  const out: TableLayout[] = []
  for (const blockSize of spec.blockSizes ?? [null])
    for (const restartInterval of blockSize === null ? [null] : (spec.restartIntervals ?? [DEFAULT_RESTART_INTERVAL]))
      for (const separateKeyValue of blockSize === null ? [null] : (spec.separateKeyValue ?? [false]))
        for (const indexCompression of spec.indexCompression ?? [true])
          for (const formatVersion of spec.formatVersions ?? [null]) out.push({ blockSize, restartInterval, separateKeyValue, indexCompression, formatVersion })
  return out
}

/** A block size for people: 4KiB, 16KiB, 1MiB, or bytes when not a whole KiB. */
export function blockSizeLabel(n: number): string {
  if (n % (1 << 20) === 0) return `${n >> 20}MiB`
  if (n % 1024 === 0) return `${n >> 10}KiB`
  return `${n}B`
}

/** The layout's fields, in label order. */
export const LAYOUT_FIELDS = ['blockSize', 'restartInterval', 'separateKeyValue', 'indexCompression', 'formatVersion'] as const
export type LayoutField = (typeof LAYOUT_FIELDS)[number]

/**
 * A layout for people, naming the fields in `shown` (default: those set apart from the default
 * layout: own blocks, restart interval 16, values inline, index compressed, the file's format_version):
 * "16KiB", "4KiB restart=4 kv=separated index=raw fv7"; '' when nothing is shown.
 */
export function layoutLabel(l: TableLayout, shown?: ReadonlySet<LayoutField>): string {
  const show = (f: LayoutField, differs: boolean) => (shown ? shown.has(f) : differs)
  const parts: string[] = []
  if (show('blockSize', l.blockSize !== null)) parts.push(l.blockSize === null ? 'own blocks' : blockSizeLabel(l.blockSize))
  if (show('restartInterval', l.restartInterval !== null && l.restartInterval !== DEFAULT_RESTART_INTERVAL) && l.restartInterval !== null)
    parts.push(`restart=${l.restartInterval}`)
  if (show('separateKeyValue', l.separateKeyValue === true) && l.separateKeyValue !== null) parts.push(l.separateKeyValue ? 'kv=separated' : 'kv=inline')
  if (show('indexCompression', !l.indexCompression)) parts.push(l.indexCompression ? 'index=compressed' : 'index=raw')
  if (show('formatVersion', l.formatVersion !== null) && l.formatVersion !== null) parts.push(`fv${l.formatVersion}`)
  return parts.join(' ')
}

/** The layout fields whose values differ between these layouts (empty: one layout). */
export function varyingLayoutFields(layouts: readonly TableLayout[]): Set<LayoutField> {
  return new Set(LAYOUT_FIELDS.filter((f) => new Set(layouts.map((l) => l[f])).size > 1))
}

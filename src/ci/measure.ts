/**
 * Measuring files for a baseline: the recompress engine's exact byte counts
 * (the stored file, and each configuration as the table writer would write
 * it), entry counts from the file's properties, and stable names.
 */
import { readdirSync, type Stats, statSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { Property, propertyNumber } from '../format/properties.js'
import { MatrixError, type MatrixSpec } from '../recompress/config.js'
import { recompressFile, type RecompressOptions, type RecompressResult } from '../recompress/engine.js'
import { openTable } from '../table/reader.js'
import { parseChecksums, parseDicts, parseLevels, parseTypes, type DictMode } from '../recompress/config.js'
import { compressionShortName } from '../format/compression-type.js'
import { defaultTrainBytes } from '../codec/setting.js'
import type { BaselineFile, BaselineSettings, SizeRow } from './baseline.js'
import { SstkitError, type SstkitErrorOptions, transferable, UsageError } from '../errors.js'

/** The matrix flags of `baseline` when none is given: stored + zstd 3 and 9, no dictionary, no frame checksum. */
export const DEFAULT_BASELINE_MATRIX = { types: 'zstd', levels: '3,9', dict: 'none', checksum: 'off' } as const

export const STORED = 'stored'

/**
 * The stable name of a configuration: TYPE-LEVEL-DICT-CHECKSUM, with
 * `default` for the library's default level (and for types without levels):
 * `zstd-3-none-off`, `zstd-19-finalize-on`, `zstd--5-none-off`, `lz4-default-raw-off`, `snappy-default-none-off`.
 */
export function configName(r: Pick<RecompressResult, 'type' | 'level' | 'dict' | 'checksum'>): string {
  return `${r.type}-${r.level === null ? 'default' : r.level}-${r.dict}-${r.checksum ? 'on' : 'off'}`
}

export interface MeasureFlagValues {
  types?: string
  levels?: string
  dict?: string
  checksum?: string
}

/** The matrix part of the settings from `baseline`'s flags, with its own defaults (see DEFAULT_BASELINE_MATRIX). */
export function baselineMatrix(f: MeasureFlagValues): Pick<BaselineSettings, 'types' | 'levels' | 'dicts' | 'checksums'> {
  const types = parseTypes(f.types ?? DEFAULT_BASELINE_MATRIX.types)
  // Levels 3,9 are zstd's; with other --types and no --levels, each type's default level.
  const levels = parseLevels(f.levels ?? (f.types === undefined ? DEFAULT_BASELINE_MATRIX.levels : 'default'))
  const dicts = parseDicts(f.dict ?? DEFAULT_BASELINE_MATRIX.dict)
  const checksums = parseChecksums(f.checksum ?? DEFAULT_BASELINE_MATRIX.checksum).map((c) => (c ? 'on' : 'off') as 'on' | 'off')
  return {
    types: types.map(compressionShortName),
    levels,
    dicts,
    checksums,
  }
}

/** The parsed values of `baseline`'s measurement flags (matrix + recompress-flags' sourceFlags, --strip). */
export interface BaselineFlagValues extends MeasureFlagValues {
  'max-dict-bytes': number
  'train-bytes'?: number
  'max-dict-buffer-bytes': number
  'dict-file'?: string
  'block-size'?: number
  sample?: number
  'max-compressed-bytes-per-kb': number
  repeat: number
  strip?: string
}

/** The settings a new baseline records, from its flags; paths relative to the baseline's directory. Throws MatrixError. */
export function baselineSettings(f: BaselineFlagValues, baseDir: string): BaselineSettings {
  return {
    ...baselineMatrix(f),
    maxDictBytes: f['max-dict-bytes'],
    trainBytes: f['train-bytes'] ?? defaultTrainBytes(f['max-dict-bytes']),
    maxDictBufferBytes: f['max-dict-buffer-bytes'],
    dictFile: f['dict-file'] === undefined ? null : relativeTo(baseDir, f['dict-file']),
    blockSize: f['block-size'] ?? null,
    samplePercent: f.sample ?? 100,
    maxCompressedBytesPerKb: f['max-compressed-bytes-per-kb'],
    repeat: f.repeat,
    strip: f.strip ?? null,
  }
}

/** RecompressOptions that reproduce a baseline's measurement. */
export function optionsFromSettings(s: BaselineSettings, baselineDir: string, jobs: number): RecompressOptions {
  const matrix: MatrixSpec = {
    types: parseTypes(s.types.join(',')),
    levels: s.levels ?? undefined,
    dicts: s.dicts ? parseDicts(s.dicts.join(',')) : undefined,
    checksums: s.checksums.map((c) => c === 'on'),
  }
  if (s.samplePercent < 100 && s.blockSize !== null) throw new MatrixError('sampling cannot be combined with a block size')
  return {
    matrix,
    source: { blockSize: s.blockSize, samplePercent: s.samplePercent },
    dict: { maxDictBytes: s.maxDictBytes, trainBytes: s.trainBytes, maxDictBufferBytes: s.maxDictBufferBytes },
    dictFile: s.dictFile === null ? undefined : resolve(baselineDir, s.dictFile),
    maxCompressedBytesPerKb: s.maxCompressedBytesPerKb,
    repeat: s.repeat,
    jobs,
  }
}

/** Whether the settings build dictionaries with the system libzstd (train or finalize). */
export function usesDictionaryBuilder(s: BaselineSettings): boolean {
  const zstd = s.types.includes('zstd')
  if (!zstd) return false
  // No explicit modes: zstd's defaults include train and finalize.
  return s.dicts === null || s.dicts.some((d: DictMode) => d === 'train' || d === 'finalize')
}

/** Data blocks that could not be read: the file is corrupt, its sizes meaningless. */
export class MeasureError extends SstkitError {
  override name = 'MeasureError'
  constructor(message: string, options?: SstkitErrorOptions) {
    super('corruption', message, options)
  }
}
transferable(MeasureError)

const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000)

/** Measure one file: the stored row, then one row per configuration of the matrix. */
export async function measureFile(path: string, name: string, relPath: string, options: RecompressOptions, timings: boolean): Promise<BaselineFile> {
  const table = openTable(path)
  let entries: number | null
  let rangeDeletions: number | null
  try {
    entries = propertyNumber(table.properties, Property.NumEntries) ?? null
    rangeDeletions = propertyNumber(table.properties, Property.NumRangeDeletions) ?? null
  } finally {
    table.close()
  }
  const report = await recompressFile(path, options)
  if (report.skipped.length > 0) {
    const s = report.skipped[0]
    throw new MeasureError(`${report.skipped.length} data block(s) could not be read (first at offset ${s.offset}: ${s.message})`)
  }
  const st = report.stored
  const rows: SizeRow[] = [
    {
      config: STORED,
      compression: st.compression,
      dataBytes: st.dataBytes,
      dictBytes: st.dictBytes,
      indexBytes: st.indexBytes,
      filterBytes: st.filterBytes,
      metaBytes: st.metaBytes,
      fileBytes: st.fileBytes,
      uncompressedBytes: st.uncompressedBytes,
      ratio: st.ratio,
      blocks: st.blocks,
      blocksCompressed: st.blocksCompressed,
      ...(timings ? { timings: { compressMs: null, decompressMs: round(st.decompressMs), dictMs: null } } : {}),
    },
  ]
  for (const r of report.results) {
    rows.push({
      config: configName(r),
      compression: `${r.type}${r.level === null ? '' : ` ${r.level}`}${r.dict === 'none' ? '' : ` dict=${r.dict}`}${r.checksum ? ' +checksum' : ''}`,
      dataBytes: r.dataBytes,
      dictBytes: r.dictBytes,
      indexBytes: r.indexBytes,
      filterBytes: r.filterBytes,
      metaBytes: r.metaBytes,
      fileBytes: r.fileBytes,
      uncompressedBytes: r.uncompressedBytes,
      ratio: r.ratio,
      blocks: r.blocks,
      blocksCompressed: r.blocksCompressed,
      ...(timings ? { timings: { compressMs: round(r.compressMs), decompressMs: round(r.decompressMs), dictMs: round(r.dictMs) } } : {}),
    })
  }
  return { name, path: relPath, entries, rangeDeletions, rows }
}

/** A file to measure, with its matching name. */
export interface NamedFile {
  name: string
  /** As the user can open it (relative to the working directory, or absolute). */
  path: string
  /** Relative to the baseline's directory, / separators. */
  relPath: string
}

export class FileArgError extends UsageError {
  override name = 'FileArgError'
}
transferable(FileArgError)

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/')
}

/** `path` relative to `dir`, / separated (absolute when outside it on another root). */
export function relativeTo(dir: string, path: string): string {
  const r = relative(dir, resolve(path))
  return toPosix(isAbsolute(r) ? resolve(path) : r || '.')
}

/** Apply the baseline's strip expression to a derived name. */
export function stripName(name: string, strip: string | null): string {
  if (strip === null) return name
  return name.replace(new RegExp(strip, 'g'), '')
}

/**
 * Expand `FILE`, `DIR` (its *.sst files, sorted) and `NAME=FILE|DIR` into
 * named files. Names are paths relative to the baseline's directory (with
 * `strip` removed), or NAME (NAME/file.sst for a directory). A path that does
 * not exist is a FileArgError (usage error); duplicate names too.
 */
export function expandNamed(args: string[], baselineDir: string, strip: string | null): { files: NamedFile[]; warnings: string[] } {
  const files: NamedFile[] = []
  const warnings: string[] = []
  for (const arg of args) {
    let given: string | null = null
    let path = arg
    const eq = arg.indexOf('=')
    if (eq > 0 && !exists(arg)) {
      given = arg.slice(0, eq)
      path = arg.slice(eq + 1)
    }
    let st: Stats
    try {
      st = statSync(path)
    } catch {
      throw new FileArgError(`${path}: no such file or directory`)
    }
    const add = (p: string, explicitName: string | null) => {
      const relPath = relativeTo(baselineDir, p)
      files.push({ path: p, relPath, name: explicitName ?? stripName(relPath, strip) })
    }
    if (st.isDirectory()) {
      const ssts = readdirSync(path)
        .filter((n) => n.endsWith('.sst'))
        .sort()
      if (ssts.length === 0) warnings.push(`${path}: directory holds no .sst files`)
      for (const n of ssts) add(join(path, n), given === null ? null : `${given}/${stripName(n, strip)}`)
    } else add(path, given)
  }
  const seen = new Map<string, string>()
  for (const f of files) {
    const other = seen.get(f.name)
    if (other !== undefined) {
      throw new FileArgError(
        `${other} and ${f.path} both have the name "${f.name}" (give them distinct names with NAME=PATH${strip ? ' or change the strip expression' : ''})`,
      )
    }
    seen.set(f.name, f.path)
  }
  return { files, warnings }
}

function exists(p: string): boolean {
  try {
    statSync(p)
    return true
  } catch {
    return false
  }
}

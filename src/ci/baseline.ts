/**
 * The baseline file of `sstkit baseline` / `sstkit check-size`: what was
 * measured (per file and configuration: exact byte counts, entry counts,
 * ratios; timings for information only), how (the measurement settings, which
 * check-size reuses) and with what (sstkit and zstd versions).
 */
import { readFileSync } from 'node:fs'
import type { DictMode } from '../recompress/config.js'
import type { RecompressResult } from '../recompress/engine.js'
import { sstkitVersion, type ZstdVersions, zstdVersions } from './versions.js'
import { transferable, UsageError } from '../errors.js'

export const BASELINE_SCHEMA = 'sstkit-baseline'
/** Where `baseline` writes and `check-size` reads when neither a flag nor the config file says. */
export const DEFAULT_BASELINE = 'sstkit-baseline.json'
/** Bumped whenever a reader of the previous version would misread the file. */
export const BASELINE_SCHEMA_VERSION = 1

/** How the files were measured; check-size measures again with exactly these. */
export interface BaselineSettings {
  /** Compression types of the matrix, by name (zstd, lz4, ...). */
  types: string[]
  /** Explicit levels (null = the library default), or null for each type's default levels. */
  levels: (number | null)[] | null
  /** Dictionary modes, or null for each type's defaults. */
  dicts: DictMode[] | null
  /** zstd frame checksum settings. */
  checksums: ('off' | 'on')[]
  maxDictBytes: number
  trainBytes: number
  maxDictBufferBytes: number
  /** External dictionary, relative to the baseline's directory, or null. */
  dictFile: string | null
  /** Re-cut block size, or null for the files' own blocks. */
  blockSize: number | null
  /** 100 = every data block; less = a deterministic sample (whole-file sizes then unknown). */
  samplePercent: number
  maxCompressedBytesPerKb: number
  /** Timing repeats (timings are information only). */
  repeat: number
  /** Regular expression removed from file names derived from paths (e.g. RocksDB file numbers), or null. */
  strip: string | null
}

export interface RowTimings {
  compressMs: number | null
  decompressMs: number | null
  dictMs: number | null
}

/** One file under one configuration ("stored" = the file as it is). */
export interface SizeRow
  extends Pick<
    RecompressResult,
    'dataBytes' | 'dictBytes' | 'indexBytes' | 'filterBytes' | 'metaBytes' | 'fileBytes' | 'uncompressedBytes' | 'ratio' | 'blocks' | 'blocksCompressed'
  > {
  /** Stable configuration name: `stored`, or TYPE-LEVEL-DICT-CHECKSUM such as `zstd-3-none-off`. */
  config: string
  /** What compressed the blocks, for people: the stored file's codec(s), or e.g. "zstd 3". */
  compression: string
  /** Omitted when the baseline was taken with --no-timings. Never compared. */
  timings?: RowTimings
}

export interface BaselineFile {
  /** The matching key: the path relative to the baseline's directory, or a name the user gave. */
  name: string
  /** Relative to the baseline's directory, with / separators. */
  path: string
  /** rocksdb.num.entries (point entries + range deletions), if the file records it. */
  entries: number | null
  /** rocksdb.num.range-deletions, if recorded. */
  rangeDeletions: number | null
  rows: SizeRow[]
}

export interface Baseline {
  schema: typeof BASELINE_SCHEMA
  schemaVersion: number
  sstkitVersion: string
  zstd: ZstdVersions
  /** The measurement flags given on the command line, for people (settings holds the resolved values). */
  flags: string[]
  settings: BaselineSettings
  files: BaselineFile[]
}

/** An unreadable, malformed or incompatible baseline: exit 2. */
export class BaselineError extends UsageError {
  override name = 'BaselineError'
}
transferable(BaselineError)

type Json = Record<string, unknown>

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const isCount = (v: unknown): v is number => isNum(v) && Number.isInteger(v) && v >= 0

function expect(cond: boolean, where: string, what: string): void {
  if (!cond) throw new BaselineError(`${where}: ${what}`)
}

/** Read and check a baseline file; every problem is a BaselineError with the file and field named. */
export function readBaseline(path: string): Baseline {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new BaselineError(`baseline ${path}: ${code === 'ENOENT' ? 'no such file (create it with `sstkit baseline`)' : (e as Error).message}`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (e) {
    throw new BaselineError(`baseline ${path}: not valid JSON (${(e as Error).message})`)
  }
  return validateBaseline(data, path)
}

export function validateBaseline(data: unknown, path: string): Baseline {
  const at = `baseline ${path}`
  expect(isObj(data), at, 'not an sstkit baseline (expected a JSON object)')
  const b = data as Json
  expect(b.schema === BASELINE_SCHEMA, at, `not an sstkit baseline (expected "schema": "${BASELINE_SCHEMA}")`)
  expect(isCount(b.schemaVersion), at, '"schemaVersion" is missing or not a number')
  if (b.schemaVersion !== BASELINE_SCHEMA_VERSION) {
    throw new BaselineError(
      `${at}: schema version ${String(b.schemaVersion)} is not supported (this sstkit reads version ${BASELINE_SCHEMA_VERSION}); ` +
        'take a new baseline with `sstkit baseline --force`',
    )
  }
  expect(typeof b.sstkitVersion === 'string', at, '"sstkitVersion" is missing')
  expect(isObj(b.zstd) && typeof (b.zstd as Json).library === 'string', at, '"zstd.library" is missing')
  const z = b.zstd as Json
  expect(z.dictionaryBuilder === null || typeof z.dictionaryBuilder === 'string', at, '"zstd.dictionaryBuilder" must be a string or null')
  expect(Array.isArray(b.flags) && (b.flags as unknown[]).every((f) => typeof f === 'string'), at, '"flags" must be a list of strings')
  validateSettings(b.settings, `${at}: settings`)
  expect(Array.isArray(b.files), at, '"files" must be a list')
  const names = new Set<string>()
  ;(b.files as unknown[]).forEach((f, i) => {
    const w = `${at}: files[${i}]`
    expect(isObj(f), w, 'not an object')
    const file = f as Json
    expect(typeof file.name === 'string' && file.name !== '', w, '"name" is missing')
    expect(typeof file.path === 'string', w, '"path" is missing')
    expect(!names.has(file.name as string), w, `duplicate name "${String(file.name)}"`)
    names.add(file.name as string)
    expect(file.entries === null || isCount(file.entries), w, '"entries" must be a count or null')
    expect(file.rangeDeletions === null || isCount(file.rangeDeletions), w, '"rangeDeletions" must be a count or null')
    expect(Array.isArray(file.rows) && (file.rows as unknown[]).length > 0, w, '"rows" must be a non-empty list')
    const configs = new Set<string>()
    ;(file.rows as unknown[]).forEach((r, j) => {
      const rw = `${w}.rows[${j}]`
      expect(isObj(r), rw, 'not an object')
      const row = r as Json
      expect(typeof row.config === 'string' && row.config !== '', rw, '"config" is missing')
      expect(!configs.has(row.config as string), rw, `duplicate configuration "${String(row.config)}"`)
      configs.add(row.config as string)
      for (const k of ['dataBytes', 'dictBytes', 'indexBytes', 'filterBytes', 'metaBytes', 'uncompressedBytes', 'blocks', 'blocksCompressed']) {
        expect(isCount(row[k]), rw, `"${k}" must be a byte or block count`)
      }
      expect(row.fileBytes === null || isCount(row.fileBytes), rw, '"fileBytes" must be a byte count or null')
      expect(isNum(row.ratio), rw, '"ratio" must be a number')
    })
  })
  return data as unknown as Baseline
}

function validateSettings(v: unknown, at: string): asserts v is BaselineSettings {
  expect(isObj(v), at, 'missing')
  const s = v as Json
  expect(
    Array.isArray(s.types) && (s.types as unknown[]).length > 0 && (s.types as unknown[]).every((t) => typeof t === 'string'),
    at,
    '"types" must be a list of names',
  )
  expect(
    s.levels === null || (Array.isArray(s.levels) && (s.levels as unknown[]).every((l) => l === null || Number.isInteger(l))),
    at,
    '"levels" must be a list of levels or null',
  )
  expect(s.dicts === null || (Array.isArray(s.dicts) && (s.dicts as unknown[]).every((d) => typeof d === 'string')), at, '"dicts" must be a list or null')
  expect(Array.isArray(s.checksums) && (s.checksums as unknown[]).every((c) => c === 'on' || c === 'off'), at, '"checksums" must be a list of "on"/"off"')
  for (const k of ['maxDictBytes', 'trainBytes', 'maxDictBufferBytes', 'samplePercent', 'maxCompressedBytesPerKb', 'repeat'])
    expect(isCount(s[k]), at, `"${k}" must be a count`)
  expect(s.blockSize === null || isCount(s.blockSize), at, '"blockSize" must be a count or null')
  expect(s.dictFile === null || typeof s.dictFile === 'string', at, '"dictFile" must be a path or null')
  expect(s.strip === null || typeof s.strip === 'string', at, '"strip" must be a regular expression or null')
}

/** The baseline of a measurement: its files' rows, the flags and settings they were measured with, and the versions sizes depend on (this build's). */
export function buildBaseline(flags: string[], settings: BaselineSettings, files: BaselineFile[]): Baseline {
  return {
    schema: BASELINE_SCHEMA,
    schemaVersion: BASELINE_SCHEMA_VERSION,
    sstkitVersion: sstkitVersion(),
    zstd: zstdVersions(),
    flags,
    settings,
    files,
  }
}

export function serializeBaseline(b: Baseline): string {
  return `${JSON.stringify(b, null, 2)}\n`
}

/** How many file × configuration sizes differ between two measurements (a row new in `now` counts as changed). */
export function changedSizes(before: readonly BaselineFile[], now: readonly BaselineFile[]): number {
  const key = (f: BaselineFile, config: string) => `${f.name}\0${config}`
  const size = (r: SizeRow) => r.fileBytes ?? r.dataBytes + r.dictBytes
  const old = new Map(before.flatMap((f) => f.rows.map((r) => [key(f, r.config), size(r)] as const)))
  return now.reduce((n, f) => n + f.rows.filter((r) => old.get(key(f, r.config)) !== size(r)).length, 0)
}

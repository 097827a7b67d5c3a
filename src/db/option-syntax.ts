/**
 * Options a given RocksDB release parses, in that release's syntax (the table: option-versions.ts).
 *
 * compression_opts has two syntaxes: the brace form `{level=3;max_dict_bytes=16384;...}` (RocksDB
 * 6.12 on) and the colon form `window_bits:level:strategy:max_dict_bytes[:zstd_max_train_bytes[:enabled]]`
 * (every release; positional, so a later field needs every earlier one). A field the release does
 * not know makes its OPTIONS parser reject the whole file, so a field is written only from the release
 * that added it; a setting that needs a field (zstd's finalize dictionaries: use_zstd_dict_trainer;
 * zstd's checksum; a max_compressed_bytes_per_kb of its own) is only recommended from that release on.
 */
import { encodeOptionMap } from '../format/options-file.js'
import type { SettingSpec } from '../types/advice.js'
import type { AdviceNote } from '../types/advice.js'
import { OPTION_VERSIONS } from './option-versions.js'

/** major, minor, patch. */
export type RocksdbVersion = readonly [number, number, number]

/** "7.8.3", "6.2" → [7, 8, 3], [6, 2, 0]; null for anything else. */
export function parseRocksdbVersion(text: string | null | undefined): RocksdbVersion | null {
  const m = /^\s*(\d{1,3})\.(\d{1,3})(?:\.(\d{1,4}))?\s*$/.exec(text ?? '')
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null
}

export function versionText(v: RocksdbVersion): string {
  return `${v[0]}.${v[1]}.${v[2]}`
}

/** Whether release `v` is at or past `since` ("major.minor"); a name in no release (null) is never. */
export function atLeast(v: RocksdbVersion, since: string | null): boolean {
  if (since === null) return false
  const [major, minor] = since.split('.').map(Number)
  return v[0] !== major ? v[0] > major : v[1] >= minor
}

/** The later of two "major.minor" releases; null (in no release) wins. */
export function laterRelease(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return null
  const pa = parseRocksdbVersion(a) as RocksdbVersion
  return atLeast(pa, b) ? a : b
}

const TYPE_NAMES: Record<string, keyof typeof OPTION_VERSIONS.compressionTypes> = {
  none: 'kNoCompression',
  snappy: 'kSnappyCompression',
  zlib: 'kZlibCompression',
  bzip2: 'kBZip2Compression',
  lz4: 'kLZ4Compression',
  lz4hc: 'kLZ4HCCompression',
  xpress: 'kXpressCompression',
  zstd: 'kZSTD',
}

const braceSince = (field: string): string | null => (OPTION_VERSIONS.compressionOptsBraceFields as Record<string, string | undefined>)[field] ?? null
const colonSince = (field: string): string | null => (OPTION_VERSIONS.compressionOptsColonFields as Record<string, string | undefined>)[field] ?? null
export const optionSince = (name: string): string | null => (OPTION_VERSIONS.columnFamilyOptions as Record<string, string | undefined>)[name] ?? null

/** What a setting needs beyond the compression_opts every release has: each field or name and the release that added it. */
export function settingNeeds(s: SettingSpec): { what: string; since: string | null }[] {
  const out: { what: string; since: string | null }[] = []
  const type = TYPE_NAMES[s.type]
  if (type) out.push({ what: type, since: OPTION_VERSIONS.compressionTypes[type] ?? null })
  // A dictionary needs max_dict_bytes; a trained (or finalized) one zstd_max_train_bytes (colon form: 4.8 and 5.14).
  if (s.type !== 'none' && s.dict !== 'none') out.push({ what: 'max_dict_bytes', since: colonSince('max_dict_bytes') })
  if (s.type === 'zstd' && (s.dict === 'train' || s.dict === 'finalize')) out.push({ what: 'zstd_max_train_bytes', since: colonSince('zstd_max_train_bytes') })
  if (s.type === 'zstd' && s.dict === 'finalize') out.push({ what: 'use_zstd_dict_trainer', since: braceSince('use_zstd_dict_trainer') })
  if (s.type === 'zstd' && s.checksum) out.push({ what: 'checksum', since: braceSince('checksum') })
  if (s.type !== 'none' && s.maxCompressedBytesPerKb !== undefined)
    out.push({ what: 'max_compressed_bytes_per_kb', since: braceSince('max_compressed_bytes_per_kb') })
  return out
}

/**
 * Whether release `v` (null: the newest) gives the bottommost level compression_opts of its own
 * (bottommost_compression_opts, 5.15); before, the bottommost level shares compression_opts with
 * every other level.
 */
export function bottommostOwnOpts(v: RocksdbVersion | null): boolean {
  return v === null || atLeast(v, optionSince('bottommost_compression_opts'))
}

/** The first release that can do `s` as evaluated ("major.minor"), or null when none up to the table's newest. */
export function minimumRelease(s: SettingSpec): string | null {
  return settingNeeds(s).reduce<string | null>((acc, n) => laterRelease(acc, n.since), '0.0')
}

export function supportedBy(v: RocksdbVersion, s: SettingSpec): boolean {
  return settingNeeds(s).every((n) => atLeast(v, n.since))
}

/** RocksDB's defaults for the colon form's leading fields sstkit never changes. */
const COLON_DEFAULTS: Record<string, string> = { window_bits: '-14', strategy: '0', max_dict_bytes: '0', zstd_max_train_bytes: '0', enabled: 'false' }

/**
 * compression_opts' value for release `v` (null: unknown, the newest syntax) from fields in
 * sstkit's order. Fields `v` does not parse are left out: callers have kept out settings that
 * need them, so what is left out is only what changes no block (max_dict_buffer_bytes before
 * 6.18 bounds memory while a dictionary is sampled).
 */
export function compressionOptsValue(fields: [string, string][], v: RocksdbVersion | null): string {
  if (v === null || atLeast(v, OPTION_VERSIONS.compressionOptsBraceForm)) {
    return encodeOptionMap(Object.fromEntries(fields.filter(([k]) => v === null || atLeast(v, braceSince(k)))))
  }
  const values = new Map(fields)
  const order = OPTION_VERSIONS.compressionOptsColonOrder.filter((k) => atLeast(v, colonSince(k)))
  // Positional: write up to the last field that is set, each earlier one at its value or default.
  let last = 2
  order.forEach((k, i) => {
    if (values.has(k) && values.get(k) !== COLON_DEFAULTS[k]) last = Math.max(last, i)
  })
  return order
    .slice(0, last + 1)
    .map((k) => values.get(k) ?? COLON_DEFAULTS[k] ?? '0')
    .join(':')
}

/** What a compression_opts value as written needs: the brace form and each of its fields, or the colon form's positions. */
export function compressionOptsNeeds(value: string): { what: string; since: string | null }[] {
  if (value.startsWith('{')) {
    const names = [...value.slice(1, -1).matchAll(/(?:^|;)([a-z_0-9]+)=/g)].map((m) => m[1])
    return [{ what: 'compression_opts={...}', since: OPTION_VERSIONS.compressionOptsBraceForm }, ...names.map((k) => ({ what: k, since: braceSince(k) }))]
  }
  const order = OPTION_VERSIONS.compressionOptsColonOrder
  return value.split(':').map((_, i) => ({ what: order[i] ?? `field ${i + 1}`, since: order[i] ? colonSince(order[i]) : null }))
}

/** The release that parses a compression type name (kZSTD, ...), or null when none does. */
export function typeNameSince(name: string): string | null {
  return (OPTION_VERSIONS.compressionTypes as Record<string, string | undefined>)[name] ?? null
}

export const BRACE_FORM_SINCE = OPTION_VERSIONS.compressionOptsBraceForm
export const NEWEST_RELEASE_READ = OPTION_VERSIONS.newestRelease

/** The release advise writes options for, where it was read, and the notes that say so. */
export interface OptionsRelease {
  version: RocksdbVersion | null
  source: { version: string; from: 'OPTIONS' | 'LOG' | 'flag' } | null
  notes: AdviceNote[]
}

/**
 * The release to write options for: the database's own (`own`, from its OPTIONS file or LOG), else
 * `flag` (--rocksdb-version), else none (the newest syntax). `problem`: `flag` is not X.Y[.Z].
 */
export function optionsRelease(own: OptionsRelease['source'], flag: string | undefined): OptionsRelease | { problem: string } {
  const given = flag === undefined ? null : parseRocksdbVersion(flag)
  if (flag !== undefined && given === null) return { problem: `--rocksdb-version: '${flag}' is not a release (X.Y or X.Y.Z)` }
  const ownVersion = own ? parseRocksdbVersion(own.version) : null
  if (own && ownVersion) {
    const notes =
      given && versionText(given) !== versionText(ownVersion)
        ? [{ code: 'rocksdb-version-flag-ignored' as const, flag: flag as string, from: own.from, version: own.version }]
        : []
    return { version: ownVersion, source: own, notes }
  }
  if (given) return { version: given, source: { version: flag as string, from: 'flag' }, notes: [] }
  return {
    version: null,
    source: null,
    notes: [{ code: 'rocksdb-version-unknown' }],
  }
}

/**
 * The compression type byte of a block trailer (RocksDB `CompressionType`,
 * include/rocksdb/compression_type.h) and the one table of its names:
 *
 *   byte   short (sstkit flags)  RocksDB name (properties)  options-file name
 *   0x00   none                  NoCompression              kNoCompression
 *   0x01   snappy                Snappy                     kSnappyCompression
 *   0x02   zlib                  Zlib                       kZlibCompression
 *   0x03   bzip2                 BZip2                      kBZip2Compression
 *   0x04   lz4                   LZ4                        kLZ4Compression
 *   0x05   lz4hc                 LZ4HC                      kLZ4HCCompression
 *   0x06   -                     Xpress                     kXpressCompression
 *   0x07   zstd                  ZSTD                       kZSTD
 *   0x40   -                     ZSTDNotFinal               kZSTDNotFinalCompression
 *   0xff   -                     DisableOption              kDisableCompressionOption
 *
 * 0x80..0xfe are custom compressors (`CustomXX`), the rest reserved (`ReservedXX`).
 */

export const CompressionType = {
  None: 0,
  Snappy: 1,
  Zlib: 2,
  BZip2: 3,
  LZ4: 4,
  LZ4HC: 5,
  Xpress: 6,
  ZSTD: 7,
  /** Pre-1.0 zstd format id used by RocksDB 4.0–9.x; same frame format as ZSTD. */
  ZSTDNotFinal: 0x40,
} as const
export type CompressionTypeValue = (typeof CompressionType)[keyof typeof CompressionType]

interface CompressionNames {
  type: number
  /** sstkit's flag name, for the types sstkit can write. */
  short?: string
  /** RocksDB's CompressionTypeToString. */
  name: string
  /** The options file / options map name. */
  option: string
}

/** Options only (kDisableCompressionOption, "use the per-level setting"); never stored in a block. */
const DISABLE_OPTION = 0xff

const NAMES: readonly CompressionNames[] = [
  { type: CompressionType.None, short: 'none', name: 'NoCompression', option: 'kNoCompression' },
  { type: CompressionType.Snappy, short: 'snappy', name: 'Snappy', option: 'kSnappyCompression' },
  { type: CompressionType.Zlib, short: 'zlib', name: 'Zlib', option: 'kZlibCompression' },
  { type: CompressionType.BZip2, short: 'bzip2', name: 'BZip2', option: 'kBZip2Compression' },
  { type: CompressionType.LZ4, short: 'lz4', name: 'LZ4', option: 'kLZ4Compression' },
  { type: CompressionType.LZ4HC, short: 'lz4hc', name: 'LZ4HC', option: 'kLZ4HCCompression' },
  { type: CompressionType.Xpress, name: 'Xpress', option: 'kXpressCompression' },
  { type: CompressionType.ZSTD, short: 'zstd', name: 'ZSTD', option: 'kZSTD' },
  { type: CompressionType.ZSTDNotFinal, name: 'ZSTDNotFinal', option: 'kZSTDNotFinalCompression' },
  { type: DISABLE_OPTION, name: 'DisableOption', option: 'kDisableCompressionOption' },
]

const byType = new Map(NAMES.map((n) => [n.type, n]))

/** sstkit's short names (none, snappy, zlib, bzip2, lz4, lz4hc, zstd), in type order. */
export const COMPRESSION_SHORT_NAMES: readonly string[] = NAMES.flatMap((n) => (n.short ? [n.short] : []))

function hex2(t: number): string {
  return (t & 0xff).toString(16).toUpperCase().padStart(2, '0')
}

/** 0x80..0xfe: a custom compressor's type byte. */
export function isCustomCompressionType(t: number): boolean {
  return t >= 0x80 && t <= 0xfe
}

/** Whether RocksDB names this byte (built-in types, ZSTDNotFinal, DisableOption). */
export function isKnownCompressionType(t: number): boolean {
  return byType.has(t)
}

/** RocksDB's CompressionTypeToString (as in property values and sst_dump). */
export function compressionTypeName(t: number): string {
  return byType.get(t)?.name ?? `${isCustomCompressionType(t) ? 'Custom' : 'Reserved'}${hex2(t)}`
}

/** The name used in options files / the options map (`kZSTD`, `kLZ4Compression`, ...). */
export function compressionOptionName(t: number): string {
  const known = byType.get(t)?.option
  if (known !== undefined) return known
  if (isCustomCompressionType(t)) return `kCustomCompression${hex2(t)}`
  return compressionTypeName(t)
}

/** sstkit's short name (`zstd`), or RocksDB's name for types sstkit has no flag name for. */
export function compressionShortName(t: number): string {
  return byType.get(t)?.short ?? compressionTypeName(t)
}

/** The type byte for a short name (case-insensitive), or undefined. */
export function compressionTypeFromShortName(name: string): number | undefined {
  const n = name.toLowerCase()
  return NAMES.find((x) => x.short === n)?.type
}

/** The type byte for an options-file name (`kZSTD`, `kCustomCompressionAB`), or undefined. */
export function compressionTypeFromOptionName(name: string): number | undefined {
  const known = NAMES.find((x) => x.option === name)?.type
  if (known !== undefined) return known
  const m = /^kCustomCompression([0-9A-F]{2})$/.exec(name)
  if (m && isCustomCompressionType(parseInt(m[1], 16))) return parseInt(m[1], 16)
  return undefined
}

/** The type byte for RocksDB's CompressionTypeToString name (`ZSTD`, as the rocksdb.compression property holds it), or undefined. */
export function compressionTypeFromName(name: string): number | undefined {
  return NAMES.find((x) => x.name === name)?.type
}

/**
 * The types a rocksdb.compression property names: one CompressionTypeToString name before
 * format_version 7; from 7 the compression manager's schema "BuiltinV2;0407;" (the type bytes
 * the file used, two hex digits each; ";;" for none). undefined: neither form.
 */
export function compressionPropertyTypes(property: string): number[] | undefined {
  if (property === ';;') return [CompressionType.None]
  const v2 = /^BuiltinV2;((?:[0-9a-fA-F]{2})*);/.exec(property)
  if (v2) {
    const types = (v2[1].match(/../g) ?? []).map((h) => parseInt(h, 16))
    return types.length ? types : [CompressionType.None]
  }
  const t = compressionTypeFromName(property)
  return t === undefined ? undefined : [t]
}

/** A rocksdb.compression property as RocksDB's type names ("LZ4", "LZ4+ZSTD" for a BuiltinV2 file that used both); other values as they are. */
export function compressionPropertyName(property: string): string {
  const types = compressionPropertyTypes(property)
  return types ? types.map(compressionTypeName).join('+') : property
}

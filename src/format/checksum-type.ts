/** The block checksum type byte of the footer (RocksDB `ChecksumType`, include/rocksdb/table.h). */

export const ChecksumType = { None: 0, CRC32c: 1, xxHash: 2, xxHash64: 3, XXH3: 4 } as const
export type ChecksumTypeValue = (typeof ChecksumType)[keyof typeof ChecksumType]

const CHECKSUM_NAMES = ['kNoChecksum', 'kCRC32c', 'kxxHash', 'kxxHash64', 'kXXH3']

/** sstkit's flag names (`--checksum-type`), in type order. */
export const CHECKSUM_SHORT_NAMES: readonly string[] = ['none', 'crc32c', 'xxhash', 'xxhash64', 'xxh3']

/** RocksDB's enum name (`kXXH3`, ...), or `unknown(<n>)`. */
export function checksumTypeName(t: number): string {
  return CHECKSUM_NAMES[t] ?? `unknown(${t})`
}

/** The type byte for a short name (`xxh3`), or undefined. */
export function checksumTypeFromShortName(name: string): number | undefined {
  const i = CHECKSUM_SHORT_NAMES.indexOf(name.toLowerCase())
  return i < 0 ? undefined : i
}

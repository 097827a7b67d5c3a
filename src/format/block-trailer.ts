/**
 * The 5-byte trailer after every block (RocksDB `kBlockTrailerSize`):
 *
 *   [compression type: u8][checksum: u32 LE]
 *
 * The checksum covers the stored payload followed by the compression-type byte.
 * For format_version >= 6 the stored value also has a per-offset context
 * modifier added (see codec/checksum.ts contextModifier).
 */
import { readFixed32 } from './coding.js'

export const BLOCK_TRAILER_BYTES = 5

export interface BlockTrailer {
  readonly compressionType: number
  readonly storedChecksum: number
}

/** Decode the trailer found at `pos` in `bytes` (the byte after the payload). */
export function decodeBlockTrailer(bytes: Uint8Array, pos: number): BlockTrailer {
  return { compressionType: bytes[pos], storedChecksum: readFixed32(bytes, pos + 1) }
}

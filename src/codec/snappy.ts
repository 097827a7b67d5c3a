/**
 * Snappy adapter (type 0x01): raw Snappy format, whose own varint32 preamble
 * gives the uncompressed length (RocksDB adds no prefix). RocksDB stores but
 * ignores a dictionary for Snappy, so there is no dictionary parameter here.
 */
import { compressSync, uncompressSync } from 'snappy'
import { plainBytes } from './output.js'

export function snappyDecompress(src: Uint8Array): Uint8Array {
  // copyOutputData: measured 735–1046 MB/s vs 289 MB/s with default options.
  const out = uncompressSync(src, { copyOutputData: true, asBuffer: true })
  if (typeof out === 'string') throw new Error('snappy returned a string') // unreachable with asBuffer
  return plainBytes(out)
}

export function snappyCompress(raw: Uint8Array): Uint8Array {
  return plainBytes(compressSync(raw, { copyOutputData: true }))
}

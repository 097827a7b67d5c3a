/**
 * BlockHandle: where a block lives in the file (RocksDB `table/format.h`).
 *
 *   varint64 offset | varint64 size
 *
 * `size` is the stored payload length, excluding the 5-byte block trailer.
 */
import { type Cursor, varintLength, writeVarint } from './coding.js'

/** Longest encoded handle: two varint64s. */
export const MAX_BLOCK_HANDLE_BYTES = 20

export interface BlockHandle {
  /** File offset of the block payload. */
  readonly offset: number
  /** Payload length in bytes, not counting the trailer. */
  readonly size: number
}

export const NULL_BLOCK_HANDLE: BlockHandle = Object.freeze({ offset: 0, size: 0 })

export function decodeBlockHandle(c: Cursor): BlockHandle {
  const offset = c.varint64()
  const size = c.varint64()
  return { offset, size }
}

export function encodeBlockHandle(h: BlockHandle): Uint8Array {
  const out = new Uint8Array(varintLength(h.offset) + varintLength(h.size))
  writeVarint(out, writeVarint(out, 0, h.offset), h.size)
  return out
}

export function isNullHandle(h: BlockHandle): boolean {
  return h.offset === 0 && h.size === 0
}

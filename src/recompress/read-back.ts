/**
 * Reading a setting's table back, as a reader reads its data blocks: each block's checksum, its
 * decompression and a walk over every entry (readCpuMs). Measured on the round trip's blocks
 * (round-trip.ts: those at its positions, compressed or stored raw; all of them on a file under
 * 64 MiB of data) on the thread that evaluates the setting, and scaled by bytes to every block.
 */
import { BlockIter, decodeBlockLayout } from '../format/block.js'
import { CorruptionError } from '../format/errors.js'

/** The read-back's thread CPU and wall-clock time, ms, and the uncompressed bytes it read. */
export interface ReadSums {
  cpuMs: number
  wallMs: number
  timedBytes: number
}

export function emptyReadSums(): ReadSums {
  return { cpuMs: 0, wallMs: 0, timedBytes: 0 }
}

/** The read CPU of every data block (`bytes` uncompressed): the timed blocks' scaled by bytes (exact when all were timed); null when none was (no round trip). */
export function readCpuEstimate(s: ReadSums, bytes: number): number | null {
  return scaled(s.cpuMs, s, bytes)
}

/** The read wall-clock time of every data block, scaled as readCpuEstimate (null exactly where it is). */
export function readWallEstimate(s: ReadSums, bytes: number): number | null {
  return scaled(s.wallMs, s, bytes)
}

function scaled(ms: number, s: ReadSums, bytes: number): number | null {
  if (bytes === 0) return 0
  return s.timedBytes > 0 ? ms * (bytes / s.timedBytes) : null
}

// The key being rebuilt, as RocksDB's IterKey: one buffer per thread, grown as keys need.
let keyBuffer = new Uint8Array(256)
let at = 0

function varint32(b: Uint8Array, end: number): number {
  let result = 0
  for (let shift = 0; shift <= 28; shift += 7) {
    if (at >= end) break
    const byte = b[at++]
    result |= (byte & 0x7f) << shift
    if (byte < 0x80) return result >>> 0
  }
  throw new CorruptionError('data block entry has a bad varint', at)
}

/**
 * Walk every entry of an uncompressed data block as a reader iterates it: the three lengths decoded,
 * the key rebuilt from the shared prefix and its delta, the value found. No object per entry, as
 * RocksDB's block iterator makes none. The number of entries.
 */
export function walkEntries(block: Uint8Array, restartInterval: number): number {
  const layout = decodeBlockLayout(block, 0, 'data block')
  if (layout.separatedKV) {
    // Values in a section of their own (RocksDB 11): the block iterator knows where each lies.
    const it = new BlockIter(block, 0, 'data block', restartInterval, false, layout)
    let n = 0
    for (it.seekToFirst(); it.valid; it.next()) n++
    return n
  }
  const end = layout.entriesEnd
  let key = keyBuffer
  let keyLength = 0
  let n = 0
  at = 0
  while (at < end) {
    const shared = varint32(block, end)
    const nonShared = varint32(block, end)
    const valueLength = varint32(block, end)
    if (shared > keyLength || at + nonShared + valueLength > end) throw new CorruptionError(`data block entry ${n} runs past its block`, at)
    keyLength = shared + nonShared
    if (key.length < keyLength) {
      const grown = new Uint8Array(keyLength * 2)
      grown.set(key.subarray(0, shared))
      keyBuffer = key = grown
    }
    for (let i = 0; i < nonShared; i++) key[shared + i] = block[at + i]
    at += nonShared + valueLength
    n++
  }
  return n
}

/**
 * The `rocksdb.seqno.time.map` table property (RocksDB 7.5+,
 * `db/seqno_to_time_mapping.cc` `SeqnoToTimeMapping::EncodeTo` / `DecodeFrom`):
 *
 *   empty                                   (no mapping)
 *   varint64 count | count × (varint64 seqno_delta, varint64 time_delta)
 *
 * Each pair is stored as the difference from the previous pair (the first
 * from 0/0), in unsigned 64-bit arithmetic. Times are unix seconds.
 */
import { Cursor } from './coding.js'
import { CorruptionError } from './errors.js'
import type { SequenceNumber } from './internal-key.js'
import { Property } from './properties.js'

export const SEQNO_TIME_MAP_PROPERTY = Property.SeqnoTimeMap

export interface SeqnoTimePair {
  seqno: SequenceNumber
  /** Unix time in seconds (number when exact, else bigint). */
  time: number | bigint
}

export interface DecodeSeqnoTimeMapOptions {
  /**
   * Ignore bytes after the last pair. RocksDB before 8.11 ignored them; 8.11+
   * reports "Extra bytes at end of sequence number time mapping".
   */
  allowTrailingBytes?: boolean
}

const MASK64 = (1n << 64n) - 1n
const WHAT = 'seqno-to-time mapping'

function toNum(v: bigint): number | bigint {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
}

/** Decode the property value. `base` is the file offset of `bytes[0]`, used in error messages. */
export function decodeSeqnoTimeMap(bytes: Uint8Array, base = 0, opts: DecodeSeqnoTimeMapOptions = {}): SeqnoTimePair[] {
  if (bytes.length === 0) return []
  const c = new Cursor(bytes, 0, bytes.length, base, WHAT)
  const count = c.varint64Big()
  // Each pair takes at least two bytes: reject impossible counts before looping.
  if (count * 2n > BigInt(c.remaining)) {
    throw new CorruptionError(`${WHAT}: ${count} pairs need at least ${count * 2n} bytes but only ${c.remaining} remain`, base)
  }
  const out: SeqnoTimePair[] = []
  let seqno = 0n
  let time = 0n
  for (let i = 0n; i < count; i++) {
    seqno = (seqno + c.varint64Big()) & MASK64
    time = (time + c.varint64Big()) & MASK64
    out.push({ seqno: toNum(seqno), time: toNum(time) })
  }
  if (c.remaining !== 0 && !opts.allowTrailingBytes) {
    throw new CorruptionError(`${WHAT}: ${c.remaining} extra byte(s) after the ${count} pairs`, c.fileOffset)
  }
  return out
}

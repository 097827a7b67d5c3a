/**
 * Values of kTypeValuePreferredSeqno entries (RocksDB 9.1+, `TimedPut`):
 *
 *   value = user_value | fixed64 LE preferred_seqno
 *
 * (`db/seqno_to_time_mapping.cc` `PackValueAndSeqno` / `ParsePackedValueWithSeqno`.
 * In the memtable and WAL the suffix is a unix write time; flush converts it to
 * a sequence number before the entry reaches an SST.)
 */
import { readFixed32 } from './coding.js'
import { CorruptionError } from './errors.js'
import type { SequenceNumber } from './internal-key.js'

export const PREFERRED_SEQNO_BYTES = 8

export interface ValueWithPreferredSeqno {
  /** The user value (a view into the input). */
  value: Uint8Array
  preferredSeqno: SequenceNumber
}

/**
 * Split a kTypeValuePreferredSeqno value. `base` is the file offset of
 * `bytes[0]`, used in error messages.
 */
export function splitValuePreferredSeqno(bytes: Uint8Array, base?: number): ValueWithPreferredSeqno {
  const n = bytes.length
  if (n < PREFERRED_SEQNO_BYTES) {
    throw new CorruptionError(`kTypeValuePreferredSeqno value: ${n} bytes is shorter than its 8-byte preferred sequence number`, base)
  }
  const lo = readFixed32(bytes, n - 8)
  const hi = readFixed32(bytes, n - 4)
  // The 64-bit number is a sequence number, so reuse the seq representation
  // (number when exact, else bigint) but without the 8-bit type shift.
  const preferredSeqno: SequenceNumber = hi < 0x200000 ? hi * 0x100000000 + lo : (BigInt(hi) << 32n) | BigInt(lo)
  return { value: bytes.subarray(0, n - 8), preferredSeqno }
}

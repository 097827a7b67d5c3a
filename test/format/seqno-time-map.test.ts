import { describe, it, expect } from 'vitest'
import { decodeSeqnoTimeMap } from '../../src/format/seqno-time-map.js'
import { encodeVarint } from '../../src/format/coding.js'
import { catchErr } from './catch-corruption.js'
import { formatSeqnoTimeMap, formatSeqnoTimeMapProperty } from '../../src/report/sst-dump-text.js'

// Synthetic property values built from SeqnoToTimeMapping::EncodeTo's layout.
function enc(...nums: (number | bigint)[]): Uint8Array {
  return Uint8Array.from(nums.flatMap((n) => Array.from(encodeVarint(n))))
}

describe('decodeSeqnoTimeMap (synthetic bytes)', () => {
  it('undoes the delta encoding', () => {
    // pairs (10, 1700000000), (25, 1700000100), (25, 1700000160)
    const bytes = enc(3, 10, 1700000000, 15, 100, 0, 60)
    const pairs = decodeSeqnoTimeMap(bytes)
    expect(pairs).toEqual([
      { seqno: 10, time: 1700000000 },
      { seqno: 25, time: 1700000100 },
      { seqno: 25, time: 1700000160 },
    ])
    expect(formatSeqnoTimeMap(pairs)).toBe('10->1700000000,25->1700000100,25->1700000160,')
    expect(formatSeqnoTimeMapProperty(bytes)).toBe('10->1700000000,25->1700000100,25->1700000160,')
  })

  it('decodes an empty property and a zero count as no pairs', () => {
    expect(decodeSeqnoTimeMap(new Uint8Array(0))).toEqual([])
    expect(decodeSeqnoTimeMap(enc(0))).toEqual([])
    expect(formatSeqnoTimeMapProperty(new Uint8Array(0))).toBe('')
  })

  it('keeps values above 2^53 exact', () => {
    const pairs = decodeSeqnoTimeMap(enc(1, (1n << 56n) - 1n, 1n << 60n))
    expect(pairs).toEqual([{ seqno: (1n << 56n) - 1n, time: 1n << 60n }])
  })

  it('rejects a count the bytes cannot hold', () => {
    const e = catchErr(() => decodeSeqnoTimeMap(enc(1000, 1, 1), 4000))
    expect(e.message).toMatch(/1000 pairs need at least 2000 bytes but only 2 remain/)
    expect(e.offset).toBe(4000)
  })

  it('rejects a truncated pair', () => {
    const bytes = Uint8Array.from([...enc(2, 1, 1), 0x80, 0x01, 0x80])
    const e = catchErr(() => decodeSeqnoTimeMap(bytes, 4000))
    expect(e.message).toMatch(/seqno-to-time mapping: truncated varint64/)
    expect(e.offset).toBe(4000 + bytes.length)
    expect(formatSeqnoTimeMapProperty(bytes)).toBe('N/A')
  })

  it('rejects extra bytes unless asked to allow them (RocksDB < 8.11)', () => {
    const bytes = Uint8Array.from([...enc(1, 5, 6), 0x42])
    const e = catchErr(() => decodeSeqnoTimeMap(bytes, 4000))
    expect(e.message).toMatch(/1 extra byte\(s\) after the 1 pairs/)
    expect(e.offset).toBe(4003)
    expect(decodeSeqnoTimeMap(bytes, 0, { allowTrailingBytes: true })).toEqual([{ seqno: 5, time: 6 }])
    expect(formatSeqnoTimeMapProperty(bytes)).toBe('N/A')
    expect(formatSeqnoTimeMapProperty(bytes, { allowTrailingBytes: true })).toBe('5->6,')
  })
})

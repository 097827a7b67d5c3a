import { describe, it, expect } from 'vitest'
import { splitValuePreferredSeqno } from '../../src/format/preferred-seqno.js'
import { CorruptionError } from '../../src/format/errors.js'
import { formatValuePreferredSeqno } from '../../src/report/sst-dump-text.js'

function packed(value: number[], seqno: bigint): Uint8Array {
  const out = new Uint8Array(value.length + 8)
  out.set(value)
  new DataView(out.buffer).setBigUint64(value.length, seqno, true)
  return out
}

describe('splitValuePreferredSeqno (synthetic bytes)', () => {
  it('splits value and fixed64 preferred seqno', () => {
    const r = splitValuePreferredSeqno(packed([0x76, 0x61, 0x6c], 0x0102030405n))
    expect(Array.from(r.value)).toEqual([0x76, 0x61, 0x6c])
    expect(r.preferredSeqno).toBe(0x0102030405)
    expect(formatValuePreferredSeqno(r)).toBe(`val, ${0x0102030405}`)
    expect(formatValuePreferredSeqno(r, { hex: true })).toBe(`76616C, ${0x0102030405}`)
  })

  it('accepts an empty user value', () => {
    const r = splitValuePreferredSeqno(packed([], 9n))
    expect(r.value.length).toBe(0)
    expect(r.preferredSeqno).toBe(9)
    expect(formatValuePreferredSeqno(r)).toBe(', 9')
  })

  it('keeps large seqnos exact as bigint', () => {
    const big = (1n << 56n) - 1n
    expect(splitValuePreferredSeqno(packed([1], big)).preferredSeqno).toBe(big)
    expect(splitValuePreferredSeqno(packed([1], (1n << 53n) - 1n)).preferredSeqno).toBe(2 ** 53 - 1)
  })

  it('rejects values shorter than 8 bytes, with the offset', () => {
    const err = (() => {
      try {
        splitValuePreferredSeqno(Uint8Array.of(1, 2, 3), 4096)
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(CorruptionError)
    expect((err as CorruptionError).offset).toBe(4096)
    expect((err as Error).message).toMatch(/3 bytes is shorter than its 8-byte preferred sequence number/)
  })
})

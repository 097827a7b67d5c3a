import { describe, expect, it } from 'vitest'
import { Cursor, encodeVarint } from '../../src/format/coding.js'
import { parseInternalKey, encodeInternalKey, internalKeyComparator, bytewiseComparator } from '../../src/format/internal-key.js'

describe('varints', () => {
  it.each([0, 1, 127, 128, 300, 2 ** 32 - 1, 2 ** 53 - 1])('round-trips %d', (n) => {
    expect(new Cursor(encodeVarint(n)).varint64()).toBe(n)
  })
  it.each([0, 1, 127, 128, 16_383, 16_384, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 35 + 129, 2 ** 53 - 1])('encodes %d as a number as it does as a bigint', (n) => {
    expect(encodeVarint(n)).toEqual(encodeVarint(BigInt(n)))
  })
  it('refuses a negative value, number or bigint', () => {
    expect(() => encodeVarint(-1)).toThrow(RangeError)
    expect(() => encodeVarint(-1n)).toThrow(RangeError)
  })
  it('decodes 64-bit values exactly as bigint', () => {
    const v = (1n << 63n) + 5n
    expect(new Cursor(encodeVarint(v)).varint64Big()).toBe(v)
  })
  it.each([0, 127, 128, 16_383, 16_384, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 32 - 1])('round-trips varint32 %d', (n) => {
    expect(new Cursor(encodeVarint(n)).varint32()).toBe(n)
  })
  it('refuses a truncated varint with the file offset', () => {
    expect(() => new Cursor(Uint8Array.of(0x80, 0x80), 0, 2, 500, 'index').varint32()).toThrow(/index: truncated varint32.*at offset 502/)
  })
  it('refuses a varint32 over 32 bits', () => {
    expect(() => new Cursor(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x7f)).varint32()).toThrow(/overflows 32 bits/)
  })
  it('decodes zigzag signed varints', () => {
    expect(new Cursor(encodeVarint(5)).varsigned64()).toBe(-3)
    expect(new Cursor(encodeVarint(6)).varsigned64()).toBe(3)
  })
})

describe('internal keys', () => {
  it('parses sequence and type, keeping large sequences exact', () => {
    const k = encodeInternalKey(new TextEncoder().encode('abc'), 123456789, 1)
    expect(parseInternalKey(k)).toMatchObject({ seq: 123456789, type: 1 })
    const big = encodeInternalKey(new Uint8Array(0), (1n << 56n) - 1n, 0x0f)
    expect(parseInternalKey(big).seq).toBe((1n << 56n) - 1n)
  })
  it('orders by user key ascending, then by sequence descending', () => {
    const cmp = internalKeyComparator(bytewiseComparator)
    const a = new TextEncoder().encode('a')
    expect(cmp(encodeInternalKey(a, 5, 1), encodeInternalKey(a, 3, 1))).toBeLessThan(0)
    expect(cmp(encodeInternalKey(a, 5, 1), encodeInternalKey(new TextEncoder().encode('b'), 9, 1))).toBeLessThan(0)
  })
})

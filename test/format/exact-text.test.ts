import { describe, expect, it } from 'vitest'
import { exactText, exactTextBytes, hasRawBytes } from '../../src/format/exact-text.js'
import { prng } from '../../src/util/prng.js'

const bytes = (...b: number[]) => Uint8Array.from(b)

describe('exact text: names as their bytes', () => {
  it('valid UTF-8 is itself; each byte outside a valid sequence is U+DC00 + byte', () => {
    expect(exactText(Buffer.from('café\n\x01'))).toBe('café\n\x01')
    expect(exactText(bytes(0xff))).toBe('\udcff')
    expect(exactText(bytes(0x63, 0x61, 0x6f, 0xe9))).toBe('cao\udce9')
    // overlong, an encoded surrogate, beyond U+10FFFF, a cut sequence: not UTF-8, byte by byte
    expect(exactText(bytes(0xc0, 0x80))).toBe('\udcc0\udc80')
    expect(exactText(bytes(0xed, 0xa0, 0x80))).toBe('\udced\udca0\udc80')
    expect(exactText(bytes(0xf4, 0x90, 0x80, 0x80))).toBe('\udcf4\udc90\udc80\udc80')
    expect(exactText(bytes(0x61, 0xe2, 0x82))).toBe('a\udce2\udc82')
    expect(hasRawBytes('cao\udce9')).toBe(true)
    expect(hasRawBytes('café')).toBe(false)
  })

  it('gives back the exact bytes, and two different byte strings never one string', () => {
    const rand = prng(7)
    const seen = new Map<string, string>()
    for (let n = 0; n < 5000; n++) {
      const b = Uint8Array.from({ length: 1 + Math.floor(rand() * 6) }, () => Math.floor(rand() * 256))
      const s = exactText(b)
      expect(Buffer.from(exactTextBytes(s)).equals(b)).toBe(true)
      const hex = Buffer.from(b).toString('hex')
      expect(seen.get(s) ?? hex).toBe(hex)
      seen.set(s, hex)
    }
    expect(JSON.stringify(exactText(bytes(0xff, 0x01)))).toBe('"\\udcff\\u0001"')
  })
})

import { describe, it, expect } from 'vitest'
import { decodeHashIndex } from '../../src/format/hash-index.js'
import { encodeVarint } from '../../src/format/coding.js'
import { catchErr } from './catch-corruption.js'

// Synthetic meta blocks built from the HashIndexBuilder layout.
const te = new TextEncoder()
const td = new TextDecoder()
function meta(...recs: [number, number, number][]): Uint8Array {
  return Uint8Array.from(recs.flatMap((r) => r.flatMap((n) => Array.from(encodeVarint(n)))))
}

describe('decodeHashIndex (synthetic bytes)', () => {
  it('pairs prefixes with their block ranges', () => {
    const r = decodeHashIndex(te.encode('aaabbcccc'), meta([3, 0, 2], [2, 1, 1], [4, 2, 300]))
    expect(r.map((p) => ({ ...p, prefix: td.decode(p.prefix) }))).toEqual([
      { prefix: 'aaa', firstIndexEntry: 0, numBlocks: 2 },
      { prefix: 'bb', firstIndexEntry: 1, numBlocks: 1 },
      { prefix: 'cccc', firstIndexEntry: 2, numBlocks: 300 },
    ])
  })

  it('accepts two empty blocks', () => {
    expect(decodeHashIndex(new Uint8Array(0), new Uint8Array(0))).toEqual([])
  })

  it('rejects a truncated metadata record', () => {
    const m = meta([3, 0, 2]).subarray(0, 2)
    const e = catchErr(() => decodeHashIndex(te.encode('aaa'), m, { metadataBase: 500 }))
    expect(e.message).toMatch(/hash index metadata: truncated varint32/)
    expect(e.offset).toBe(502)
  })

  it('rejects a prefix running past the prefixes block', () => {
    const e = catchErr(() => decodeHashIndex(te.encode('aaab'), meta([3, 0, 1], [2, 1, 1]), { metadataBase: 500, prefixesBase: 100 }))
    expect(e.message).toMatch(/prefix 1 is 2 bytes but only 1 of the 4-byte prefixes block remain \(at prefixes offset 103\)/)
    expect(e.offset).toBe(503)
  })

  it('rejects prefix lengths that do not cover the prefixes block', () => {
    const e = catchErr(() => decodeHashIndex(te.encode('aaabb'), meta([3, 0, 1]), { prefixesBase: 100 }))
    expect(e.message).toMatch(/1 prefixes totalling 3 bytes but the prefixes block has 5/)
    expect(e.offset).toBe(103)
  })

  it('rejects a prefix with no blocks', () => {
    const e = catchErr(() => decodeHashIndex(te.encode('a'), meta([1, 0, 0]), { metadataBase: 7 }))
    expect(e.message).toMatch(/prefix 0 covers 0 data blocks/)
    expect(e.offset).toBe(7)
  })

  it('checks block ranges against the index size when given', () => {
    expect(decodeHashIndex(te.encode('ab'), meta([1, 0, 2], [1, 2, 1]), { numIndexEntries: 3 })).toHaveLength(2)
    const e = catchErr(() => decodeHashIndex(te.encode('ab'), meta([1, 0, 2], [1, 2, 2]), { numIndexEntries: 3, metadataBase: 10 }))
    expect(e.message).toMatch(/prefix 1 covers index entries 2..3 but the index has 3/)
    expect(e.offset).toBe(13)
  })
})

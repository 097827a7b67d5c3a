import { describe, expect, it } from 'vitest'
import { BlockBuilder } from '../../src/format/block.js'
import { encodeVarint } from '../../src/format/coding.js'
import { IndexBlockIter, ShortenedIndexBuilder } from '../../src/format/index-block.js'

const ikey = (s: string): Uint8Array => Buffer.concat([Buffer.from(s), Buffer.from([1, 0, 0, 0, 0, 0, 0, 0])])
const enc = { keyIsUserKey: false, hasFirstKey: false }

/** Handles of every varint length up to 2^53 - 1: 1 to 8 bytes. */
const handles = [0, 1, 127, 128, 2 ** 21, 2 ** 28 + 5, 2 ** 35 - 1, 2 ** 42 + 3, 2 ** 49 + 7, Number.MAX_SAFE_INTEGER - 1000].map((offset, i) => ({
  offset,
  size: [10, 200, 16_383, 16_384, 2 ** 21 + 1, 4096, 1, 70_000, 2 ** 30, 999][i],
}))

function walk(block: Uint8Array, deltas: boolean) {
  const it = new IndexBlockIter(block, 0, { ...enc, valueIsDeltaEncoded: deltas })
  const out: { offset: number; size: number }[] = []
  for (it.seekToFirst(); it.valid; it.next()) out.push(it.handle)
  return out
}

describe('IndexBlockIter', () => {
  it('decodes full handles of every varint length', () => {
    const b = new ShortenedIndexBuilder({ userKeys: false, deltaValues: false })
    for (const [i, h] of handles.entries()) b.add(ikey(`k${i}`), i + 1 < handles.length ? ikey(`k${i + 1}`) : null, h)
    expect(walk(b.finish(), false)).toEqual(handles)
  })

  it('decodes delta-encoded sizes (format_version >= 4), growing and shrinking', () => {
    const sizes = [4000, 4100, 3900, 2 ** 22, 17, 2 ** 31]
    const hs: { offset: number; size: number }[] = []
    let offset = 2 ** 40
    for (const size of sizes) {
      hs.push({ offset, size })
      offset += size + 5
    }
    const b = new ShortenedIndexBuilder({ userKeys: false, deltaValues: true, restartInterval: 4 })
    for (const [i, h] of hs.entries()) b.add(ikey(`k${i}`), i + 1 < hs.length ? ikey(`k${i + 1}`) : null, h)
    expect(walk(b.finish(), true)).toEqual(hs)
  })

  it('reports a truncated or malformed handle varint', () => {
    const block = (value: Uint8Array): Uint8Array => {
      const bb = new BlockBuilder(1, true, false)
      bb.add(ikey('a'), value)
      return bb.finish()
    }
    const truncated = block(Uint8Array.from([...encodeVarint(300), 0x80]))
    expect(() => walk(truncated, false)).toThrow(/truncated block size in index value/)
    const long = block(Uint8Array.from([...new Array(10).fill(0xff), 1]))
    expect(() => walk(long, false)).toThrow(/malformed block offset in index value/)
    const past = block(Uint8Array.from([...new Array(7).fill(0xff), 0x7f, 0]))
    expect(() => walk(past, false)).toThrow(/malformed block offset in index value/)
  })
})

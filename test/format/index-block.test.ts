import { describe, expect, it } from 'vitest'
import { BlockBuilder } from '../../src/format/block.js'
import { encodeBlockHandle } from '../../src/format/block-handle.js'
import { encodeVarint } from '../../src/format/coding.js'
import { IndexBlockIter } from '../../src/format/index-block.js'

const key = (i: number) => new TextEncoder().encode(`key${String(i).padStart(4, '0')}`)

// Offsets and sizes whose varints take 1 to 8 bytes: each byte's weight must be exact.
const handles = [
  { offset: 0, size: 127 },
  { offset: 4096 + 5, size: 16_384 },
  { offset: 2 ** 32 - 1, size: 2 ** 21 + 3 },
  { offset: 2 ** 40 + 12_345, size: 2 ** 28 - 1 },
  { offset: 2 ** 53 - 2 ** 30, size: 4 },
]

describe('IndexBlockIter', () => {
  it('decodes block handles of every varint length exactly', () => {
    const b = new BlockBuilder(1, true, false)
    for (const [i, h] of handles.entries()) b.add(key(i), encodeBlockHandle(h))
    const it = new IndexBlockIter(b.finish(), 0, { keyIsUserKey: true, valueIsDeltaEncoded: false, hasFirstKey: false })
    const got = []
    for (it.seekToFirst(); it.valid; it.next()) got.push({ ...it.handle })
    expect(got).toEqual(handles)
  })

  it('decodes delta-encoded sizes after a full handle', () => {
    // Consecutive blocks (each after the previous one's 5-byte trailer), as format_version >= 4 writes them.
    const sizes = [2 ** 28 - 1, 300, 2 ** 21 + 3, 5]
    const b = new BlockBuilder(16, true, true)
    let offset = 2 ** 40
    const want = []
    for (let i = 0; i < sizes.length; i++) {
      const h = { offset, size: sizes[i] }
      want.push(h)
      const d = i === 0 ? 0 : sizes[i] - sizes[i - 1]
      const delta = i === 0 ? encodeBlockHandle(h) : encodeVarint(d >= 0 ? 2 * d : -2 * d - 1) // zigzag
      b.add(key(i), encodeBlockHandle(h), delta)
      offset += sizes[i] + 5
    }
    const it = new IndexBlockIter(b.finish(), 0, { keyIsUserKey: true, valueIsDeltaEncoded: true, hasFirstKey: false })
    const got = []
    for (it.seekToFirst(); it.valid; it.next()) got.push({ ...it.handle })
    expect(got).toEqual(want)
  })

  it('refuses a value varint longer than 10 bytes, naming it', () => {
    const b = new BlockBuilder(1, true, false)
    b.add(
      key(0),
      Uint8Array.from({ length: 11 }, () => 0x80),
    )
    const it = new IndexBlockIter(b.finish(), 1000, { keyIsUserKey: true, valueIsDeltaEncoded: false, hasFirstKey: false })
    expect(() => it.seekToFirst()).toThrow(/truncated block offset in index value|malformed block offset in index value/)
  })
})

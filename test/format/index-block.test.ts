import { describe, expect, it } from 'vitest'
import { BlockBuilder } from '../../src/format/block.js'
import { encodeVarint } from '../../src/format/coding.js'
import { IndexBlockIter, SeparatorLog, ShortenedIndexBuilder } from '../../src/format/index-block.js'

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

describe('SeparatorLog', () => {
  /** Keys with trailer seq/type; `split` puts one user key across a block boundary. */
  const key = (user: string, seq: number): Uint8Array => {
    const k = new Uint8Array(user.length + 8)
    k.set(Buffer.from(user))
    new DataView(k.buffer).setBigUint64(user.length, (BigInt(seq) << 8n) | 1n, true)
    return k
  }
  function blocks(split: boolean) {
    const out: { first: Uint8Array; last: Uint8Array; handle: { offset: number; size: number } }[] = []
    let offset = 0
    for (let i = 0; i < 300; i++) {
      const size = 1000 + ((i * 7919) % 3000)
      const first = key(`user:${String(i * 10).padStart(8, '0')}`, 5)
      const last = split && i === 150 ? key(`user:${String((i + 1) * 10).padStart(8, '0')}`, 9) : key(`user:${String(i * 10 + 7).padStart(8, '0')}:tail`, 5)
      out.push({ first, last, handle: { offset, size } })
      offset += size + 5
    }
    return out
  }

  for (const [name, opts] of [
    ['format_version 5', { userKeys: true, deltaValues: true }],
    ['format_version 2 (internal keys, full handles)', { userKeys: false, deltaValues: false }],
    ['no shortening (another comparator)', { userKeys: true, deltaValues: true, shorten: false }],
  ] as const) {
    for (const split of [false, true]) {
      it(`builds the same index as ShortenedIndexBuilder from logged separators: ${name}${split ? ', a user key split across blocks' : ''}`, () => {
        const bs = blocks(split)
        const direct = new ShortenedIndexBuilder(opts)
        const log = new SeparatorLog(opts)
        for (const [i, b] of bs.entries()) {
          const next = i + 1 < bs.length ? bs[i + 1].first : null
          direct.add(b.last, next, b.handle)
          // Two writers note every block: the second's notes are no-ops.
          log.note(i, b.last, next)
          log.note(i, b.last, next)
        }
        const built = log.build(bs.length, (i) => bs[i].handle)
        expect(Buffer.from(built.block).equals(Buffer.from(direct.finish()))).toBe(true)
        expect(built.keysAreUserKeys).toBe(direct.keysAreUserKeys)
        expect(built.keysAreUserKeys).toBe(opts.userKeys && !(split && opts.shorten !== false))
      })
    }
  }

  it('refuses a block noted out of order, and more blocks than noted', () => {
    const log = new SeparatorLog({ userKeys: true, deltaValues: true })
    log.note(0, key('a', 1), key('b', 1))
    expect(() => log.note(2, key('c', 1), null)).toThrow(/block 2 recorded before block 1/)
    expect(() => log.build(2, () => ({ offset: 0, size: 1 }))).toThrow(/2 blocks indexed, 1 recorded/)
  })
})

/**
 * Every restart point of every block is checked as it is decoded (count, order, bounds), so that a
 * damaged restart array is an error and never reads as a shorter or empty block. Synthetic blocks.
 */
import { describe, expect, it } from 'vitest'
import { BlockBuilder, BlockIter, decodeBlockLayout } from '../../src/format/block.js'
import { decodeMetaindex, encodeMetaindex } from '../../src/format/metaindex.js'
import { catchErr as catchCorruption } from './catch-corruption.js'
import { buildBlock } from './synthetic-block.js'

const BASE = 1000
const entries = Array.from({ length: 8 }, (_, i) => ({ key: `key-${i}`, value: `value-${i}` }))

/** A block of `entries` with restart interval 2 (4 restart points), and where its restart array starts. */
function block(): { bytes: Uint8Array; restarts: number; view: DataView } {
  const bytes = buildBlock(entries, 2)
  const view = new DataView(bytes.buffer)
  const n = view.getUint32(bytes.length - 4, true)
  return { bytes, restarts: bytes.length - 4 - 4 * n, view }
}

describe('restart points', () => {
  it('a well-formed block passes and reads every entry', () => {
    const { bytes } = block()
    const it = new BlockIter(bytes, BASE)
    let n = 0
    for (it.seekToFirst(); it.valid; it.next()) n++
    expect(n).toBe(8)
  })

  it('an empty block (one restart point at 0, no entries) passes', () => {
    const empty = new BlockBuilder().finish()
    expect(decodeBlockLayout(empty, BASE).numRestarts).toBe(1)
  })

  it('entries without any restart point are an error, not an empty block', () => {
    const { bytes, view } = block()
    // Restart count 0: the whole block before the footer would read as entries nobody can reach.
    view.setUint32(bytes.length - 4, 0, true)
    const e = catchCorruption(() => decodeBlockLayout(bytes, BASE, 'metaindex block'))
    expect(e.message).toMatch(/^metaindex block holds \d+ bytes of entries but no restart point/)
  })

  it('a first restart point other than 0 is an error, at its file offset', () => {
    const { bytes, restarts, view } = block()
    view.setUint32(restarts, view.getUint32(restarts + 4, true), true)
    const e = catchCorruption(() => decodeBlockLayout(bytes, BASE, 'index block'))
    expect(e.message).toMatch(/^index block restart point 0 is \d+, not 0/)
    expect(e.offset).toBe(BASE + restarts)
  })

  it('restart points out of order are an error', () => {
    const { bytes, restarts, view } = block()
    const second = view.getUint32(restarts + 4, true)
    view.setUint32(restarts + 4, view.getUint32(restarts + 8, true), true)
    view.setUint32(restarts + 8, second, true)
    const e = catchCorruption(() => new BlockIter(bytes, BASE, 'data block'))
    expect(e.message).toMatch(/^data block restart point 2 \(\d+\) does not follow restart point 1/)
    expect(e.offset).toBe(BASE + restarts + 8)
  })

  it('a restart point past the entries is an error', () => {
    const { bytes, restarts, view } = block()
    view.setUint32(restarts + 12, restarts + 50, true)
    const e = catchCorruption(() => new BlockIter(bytes, BASE, 'data block'))
    expect(e.message).toMatch(new RegExp(`^data block restart point 3 \\(${restarts + 50}\\) lies past its ${restarts} bytes of entries`))
  })
})

describe('metaindex', () => {
  const handle = { offset: 10, size: 20 }

  it('refuses bit 31 (a data block hash index) in its footer instead of reading it as empty', () => {
    const bytes = encodeMetaindex([{ name: 'rocksdb.properties', handle }])
    const view = new DataView(bytes.buffer)
    view.setUint32(bytes.length - 4, (view.getUint32(bytes.length - 4, true) | 0x80000000) >>> 0, true)
    const e = catchCorruption(() => decodeMetaindex(bytes, BASE))
    expect(e.message).toMatch(/^metaindex block footer 0x80000001 has bit 31/)
    expect(e.offset).toBe(BASE + bytes.length - 4)
  })

  it('names a damaged entry with its bytes escaped, on one line', () => {
    const b = new BlockBuilder(1)
    // A name with a newline and a non-UTF-8 byte, and a handle cut short (a varint that never ends).
    b.add(Uint8Array.of(0x61, 0x0a, 0x62, 0xff), Uint8Array.of(0x80))
    const e = catchCorruption(() => decodeMetaindex(b.finish(), BASE))
    expect(e.message).toContain("metaindex entry 'a\\x0ab\\xff'")
    expect(e.message).not.toMatch(/[\n\r\ufffd]/)
  })

  it('still reads what RocksDB writes', () => {
    const bytes = encodeMetaindex([
      { name: 'rocksdb.properties', handle },
      { name: 'fullfilter.rocksdb.BuiltinBloomFilter', handle: { offset: 40, size: 5 } },
    ])
    expect(decodeMetaindex(bytes, BASE)).toEqual([
      { name: 'fullfilter.rocksdb.BuiltinBloomFilter', handle: { offset: 40, size: 5 } },
      { name: 'rocksdb.properties', handle },
    ])
  })
})

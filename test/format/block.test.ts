import { describe, expect, it } from 'vitest'
import { BlockBuilder, BlockIter, decodeBlockLayout } from '../../src/format/block.js'
import { CorruptionError } from '../../src/format/errors.js'
import { buildBlock } from './synthetic-block.js'

const text = (b: Uint8Array) => new TextDecoder().decode(b)
const keys = Array.from({ length: 40 }, (_, i) => `key${String(i * 2).padStart(4, '0')}`)
const block = buildBlock(
  keys.map((k, i) => ({ key: k, value: `v${i}` })),
  16,
)
const cmp = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b))

describe('BlockIter', () => {
  it('iterates every entry, rebuilding shared prefixes', () => {
    const it = new BlockIter(block, 1000)
    const seen: string[] = []
    for (it.seekToFirst(); it.valid; it.next()) seen.push(`${text(it.key)}=${text(it.value)}`)
    expect(seen).toEqual(keys.map((k, i) => `${k}=v${i}`))
    expect(it.layout.numRestarts).toBe(3)
  })

  it('seeks to the first key >= target, within and across restart intervals', () => {
    const it = new BlockIter(block, 0)
    it.seek(new TextEncoder().encode('key0033'), cmp)
    expect(text(it.key)).toBe('key0034')
    it.seek(new TextEncoder().encode('key0000'), cmp)
    expect(text(it.key)).toBe('key0000')
    it.seek(new TextEncoder().encode('key0032'), cmp)
    expect(text(it.key)).toBe('key0032')
    it.seek(new TextEncoder().encode('zzz'), cmp)
    expect(it.valid).toBe(false)
  })

  it('reports a first entry that shares key bytes (it starts restart interval 0), with the file offset', () => {
    const bad = block.slice()
    bad[0] = 5 // first entry claims 5 shared bytes of an empty previous key
    const it = new BlockIter(bad, 4096, 'data block')
    expect(() => it.seekToFirst()).toThrow(CorruptionError)
    expect(() => new BlockIter(bad, 4096, 'data block').seekToFirst()).toThrow(/entry at restart point 0 has shared length 5, not 0.*at offset 4096/)
  })

  it('reports a value length that runs past the block', () => {
    const bad = buildBlock([{ key: 'k', value: 'v' }])
    bad[2] = 0x7f // value_len of the only entry
    expect(() => new BlockIter(bad, 0).seekToFirst()).toThrow(/value length 127 runs past/)
  })
})

describe('decodeBlockLayout', () => {
  it('refuses a restart count the block cannot hold, without allocating it', () => {
    const bad = block.slice()
    new DataView(bad.buffer).setUint32(bad.length - 4, 0x0fffffff, true)
    expect(() => decodeBlockLayout(bad, 100, 'index block')).toThrow(/claims 268435455 restart points/)
  })

  it('refuses the reserved footer bit', () => {
    const bad = block.slice()
    new DataView(bad.buffer).setUint32(bad.length - 4, (3 | (1 << 30)) >>> 0, true)
    expect(() => decodeBlockLayout(bad, 0)).toThrow(/reserved bit 30/)
  })

  it('refuses a block shorter than its footer', () => {
    expect(() => decodeBlockLayout(new Uint8Array(3), 77)).toThrow(/too short.*at offset 77/)
  })

  it('finds the restart array before a data-block hash index', () => {
    const plain = buildBlock([{ key: 'a', value: '1' }], 16)
    // entries | restarts | buckets(3) | u16 num_buckets | footer with bit 31
    const entriesAndRestarts = plain.subarray(0, plain.length - 4)
    const withHash = new Uint8Array(entriesAndRestarts.length + 3 + 2 + 4)
    withHash.set(entriesAndRestarts)
    withHash.set([0, 255, 255], entriesAndRestarts.length)
    const view = new DataView(withHash.buffer)
    view.setUint16(entriesAndRestarts.length + 3, 3, true)
    view.setUint32(withHash.length - 4, (1 | 0x80000000) >>> 0, true)
    const layout = decodeBlockLayout(withHash, 0)
    expect(layout.hashIndex).toEqual({ bucketsOffset: entriesAndRestarts.length, numBuckets: 3 })
    expect(layout.restartsOffset).toBe(entriesAndRestarts.length - 4)
    const it = new BlockIter(withHash, 0)
    it.seekToFirst()
    expect(text(it.key)).toBe('a')
  })
})

describe('separated key/value data blocks (RocksDB 11 layout, synthetic bytes)', () => {
  /** keys | values | restarts | values_section_offset | footer (bit 28), as BlockBuilder::Finish writes. */
  function separated(entries: [string, string][], interval: number): Uint8Array {
    const keys: number[] = []
    const values: number[] = []
    const restarts: number[] = []
    let prev = ''
    entries.forEach(([k, v], i) => {
      const atRestart = i % interval === 0
      let shared = 0
      if (atRestart) restarts.push(keys.length)
      else while (shared < prev.length && prev[shared] === k[shared]) shared++
      keys.push(shared, k.length - shared, v.length)
      if (atRestart) keys.push(values.length) // value offset within the values section
      keys.push(...Buffer.from(k.slice(shared)))
      values.push(...Buffer.from(v))
      prev = k
    })
    const out = new Uint8Array(keys.length + values.length + 4 * restarts.length + 8)
    out.set(keys)
    out.set(values, keys.length)
    const view = new DataView(out.buffer)
    let p = keys.length + values.length
    for (const r of restarts) {
      view.setUint32(p, r, true)
      p += 4
    }
    view.setUint32(p, keys.length, true)
    view.setUint32(p + 4, (restarts.length | (1 << 28)) >>> 0, true)
    return out
  }

  const entries: [string, string][] = Array.from({ length: 10 }, (_, i) => [`k${i}`, `value-${i}`.repeat((i % 3) + 1)])
  const b = separated(entries, 4)

  it("BlockBuilder's separated layout is these bytes, and reads back (values of 0 to 300 bytes, intervals 1, 3, 4)", () => {
    const small = new BlockBuilder(4, true, false, true)
    for (const [k, v] of entries) small.add(Buffer.from(k), Buffer.from(v))
    expect(Buffer.from(small.finish()).equals(Buffer.from(b))).toBe(true)
    const many: [string, string][] = Array.from({ length: 23 }, (_, i) => [`key${String(i).padStart(3, '0')}`, 'x'.repeat((i * 37) % 301)])
    for (const interval of [1, 3, 4]) {
      const builder = new BlockBuilder(interval, true, false, true)
      for (const [k, v] of many) builder.add(Buffer.from(k), Buffer.from(v))
      const built = builder.finish()
      const it = new BlockIter(built, 0, 'data block', interval)
      const seen: [string, string][] = []
      for (it.seekToFirst(); it.valid; it.next()) seen.push([text(it.key), text(it.value)])
      expect(seen).toEqual(many)
      expect(builder.empty).toBe(true)
    }
  })

  it('reads keys from the keys section and values from the values section', () => {
    const it = new BlockIter(b, 0, 'data block', 4)
    const seen: [string, string][] = []
    for (it.seekToFirst(); it.valid; it.next()) seen.push([text(it.key), text(it.value)])
    expect(it.layout.separatedKV).toBe(true)
    expect(seen).toEqual(entries)
  })

  it('seeks into the middle of a restart interval', () => {
    const it = new BlockIter(b, 0, 'data block', 4)
    it.seek(new TextEncoder().encode('k6'), cmp)
    expect([text(it.key), text(it.value)]).toEqual(entries[6])
  })

  it('requires the restart interval property', () => {
    expect(() => new BlockIter(b, 0, 'data block', 0)).toThrow(/separated key\/value layout/)
  })

  /** Walk every entry of `block` (interval 4); the error met, if any. */
  const walk = (block: Uint8Array) => {
    try {
      const it = new BlockIter(block, 100, 'data block', 4)
      for (it.seekToFirst(); it.valid; it.next()) {}
      return null
    } catch (e) {
      return e as CorruptionError
    }
  }
  // restarts at 0 and the 5th and 9th entries: the array sits before the values section offset and the footer
  const restartsAt = b.length - 8 - 4 * 3
  const view = new DataView(b.buffer)

  it('finds a restart point moved into an entry: the interval before it runs past restartInterval entries', () => {
    const bad = b.slice()
    const point = view.getUint32(restartsAt + 4, true)
    new DataView(bad.buffer).setUint32(restartsAt + 4, point + 1, true)
    const e = walk(bad)
    expect(e?.message).toMatch(/^data block: restart interval 0 runs past 4 entries with no restart point/)
    expect(e?.offset).toBe(100 + point)
  })

  it('finds a restart point moved back into the entry before it, at its place in the restart array', () => {
    const bad = b.slice()
    new DataView(bad.buffer).setUint32(restartsAt + 8, view.getUint32(restartsAt + 8, true) - 1, true)
    const e = walk(bad)
    expect(e?.message).toMatch(/^data block restart point 2 \(\d+\) is not the start of an entry: it falls inside the entry at \d+/)
    expect(e?.offset).toBe(100 + restartsAt + 8)
  })

  it('finds a restart point on an entry that does not begin an interval of restartInterval entries', () => {
    // the entry before the 5th starts here: an interval of 3
    const bad = b.slice()
    const it = new BlockIter(b, 0, 'data block', 4)
    const offsets: number[] = []
    for (it.seekToFirst(); it.valid; it.next()) offsets.push(it.entryOffset)
    new DataView(bad.buffer).setUint32(restartsAt + 4, offsets[3], true)
    expect(walk(bad)?.message).toMatch(/restart point 1 \(\d+\) ends restart interval 0 after 3 entries, not 4/)
  })

  it('finds an entry at a restart point that shares key bytes', () => {
    const bad = b.slice()
    bad[view.getUint32(restartsAt + 8, true)] = 1
    expect(walk(bad)?.message).toMatch(/^data block: entry at restart point 2 has shared length 1, not 0/)
  })
})

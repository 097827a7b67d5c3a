import { describe, it, expect } from 'vitest'
import { identifyFilter, identifyBlockBasedFilter } from '../../src/format/filter.js'
import { catchErr } from './catch-corruption.js'

// Synthetic filter blocks: zero-filled data + metadata laid out as in
// table/block_based/filter_policy.cc (the filter bits are irrelevant here).
function filter(dataBytes: number, meta: number[]): Uint8Array {
  const out = new Uint8Array(dataBytes + 5)
  out.set(meta, dataBytes)
  return out
}
function u32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]
}

describe('identifyFilter: empty and special markers', () => {
  it('treats ≤ 5 bytes as always-false', () => {
    for (const n of [0, 1, 5]) {
      expect(identifyFilter(new Uint8Array(n))).toEqual({ kind: 'alwaysFalse', totalBytes: n, metadataBytes: n, dataBytes: 0 })
    }
  })
  it('marker 0 is always-true', () => {
    expect(identifyFilter(filter(64, [0, 0, 0, 0, 0]))).toMatchObject({ kind: 'alwaysTrue', marker: 0, dataBytes: 64, metadataBytes: 5, totalBytes: 69 })
  })
  it('other negative markers are reserved', () => {
    expect(identifyFilter(filter(64, [0xfd, 1, 2, 3, 4]))).toMatchObject({ kind: 'reserved', marker: -3 })
    expect(identifyFilter(filter(8, [0x80, 0, 0, 0, 0]))).toMatchObject({ kind: 'reserved', marker: -128 })
  })
})

describe('identifyFilter: FastLocalBloom (marker -1)', () => {
  it('decodes num_probes and 64-byte blocks', () => {
    const f = identifyFilter(filter(64 * 10, [0xff, 0, 6, 0, 0]), 0, { numKeys: 512 })
    expect(f).toEqual({
      kind: 'fastLocalBloom',
      numProbes: 6,
      blockBytes: 64,
      numBlocks: 10,
      unusedBytes: 0,
      totalBytes: 645,
      metadataBytes: 5,
      dataBytes: 640,
      bitsPerKey: 10,
    })
  })
  it('reports data beyond the last whole block', () => {
    expect(identifyFilter(filter(64 * 2 + 3, [0xff, 0, 30, 0, 0]))).toMatchObject({ numBlocks: 2, unusedBytes: 3, numProbes: 30 })
  })
  it('rejects a non-zero sub-implementation', () => {
    const e = catchErr(() => identifyFilter(filter(128, [0xff, 1, 6, 0, 0]), 1000))
    expect(e.message).toMatch(/unknown sub-implementation 1/)
    expect(e.offset).toBe(1000 + 128 + 1)
  })
  it('rejects num_probes 0 and 31', () => {
    for (const p of [0, 31]) {
      const e = catchErr(() => identifyFilter(filter(128, [0xff, 0, p, 0, 0]), 1000))
      expect(e.message).toMatch(new RegExp(`num_probes ${p} outside 1..30`))
      expect(e.offset).toBe(1000 + 128 + 2)
    }
  })
  it('rejects reserved block sizes', () => {
    const e = catchErr(() => identifyFilter(filter(128, [0xff, 0, (1 << 5) | 6, 0, 0]), 1000))
    expect(e.message).toMatch(/128-byte blocks are reserved/)
    expect(e.offset).toBe(1130)
  })
  it('rejects non-zero reserved bytes', () => {
    const e = catchErr(() => identifyFilter(filter(128, [0xff, 0, 6, 0, 1]), 1000))
    expect(e.message).toMatch(/reserved metadata bytes are 0x0100/)
    expect(e.offset).toBe(1131)
  })
})

describe('identifyFilter: Ribbon (marker -2)', () => {
  it('decodes seed, num_blocks and the column layout', () => {
    // 3 blocks, 7 segments of 16 bytes: ceil(7/3)=3 columns from block 2, 2 before
    const f = identifyFilter(filter(7 * 16, [0xfe, 42, 3, 0, 0]))
    expect(f).toEqual({
      kind: 'ribbon',
      seed: 42,
      numBlocks: 3,
      numSlots: 384,
      numSegments: 7,
      upperNumColumns: 3,
      upperStartBlock: 2,
      unusedBytes: 0,
      totalBytes: 117,
      metadataBytes: 5,
      dataBytes: 112,
    })
  })
  it('reads num_blocks as 24-bit little endian', () => {
    const f = identifyFilter(filter(0x010203 * 16, [0xfe, 0, 0x03, 0x02, 0x01]))
    expect(f).toMatchObject({ kind: 'ribbon', numBlocks: 0x010203, upperNumColumns: 1, upperStartBlock: 0 })
  })
  it('caps columns at 32 and reports the unused space', () => {
    const f = identifyFilter(filter(2 * 40 * 16 + 8, [0xfe, 0, 2, 0, 0]))
    expect(f).toMatchObject({ upperNumColumns: 32, upperStartBlock: 0, numSegments: 64, unusedBytes: 16 * 16 + 8 })
  })
  it('rejects num_blocks < 2', () => {
    for (const nb of [0, 1]) {
      const e = catchErr(() => identifyFilter(filter(32, [0xfe, 0, nb, 0, 0]), 500))
      expect(e.message).toMatch(new RegExp(`num_blocks ${nb} is below the minimum of 2`))
      expect(e.offset).toBe(500 + 32 + 2)
    }
  })
})

describe('identifyFilter: legacy Bloom (marker 1..127)', () => {
  it('decodes num_probes and 64-byte cache lines', () => {
    expect(identifyFilter(filter(64 * 3, [6, ...u32(3)]))).toEqual({
      kind: 'legacyBloom',
      numProbes: 6,
      numLines: 3,
      lineBytes: 64,
      totalBytes: 197,
      metadataBytes: 5,
      dataBytes: 192,
    })
  })
  it('derives other power-of-two line sizes', () => {
    expect(identifyFilter(filter(128 * 4, [127, ...u32(4)]))).toMatchObject({ numProbes: 127, numLines: 4, lineBytes: 128 })
    expect(identifyFilter(filter(32 * 5, [2, ...u32(5)]))).toMatchObject({ lineBytes: 32 })
  })
  it('rejects num_lines that does not divide the data', () => {
    const e = catchErr(() => identifyFilter(filter(100, [6, ...u32(3)]), 2000))
    expect(e.message).toMatch(/100 data bytes are not a whole number of its 3 cache lines/)
    expect(e.offset).toBe(2101)
    expect(catchErr(() => identifyFilter(filter(64, [6, ...u32(0)]))).message).toMatch(/its 0 cache lines/)
  })
  it('rejects a non-power-of-two line size', () => {
    const e = catchErr(() => identifyFilter(filter(96 * 2, [6, ...u32(2)]), 0))
    expect(e.message).toMatch(/96-byte lines, not a power of two/)
    expect(e.offset).toBe(193)
  })
})

describe('identifyBlockBasedFilter (obsolete filter.<policy>)', () => {
  // two filters: [0,10) with k=6 in its last byte, and an empty one [10,10)
  function blockBased(): Uint8Array {
    const data = new Uint8Array(10)
    data[9] = 6
    return Uint8Array.from([...data, ...u32(0), ...u32(10), ...u32(10), 11])
  }
  it('decodes offsets, base_lg and per-filter probes', () => {
    expect(identifyBlockBasedFilter(blockBased())).toEqual({
      kind: 'blockBased',
      baseLg: 11,
      numFilters: 2,
      arrayOffset: 10,
      totalBytes: 23,
      filters: [
        { index: 0, start: 0, end: 10, numProbes: 6 },
        { index: 1, start: 10, end: 10, numProbes: null },
      ],
    })
  })
  it('accepts a block with no filters', () => {
    expect(identifyBlockBasedFilter(Uint8Array.from([...u32(0), 11]))).toMatchObject({ numFilters: 0, filters: [] })
  })
  it('rejects a block shorter than its trailer', () => {
    const e = catchErr(() => identifyBlockBasedFilter(Uint8Array.of(0, 0, 11), 300))
    expect(e.message).toMatch(/3 bytes is shorter than the 5-byte trailer/)
    expect(e.offset).toBe(300)
  })
  it('rejects an array offset past the data', () => {
    const e = catchErr(() => identifyBlockBasedFilter(Uint8Array.from([...u32(1), 11]), 300))
    expect(e.message).toMatch(/offset array start 1 is past the end/)
    expect(e.offset).toBe(300)
  })
  it('rejects a partial offset entry', () => {
    const e = catchErr(() => identifyBlockBasedFilter(Uint8Array.from([0, 0, 0, ...u32(0), 11]), 300))
    expect(e.message).toMatch(/3 bytes is not a whole number of fixed32 offsets/)
    expect(e.offset).toBe(300)
  })
  it('rejects a bad base_lg', () => {
    const b = blockBased()
    b[b.length - 1] = 64
    expect(catchErr(() => identifyBlockBasedFilter(b, 0)).offset).toBe(22)
  })
  it('rejects decreasing or out-of-range offsets', () => {
    const dec = Uint8Array.from([...new Uint8Array(10), ...u32(5), ...u32(3), ...u32(10), 11])
    const e = catchErr(() => identifyBlockBasedFilter(dec, 1000))
    expect(e.message).toMatch(/filter 0 spans \[5, 3\)/)
    expect(e.offset).toBe(1010)
    const past = Uint8Array.from([...new Uint8Array(10), ...u32(0), ...u32(11), ...u32(10), 11])
    expect(catchErr(() => identifyBlockBasedFilter(past, 1000)).message).toMatch(/filter 0 spans \[0, 11\)/)
  })
})

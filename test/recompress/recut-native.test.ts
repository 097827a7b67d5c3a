/**
 * The native re-cut (src/recompress/recut-native.ts, native/recut-kernel.h) against the JavaScript
 * one (BlockIter over the stored blocks, BlockBuilder cut by FlushBySizePolicy): on every table
 * real writers produced here (RocksDB 5.x to 11.8.1: inline and separated key/value layouts, hash
 * indexes, binary and long keys, 50 KB values, every entry type), at several block sizes and
 * restart intervals, the same blocks byte for byte, the same first and last keys, the same entry
 * counts and sequence numbers, and the same block starts. Damaged entries (synthetic, in a table
 * without checksums) stop both at the same entry, with the same message and the same last block.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { kernelAddon } from '../../src/codec/addon.js'
import { BlockIter } from '../../src/format/block.js'
import { readFixed32 } from '../../src/format/coding.js'
import { sequenceFrom } from '../../src/format/internal-key.js'
import { recutNative, nativeRecutApplies } from '../../src/recompress/recut-native.js'
import { type EntryPosition, recutRecording, type SkippedBlock, type SourceOptions } from '../../src/recompress/source.js'
import { BufferByteSource } from '../../src/io/byte-source.js'
import { openTable, type Table } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'

const FILES = [
  ...readdirSync(join(ROOT, 'test/fixtures/real'))
    .filter((f) => f.endsWith('.sst'))
    .map((f) => join(ROOT, 'test/fixtures/real', f)),
  ...readdirSync(join(ROOT, 'test/fixtures/v11-layout'))
    .filter((f) => f.endsWith('.sst'))
    .map((f) => join(ROOT, 'test/fixtures/v11-layout', f)),
  ...['000009.sst', '000021.sst'].map((f) => join(ROOT, 'test/fixtures/db-medium', f)),
  join(ROOT, 'examples/sample.sst'),
]

interface Cut {
  blocks: { data: string; first: string; last: string; index: number }[]
  starts: EntryPosition[]
  skipped: SkippedBlock[]
}

const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('hex')

/** The re-cut through source.ts (native unless SSTKIT_NO_NATIVE_RECUT is set). */
function cut(table: Table, opts: SourceOptions): Cut {
  const starts: EntryPosition[] = []
  const skipped: SkippedBlock[] = []
  const blocks = [...recutRecording(table, opts, skipped, starts)].map((b) => ({
    data: hex(b.data),
    first: hex(b.firstKey),
    last: hex(b.lastKey),
    index: b.index,
  }))
  return { blocks, starts, skipped }
}

function javascriptCut(table: Table, opts: SourceOptions): Cut {
  process.env.SSTKIT_NO_NATIVE_RECUT = '1'
  try {
    return cut(table, opts)
  } finally {
    delete process.env.SSTKIT_NO_NATIVE_RECUT
  }
}

/** Entries of one re-cut block counted as evaluate.ts's countEntry counts them. */
function counted(data: Uint8Array) {
  const s = {
    entries: 0,
    deletions: 0,
    merges: 0,
    rawKeyBytes: 0,
    rawValueBytes: 0,
    smallestSeq: null as number | bigint | null,
    largestSeq: null as number | bigint | null,
  }
  const it = new BlockIter(data, 0, 'data block')
  for (it.seekToFirst(); it.valid; it.next()) {
    const k = it.key
    const n = k.length
    s.entries++
    s.rawKeyBytes += n
    s.rawValueBytes += it.valueEnd - it.valueStart
    if (k[n - 8] === 0x00 || k[n - 8] === 0x07 || k[n - 8] === 0x14) s.deletions++
    else if (k[n - 8] === 0x02) s.merges++
    const seq = sequenceFrom(readFixed32(k, n - 8), readFixed32(k, n - 4))
    if (s.smallestSeq === null || seq < s.smallestSeq) s.smallestSeq = seq
    if (s.largestSeq === null || seq > s.largestSeq) s.largestSeq = seq
  }
  return s
}

describe.runIf(kernelAddon()?.recut)('the native re-cut', () => {
  afterEach(() => {
    delete process.env.SSTKIT_NO_NATIVE_RECUT
  })

  it('serves the options it should, and leaves the others to JavaScript', () => {
    const table = openTable(FILES[0])
    expect(nativeRecutApplies(table, { blockSize: 4096, samplePercent: 100 })).toBe(true)
    expect(nativeRecutApplies(table, { blockSize: null, samplePercent: 100 })).toBe(false)
    expect(nativeRecutApplies(table, { blockSize: 4096, samplePercent: 100, separateKeyValue: true })).toBe(false)
    process.env.SSTKIT_NO_NATIVE_RECUT = '1'
    expect(nativeRecutApplies(table, { blockSize: 4096, samplePercent: 100 })).toBe(false)
  })

  for (const [blockSize, restartInterval] of [
    [16384, 16],
    [4096, 16],
    [1024, 4],
    [65536, 1],
    [200, 16],
  ] as const) {
    it(`${blockSize}-byte blocks, restart interval ${restartInterval}: every real table re-cut as JavaScript re-cuts it, entries counted alike`, () => {
      let blocks = 0
      for (const file of FILES) {
        const table = openTable(file)
        const opts: SourceOptions = { blockSize, restartInterval, samplePercent: 100 }
        if (!nativeRecutApplies(table, opts)) continue
        const native = cut(table, opts)
        const js = javascriptCut(table, opts)
        expect(native.skipped, file).toEqual(js.skipped)
        expect(native.starts, file).toEqual(js.starts)
        expect(native.blocks.length, file).toBe(js.blocks.length)
        for (let i = 0; i < js.blocks.length; i++) expect(native.blocks[i], `${file} block ${i}`).toEqual(js.blocks[i])
        blocks += js.blocks.length
        // What evaluate.ts feeds its writers: each block's entries counted as its JavaScript loop counts them.
        const fed = [...recutNative(table, opts, [], undefined, true)]
        expect(fed.map((b) => hex(b.data))).toEqual(js.blocks.map((b) => b.data))
        for (const b of fed) expect(b.stats, file).toEqual(counted(b.data))
      }
      expect(blocks).toBeGreaterThan(100)
    })
  }

  it('a sample of the blocks (--sample) keeps the same blocks and indexes', () => {
    const table = openTable(join(ROOT, 'test/fixtures/db-medium/000009.sst'))
    const opts: SourceOptions = { blockSize: 4096, samplePercent: 30 }
    const native = cut(table, opts)
    expect(native.blocks.length).toBeGreaterThan(10)
    expect(native).toEqual(javascriptCut(table, opts))
  })

  it('damaged entries (synthetic, a table without checksums): both stop at the same entry, with the same message and the same blocks', () => {
    const file = join(ROOT, 'test/fixtures/real/fv5-checksum-nochecksum.sst')
    const bytes = new Uint8Array(readFileSync(file))
    const table = openTable(file)
    const first = table.dataHandles().next().value!
    let stopped = 0
    // Every byte of the first data block and its restart array, each set to values that break a varint, a length or a restart point.
    for (let at = first.offset; at < first.offset + first.size; at++) {
      for (const value of [0xff, 0x7f, 0x00]) {
        if (bytes[at] === value) continue
        const damaged = bytes.slice()
        damaged[at] = value
        const t = openTable(new BufferByteSource(damaged, `damaged at ${at}`))
        const opts: SourceOptions = { blockSize: 256, samplePercent: 100 }
        const native = cut(t, opts)
        const js = javascriptCut(t, opts)
        expect(native, `byte ${at} set to ${value}`).toEqual(js)
        if (js.skipped.length > 0) stopped++
      }
    }
    expect(stopped).toBeGreaterThan(50)
  })
})

describe("the kernel's state slots and results, as recut-native.ts names them", () => {
  // The two sides share a Float64Array by slot number and a result by value: a slot out of order
  // would hand the kernel one setting for another without any error.
  const header = readFileSync(join(ROOT, 'native/recut-kernel.h'), 'utf8')
  const driver = readFileSync(join(ROOT, 'src/recompress/recut-native.ts'), 'utf8')
  const pascal = (c: string) =>
    c
      .replace(/^RC_/, '')
      .toLowerCase()
      .replace(/(^|_)([a-z])/g, (_, __, l: string) => l.toUpperCase())
  const withoutComments = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')

  it('the slots: the header enum RC_FRESH..RC_SLOTS and enum S, name for name in the same order', () => {
    const cSlots = withoutComments(header.match(/enum \{([^}]*RC_SLOTS[^}]*)\}/)![1])
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const tsSlots = withoutComments(driver.match(/enum S \{([^}]*)\}/)![1])
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    expect(cSlots.length).toBeGreaterThan(40)
    expect(cSlots.every((s) => /^RC_[A-Z_]+$/.test(s))).toBe(true) // no explicit values: the order is the number
    expect(tsSlots).toEqual(cSlots.map(pascal))
  })

  it('the results: RC_EXHAUSTED..RC_SHORT_KEY and enum R, name for name and value for value', () => {
    const cResults = Object.fromEntries(
      [...header.match(/enum \{ (RC_EXHAUSTED[^}]*)\}/)![1].matchAll(/(RC_[A-Z_]+) = (-?\d+)/g)].map(([, name, value]) => [pascal(name), Number(value)]),
    )
    const tsResults = Object.fromEntries(
      [...withoutComments(driver.match(/enum R \{([^}]*)\}/)![1]).matchAll(/(\w+) = (-?\d+)/g)].map(([, name, value]) => [name, Number(value)]),
    )
    expect(Object.keys(cResults).length).toBe(6)
    expect(tsResults).toEqual(cResults)
  })
})

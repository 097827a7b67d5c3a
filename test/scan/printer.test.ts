/**
 * scan's printer: the WebAssembly block printer must print exactly what the
 * JavaScript printer prints (itself tested against sst_dump in test/parity),
 * on every real fixture and on synthetic tables built for the edges the fast
 * path hands back to JavaScript (unusual types, huge keys and values, seqnos
 * beyond 2^53, a full output region, malformed entries).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { LineWriter } from '../../src/report/line-writer.js'
import { EntryPrinter, type ScanSpec } from '../../src/scan/printer.js'
import { scanTable } from '../../src/scan/scan.js'
import { WasmBlockPrinter } from '../../src/scan/wasm-printer.js'
import { openTable, type Table } from '../../src/table/reader.js'
import { BAD, fixturePath, fixtures } from '../helpers.js'
import { writeSyntheticTable } from '../synthetic.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-printer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Printed {
  out: Buffer
  count: number
  error: string | null
}

function print(table: Table, spec: ScanSpec, wasm: boolean, native = true): Printed {
  const parts: Buffer[] = []
  const w = new LineWriter((b) => parts.push(Buffer.from(b)))
  const printer = new EntryPrinter(table, spec, [], { wasm, native })
  let count = 0
  let error: string | null = null
  try {
    count = printer.printBlocks(
      w,
      (function* () {
        for (const r of table.dataBlocks()) yield r.handle
      })(),
      0,
      Infinity,
    ).count
  } catch (e) {
    error = (e as Error).message
  }
  w.flush()
  return { out: Buffer.concat(parts), count, error }
}

function expectSame(table: Table, hex: boolean): Printed {
  const spec: ScanSpec = { format: 'text', hex }
  const js = print(table, spec, false)
  const fast = print(table, spec, true)
  expect(fast.error).toBe(js.error)
  expect(fast.count).toBe(js.count)
  expect(fast.out.equals(js.out)).toBe(true)
  // WebAssembly printing with each block read on its own, not a batch at a time by the native decoder
  const single = print(table, spec, true, false)
  expect(single.error).toBe(js.error)
  expect(single.out.equals(js.out)).toBe(true)
  return fast
}

const enc = (s: string) => new TextEncoder().encode(s)

/** A synthetic table with these entries, in the given order. */
function synthetic(
  name: string,
  entries: [Uint8Array, Uint8Array][],
  o: { compression?: number; blockSize?: number; props?: [string, Uint8Array][] } = {},
): string {
  return writeSyntheticTable(join(dir, `synthetic-${name}.sst`), entries, o)
}

function randomBytes(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n)
  let x = seed >>> 0 || 1
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    b[i] = x & 0xff
  }
  return b
}

describe('WasmBlockPrinter', () => {
  it('is available here (Node with WebAssembly SIMD), so the tests below exercise it', () => {
    expect(WasmBlockPrinter.create()).not.toBeNull()
  })
})

describe('wasm block printer = JavaScript printer, on every real fixture', () => {
  for (const f of fixtures()) {
    it(f.name, () => {
      const t = openTable(fixturePath(f.name))
      try {
        expectSame(t, false)
        expectSame(t, true)
      } finally {
        t.close()
      }
    })
  }
})

describe('wasm block printer = JavaScript printer, on synthetic edge tables', () => {
  it('every value type, empty and non-empty deletions, quotes, backslashes and binary bytes', () => {
    const types = [
      ValueType.Value,
      ValueType.Merge,
      ValueType.Deletion,
      ValueType.SingleDeletion,
      ValueType.DeletionWithTimestamp,
      ValueType.BlobIndex,
      ValueType.WideColumnEntity,
      ValueType.ValuePreferredSeqno,
      0x1f,
      0x55,
    ]
    const entries: [Uint8Array, Uint8Array][] = []
    for (let i = 0; i < 400; i++) {
      const type = types[i % types.length]
      const key = enc(`k'\\${String(i).padStart(5, '0')}\u00e9`)
      const value = i % 3 === 0 ? new Uint8Array(0) : i % 3 === 1 ? enc(`it's a \\value ${i}`) : randomBytes(40 + (i % 50), i)
      entries.push([encodeInternalKey(key, 1000 + i, type), value])
    }
    const t = openTable(synthetic('types', entries))
    const r = expectSame(t, false)
    expect(r.count).toBe(400)
    expectSame(t, true)
    t.close()
  })

  it('sequence numbers 0, 2^53 + 1 and 2^56 - 1 (beyond a double)', () => {
    const seqs: (number | bigint)[] = [(1n << 56n) - 1n, (1n << 53n) + 1n, 123456789, 0]
    const entries = seqs.map((s, i) => [encodeInternalKey(enc('same'), s, i % 2 ? ValueType.Value : ValueType.Merge), enc(`v${i}`)] as [Uint8Array, Uint8Array])
    const t = openTable(synthetic('seqnos', entries))
    const r = expectSame(t, false)
    expect(r.out.toString()).toContain(`@${(1n << 56n) - 1n} `)
    expect(r.out.toString()).toContain(`@${(1n << 53n) + 1n} `)
    t.close()
  })

  it('an empty user key, a 70 KB key (over the module key buffer) and a 400 KB binary value (over its output region)', () => {
    const entries: [Uint8Array, Uint8Array][] = [
      [encodeInternalKey(new Uint8Array(0), 5, ValueType.Value), enc('empty key')],
      [encodeInternalKey(enc('a'), 4, ValueType.Value), randomBytes(400_000, 7)],
      [encodeInternalKey(new Uint8Array(70_000).fill(0x62), 3, ValueType.Value), enc('long key')],
      [encodeInternalKey(enc('c'), 2, ValueType.Value), enc('after')],
    ]
    for (const compression of [CompressionType.None, CompressionType.Snappy, CompressionType.ZSTD]) {
      const t = openTable(synthetic(`big-${compression}`, entries, { compression, blockSize: 1 << 20 }))
      expect(expectSame(t, false).count).toBe(4)
      expectSame(t, true)
      t.close()
    }
  })

  it('a block whose lines overflow the output region several times (the module resumes mid-block)', () => {
    const entries: [Uint8Array, Uint8Array][] = []
    for (let i = 0; i < 24; i++) entries.push([encodeInternalKey(enc(`key${String(i).padStart(3, '0')}`), 100, ValueType.Value), randomBytes(150_000, i + 1)])
    const t = openTable(synthetic('one-big-block', entries, { compression: CompressionType.Snappy, blockSize: 8 << 20 }))
    expect([...t.dataBlocks()].length).toBe(1)
    const r = expectSame(t, false)
    expect(r.count).toBe(24)
    expect(r.out.length).toBeGreaterThan(3 << 20)
    t.close()
  })

  it('the global seqno of an ingested file replaces every seqno', () => {
    const seqno = new Uint8Array(8)
    new DataView(seqno.buffer).setBigUint64(0, 77777n, true)
    const version = new Uint8Array([2, 0, 0, 0])
    const entries = Array.from(
      { length: 50 },
      (_, i) =>
        [encodeInternalKey(enc(`g${String(i).padStart(3, '0')}`), 0, i % 2 ? ValueType.Value : ValueType.Deletion), enc(i % 2 ? 'v' : '')] as [
          Uint8Array,
          Uint8Array,
        ],
    )
    const t = openTable(
      synthetic('global-seqno', entries, {
        props: [
          ['rocksdb.external_sst_file.version', version],
          ['rocksdb.external_sst_file.global_seqno', seqno],
        ],
      }),
    )
    expect(t.globalSeqno).toBe(77777)
    const r = expectSame(t, false)
    expect(r.out.toString().split('\n')[0]).toBe("'g000' @77777 kTypeDeletion")
    t.close()
  })

  it('the real ingested file, without its range tombstones, prints its global seqno the same way', () => {
    const t = openTable(fixturePath('ingested-global-seqno'))
    expect(t.globalSeqno).toBeGreaterThan(0)
    expectSame(t, false)
    t.close()
  })
})

describe('malformed entries with valid checksums: same lines, then the same error', () => {
  for (const name of ['synthetic-shared-too-long', 'synthetic-restarts']) {
    it(name, () => {
      const t = openTable(join(BAD, `${name}.sst`))
      const r = expectSame(t, false)
      expect(r.error).toMatch(/at offset \d+/)
      t.close()
    })
  }
})

describe('scanTable', () => {
  it('prints the same bytes with and without the wasm path through the public entry point', () => {
    const t = openTable(fixturePath('binary-keys'))
    const parts: Buffer[] = []
    const w = new LineWriter((b) => parts.push(Buffer.from(b)))
    const n = scanTable(t, { format: 'text', hex: false }, w, { jobs: 1 })
    w.flush()
    t.close()
    const expected = print(openTable(fixturePath('binary-keys')), { format: 'text', hex: false }, false)
    expect(n).toBe(expected.count)
    expect(Buffer.concat(parts).equals(expected.out)).toBe(true)
  })
})

describe('limits', () => {
  it('the wasm path stops at the limit, inside a block and at block boundaries', () => {
    const t = openTable(fixturePath('fv5-snappy'))
    const all = print(t, { format: 'text', hex: false }, false).out.toString().split('\n')
    for (const limit of [0, 1, 3, 17, 100, 181, 5000]) {
      for (const wasm of [true, false]) {
        const parts: Buffer[] = []
        const w = new LineWriter((b) => parts.push(Buffer.from(b)))
        const r = new EntryPrinter(t, { format: 'text', hex: false }, [], { wasm }).printBlocks(
          w,
          (function* () {
            for (const b of t.dataBlocks()) yield b.handle
          })(),
          0,
          limit,
        )
        w.flush()
        const expected = Math.min(limit, all.length - 1)
        expect(r.count).toBe(expected)
        expect(Buffer.concat(parts).toString()).toBe(
          all
            .slice(0, expected)
            .map((l) => `${l}\n`)
            .join(''),
        )
      }
    }
    t.close()
  })
})

describe('a damaged data block among good ones (bad fixtures)', () => {
  // The native decoder reads a batch of blocks in one call and leaves the damaged one to its own
  // read: the blocks before it print, then the same error as block by block.
  for (const name of ['data-flip-none', 'data-flip-zstd', 'trailer-checksum-flip', 'trailer-type-flip']) {
    it(name, () => {
      const t = openTable(join(BAD, `${name}.sst`))
      try {
        const r = expectSame(t, false)
        expect(r.error).not.toBeNull()
        expectSame(t, true)
      } finally {
        t.close()
      }
    })
  }
})

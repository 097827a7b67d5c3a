/**
 * The dictionary buffer's spill (src/table/block-spill.ts): blocks past the memory budget go to a
 * temporary file that has no name (nothing is ever left in the directory), come back byte-exact,
 * and a rewrite that spills writes exactly the file the all-in-memory path sizes.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultRewriteOptions, openTable, rewriteFile, rewrittenSize } from '../../src/index.js'
import { BlockSpill } from '../../src/table/block-spill.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { ROOT } from '../helpers.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sstkit-spill-'))
})
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) & 0xff)

describe('BlockSpill', () => {
  it('keeps blocks within the budget in memory, spills the rest to a nameless file, returns all byte-exact', () => {
    const spill = new BlockSpill(dir, 1000)
    const held = Array.from({ length: 40 }, (_, i) => ({ block: bytes(100 + i * 13, i), first: bytes(5 + (i % 3), i + 1), last: bytes(9, i + 2) }))
    for (const h of held) spill.push(h)
    // The temporary file is unlinked as soon as it is opened.
    expect(readdirSync(dir)).toEqual([])
    expect(spill.count).toBe(40)
    expect(spill.blockSizes).toEqual(held.map((h) => h.block.length))
    // Read back out of order, memory part and file part alike.
    for (const i of [39, 0, 20, 5, 38, 1]) {
      const got = spill.get(i)
      expect(Buffer.from(got.block).equals(Buffer.from(held[i].block))).toBe(true)
      expect(Buffer.from(got.first).equals(Buffer.from(held[i].first))).toBe(true)
      expect(Buffer.from(got.last).equals(Buffer.from(held[i].last))).toBe(true)
    }
    spill.close()
    expect(readdirSync(dir)).toEqual([])
  })

  it('without a directory, never spills', () => {
    const spill = new BlockSpill(null, 10)
    spill.push({ block: bytes(100, 1), first: bytes(3, 2), last: bytes(3, 3) })
    expect(Buffer.from(spill.get(0).block).equals(Buffer.from(bytes(100, 1)))).toBe(true)
    spill.close()
  })
})

describe('rewrite with a dictionary that spills', () => {
  it('writes the file the in-memory path sizes, with the same entries, and leaves nothing else', () => {
    const input = join(ROOT, 'test/fixtures/db-medium/000009.sst')
    const out = join(dir, 'out.sst')
    const o = defaultRewriteOptions({ compressionType: CompressionType.ZSTD, dict: 'finalize', spillMemoryBytes: 64 << 10 })
    const r = rewriteFile(input, out, o)
    expect(r.dataBlocks).toBeGreaterThan(500)
    expect(r.dictBytes).toBeGreaterThan(0)
    expect(r.fileSize).toBe(rewrittenSize(input, o).fileSize)
    expect(readdirSync(dir)).toEqual(['out.sst'])
    const a = openTable(input)
    const b = openTable(out)
    try {
      const ia = a.iterator()
      const ib = b.iterator()
      let n = 0
      for (ia.seekToFirst(), ib.seekToFirst(); ia.valid; ia.next(), ib.next(), n++) {
        expect(ib.valid).toBe(true)
        expect(Buffer.from(ib.key).equals(Buffer.from(ia.key))).toBe(true)
      }
      expect(ib.valid).toBe(false)
      expect(n).toBeGreaterThan(5000)
    } finally {
      a.close()
      b.close()
    }
  })
})

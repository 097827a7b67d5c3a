import { describe, expect, it } from 'vitest'
import { CompressionType, compressBlock, decompressBlock } from '../../src/codec/compression.js'
import { newScratch } from '../../src/codec/output.js'
import { snappyBackend, snappyCompress, snappyDecompress, snappyDecompressPackage } from '../../src/codec/snappy.js'
import { Cursor } from '../../src/format/coding.js'
import { concat, kvText, randomBytes } from './helpers.js'

const declared = (c: Uint8Array) => new Cursor(c).varint32()

describe('Snappy decoders', () => {
  it('uses the system libsnappy here (installed with rocksdb-tools)', () => {
    expect(snappyBackend()).toBe('libsnappy')
  })

  it('libsnappy and the snappy package decode every input to the same bytes', () => {
    for (const raw of [kvText(30_000), randomBytes(5000, 3), concat(kvText(2000, 1), randomBytes(3000, 9)), new Uint8Array(0), new Uint8Array(70_000)]) {
      const c = snappyCompress(raw)
      expect(Buffer.from(snappyDecompress(c, declared(c))).equals(Buffer.from(raw))).toBe(true)
      expect(Buffer.from(snappyDecompressPackage(c)).equals(Buffer.from(raw))).toBe(true)
    }
  })

  it('with a scratch buffer, returns views into it and grows it only when needed', () => {
    const scratch = newScratch()
    const a = kvText(10_000, 1)
    const b = kvText(3000, 2)
    const ca = snappyCompress(a)
    const outA = snappyDecompress(ca, declared(ca), scratch)
    expect(outA.buffer).toBe(scratch.buf.buffer)
    expect(Buffer.from(outA).equals(Buffer.from(a))).toBe(true)
    const held = scratch.buf
    const cb = snappyCompress(b)
    const outB = snappyDecompress(cb, declared(cb), scratch)
    expect(scratch.buf).toBe(held)
    expect(Buffer.from(outB).equals(Buffer.from(b))).toBe(true)
  })

  it('corrupt input is an error for both decoders, reported as corruption at the block', () => {
    const c = snappyCompress(kvText(5000, 4)).slice()
    for (let i = 3; i < c.length; i += 7) c[i] ^= 0xff
    expect(() => snappyDecompress(c, declared(c))).toThrow()
    expect(() => snappyDecompressPackage(c)).toThrow()
    expect(() => decompressBlock(CompressionType.Snappy, c, { formatVersion: 5, offset: 4242, scratch: newScratch() })).toThrow(/Snappy.*\(at offset 4242\)/)
  })

  it('decompressBlock with a scratch gives the same bytes as without', () => {
    const raw = concat(kvText(8000, 5), randomBytes(2000, 6))
    const payload = compressBlock(CompressionType.Snappy, raw, { formatVersion: 5 })
    const s = newScratch()
    expect(Buffer.from(decompressBlock(CompressionType.Snappy, payload, { formatVersion: 5, scratch: s })).equals(Buffer.from(raw))).toBe(true)
  })
})

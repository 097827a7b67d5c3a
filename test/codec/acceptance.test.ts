/**
 * The one rule that keeps or drops a compressed block (block-compressor.ts),
 * shared by the table writer, recompress and advise: RocksDB 8.3+'s
 * max_compressed_bytes_per_kb, and 7.8.3's GoodCompressionRatio for the
 * sst-dump emulation.
 */
import { describe, expect, it } from 'vitest'
import { attemptsCompression, keepsCompressed } from '../../src/codec/block-compressor.js'

describe('compressed-block acceptance', () => {
  it('bytes-per-kb: framed <= (perKb × raw) >> 10, perKb capped at 1023', () => {
    expect(keepsCompressed(896, 1024, 896)).toBe(true)
    expect(keepsCompressed(897, 1024, 896)).toBe(false)
    expect(keepsCompressed(1023, 1024, 4096)).toBe(true)
    expect(keepsCompressed(1024, 1024, 4096)).toBe(false)
    expect(keepsCompressed(50, 100, 512)).toBe(true)
    expect(keepsCompressed(51, 100, 512)).toBe(false)
  })

  it('good-ratio (7.8.3): framed < raw - raw/8, whatever max_compressed_bytes_per_kb says', () => {
    expect(keepsCompressed(895, 1024, 896, 'good-ratio')).toBe(true)
    expect(keepsCompressed(896, 1024, 896, 'good-ratio')).toBe(false)
    expect(keepsCompressed(895, 1024, 100, 'good-ratio')).toBe(true)
  })

  it('the two rules differ at the default only for 8n bytes compressed to exactly 7n', () => {
    const differ: [number, number][] = []
    for (let raw = 1; raw <= 2048; raw++) {
      for (let framed = Math.floor(raw * 0.8); framed <= raw; framed++) {
        if (keepsCompressed(framed, raw, 896) !== keepsCompressed(framed, raw, 896, 'good-ratio')) differ.push([framed, raw])
      }
    }
    expect(differ.length).toBe(256)
    for (const [framed, raw] of differ) expect([raw % 8, framed * 8]).toEqual([0, raw * 7])
  })

  it('a budget of 5 bytes or less (or max_compressed_bytes_per_kb <= 0) is not tried under bytes-per-kb; 7.8.3 tries every block', () => {
    expect(attemptsCompression(6, 1023)).toBe(false)
    expect(attemptsCompression(7, 1023)).toBe(true)
    expect(attemptsCompression(4096, 0)).toBe(false)
    expect(attemptsCompression(6, 1023, 'good-ratio')).toBe(true)
  })
})

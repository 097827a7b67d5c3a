/**
 * zlib blocks of known size inflate through the system libz (one reused stream, as RocksDB's
 * Zlib_Uncompress calls it) and give what Node's zlib gives, dictionary or not; a stream that does
 * not end cleanly is decoded again by Node, so its errors read as before.
 */
import { describe, expect, it } from 'vitest'
import { compressBlock } from '../../src/codec/compression.js'
import { zlibDecompress } from '../../src/codec/zlib.js'
import { CompressionType } from '../../src/format/compression-type.js'
import { kvText } from './helpers.js'

/** Node's path: a block of unknown size never goes through libz. */
function withNode(src: Uint8Array, size: number, dictionary?: Uint8Array): Uint8Array {
  return zlibDecompress(src, size, false, dictionary)
}

/** The raw deflate stream of a v2-framed zlib payload (its varint size prefix dropped). */
function deflated(raw: Uint8Array, dictionary?: Uint8Array): Uint8Array {
  const framed = compressBlock(CompressionType.Zlib, raw, { formatVersion: 5, level: -1, dictionary })
  let i = 0
  while (framed[i] & 0x80) i++
  return framed.subarray(i + 1)
}

describe('zlib inflate through libz', () => {
  it("gives Node's bytes for blocks of every size, one stream reused across them, with and without a dictionary", () => {
    const dictionary = kvText(8192, 7)
    for (const dict of [undefined, dictionary, undefined]) {
      for (const [n, seed] of [
        [0, 1],
        [1, 2],
        [100, 3],
        [4096, 4],
        [65536, 5],
        [4096, 4],
      ]) {
        const raw = kvText(n, seed)
        const z = deflated(raw, dict)
        const got = zlibDecompress(z, raw.length, true, dict)
        expect(Buffer.from(got).equals(Buffer.from(raw)), `${n} bytes`).toBe(true)
        expect(Buffer.from(got).equals(Buffer.from(withNode(z, raw.length, dict)))).toBe(true)
      }
    }
  })

  it('a truncated stream, a corrupt one and one longer than declared fail as Node fails them', () => {
    const raw = kvText(4096, 9)
    const z = deflated(raw)
    const cases: [string, Uint8Array, number][] = [
      ['truncated', z.subarray(0, z.length >> 1), raw.length],
      ['corrupt', Uint8Array.from(z, (b, i) => (i === 3 ? b ^ 0xff : b)), raw.length],
      ['longer than declared', z, raw.length - 1],
    ]
    for (const [what, src, size] of cases) {
      let ours: unknown = null
      let node: unknown = null
      try {
        zlibDecompress(src, size, true)
      } catch (e) {
        ours = e
      }
      try {
        withNode(src, size)
      } catch (e) {
        node = e
      }
      expect(ours, what).not.toBeNull()
      expect(String(ours), what).toBe(String(node))
    }
  })
})

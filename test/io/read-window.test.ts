import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { BufferByteSource, FileByteSource, ReadWindow, ShortReadError } from '../../src/io/byte-source.js'
import { fixturePath } from '../helpers.js'

describe('FileByteSource.readInto and ReadWindow', () => {
  const path = fixturePath('big-value')
  const whole = readFileSync(path)

  it('readInto reads exactly the requested bytes, and refuses reads past the end', () => {
    const src = new FileByteSource(path)
    const target = new Uint8Array(100)
    src.readInto(5000, target)
    expect(Buffer.from(target).equals(whole.subarray(5000, 5100))).toBe(true)
    expect(() => src.readInto(whole.length - 10, new Uint8Array(11))).toThrow(ShortReadError)
    src.close()
  })

  it('small reads (from the shared Buffer pool) return the right bytes', () => {
    const src = new FileByteSource(path, { readahead: 0 })
    for (const [o, n] of [
      [0, 1],
      [17, 100],
      [4000, 3000],
    ])
      expect(Buffer.from(src.read(o, n)).equals(whole.subarray(o, o + n))).toBe(true)
    src.close()
  })

  for (const [name, make] of [
    ['a file', () => new FileByteSource(path)],
    [
      'memory (no readInto)',
      () => ({
        ...new BufferByteSource(whole),
        read: (o: number, n: number) => whole.subarray(o, o + n),
        readInto: undefined,
        size: whole.length,
        name: 'm',
        close() {},
      }),
    ],
  ] as const) {
    it(`ReadWindow over ${name}: sequential and backward reads, reads larger than the window`, () => {
      const src = make()
      const w = new ReadWindow(src, 4096)
      let offset = 0
      for (const n of [10, 500, 3000, 4096, 9000, 1, 20000]) {
        expect(Buffer.from(w.read(offset, n)).equals(whole.subarray(offset, offset + n))).toBe(true)
        offset += n
      }
      expect(Buffer.from(w.read(3, 7)).equals(whole.subarray(3, 10))).toBe(true)
      expect(() => w.read(whole.length - 1, 2)).toThrow(ShortReadError)
      src.close()
    })
  }
})

describe('ReadWindow.fill', () => {
  const whole = readFileSync(fixturePath('big-value'))
  /** A source over `whole` that counts the bytes read from it. */
  const counting = () => {
    const src = new BufferByteSource(whole)
    const counted = { bytes: 0 }
    const read = (o: number, n: number) => {
      counted.bytes += n
      return src.read(o, n)
    }
    return { source: { size: src.size, name: 'm', read, close() {} }, counted }
  }

  it('reads exactly the range, and reads inside it come from the window', () => {
    const { source, counted } = counting()
    const w = new ReadWindow(source)
    w.fill(1000, 3000)
    expect(counted.bytes).toBe(3000)
    expect(Buffer.from(w.read(1000, 10)).equals(whole.subarray(1000, 1010))).toBe(true)
    expect(Buffer.from(w.read(3990, 10)).equals(whole.subarray(3990, 4000))).toBe(true)
    expect(counted.bytes).toBe(3000)
    // Past the range: an ordinary read (with its readahead).
    expect(Buffer.from(w.read(4000, 10)).equals(whole.subarray(4000, 4010))).toBe(true)
    expect(counted.bytes).toBeGreaterThan(3000)
  })

  it('a range outside the source leaves the window empty: read() then meets the problem itself', () => {
    const { source, counted } = counting()
    const w = new ReadWindow(source)
    w.fill(0, 100)
    w.fill(whole.length - 10, 11)
    expect(counted.bytes).toBe(100)
    expect(() => w.read(whole.length - 10, 11)).toThrow(ShortReadError)
    expect(Buffer.from(w.read(50, 10)).equals(whole.subarray(50, 60))).toBe(true)
  })
})

describe('ReadWindow growth', () => {
  it('reads a little longer each time without a new buffer each time (at least doubled), the bytes right', () => {
    const bytes = new Uint8Array(1 << 20).map((_, i) => (i * 7) & 0xff)
    const window = new ReadWindow(new BufferByteSource(bytes), 1000)
    const buffers = new Set<Uint8Array>()
    for (let length = 1001, offset = 0; length < 9000; length += 137, offset += 15_000) {
      const at = window.at(offset, length)
      expect(Buffer.from(window.bytes.subarray(at, at + length)).equals(Buffer.from(bytes.subarray(offset, offset + length)))).toBe(true)
      buffers.add(window.bytes)
      expect(window.fill(offset + 1, length + 1)).toBe(true)
      expect(Buffer.from(window.bytes.subarray(0, length + 1)).equals(Buffer.from(bytes.subarray(offset + 1, offset + length + 2)))).toBe(true)
      buffers.add(window.bytes)
    }
    // 1000 -> 2000 -> 4000 -> 8000 -> 16000: four buffers for 59 reads growing from 1001 to 8950 bytes
    expect(buffers.size).toBe(4)
  })
})

import { describe, expect, it } from 'vitest'
import { BufferPool, LineWriter } from '../../src/report/line-writer.js'
import { escapeBytes } from '../../src/report/text.js'

function collect(pool?: BufferPool) {
  const parts: Uint8Array[] = []
  const w = new LineWriter((b) => parts.push(pool ? b : Uint8Array.from(b)), pool)
  const text = (encoding: BufferEncoding = 'latin1') => {
    w.flush()
    return Buffer.concat(parts).toString(encoding)
  }
  return { w, parts, text }
}

const all = Uint8Array.from({ length: 256 }, (_, i) => i)

describe('LineWriter', () => {
  it('escaped() matches escapeBytes for every byte, in text runs and binary runs', () => {
    const { w, text } = collect()
    const inputs = [all, Buffer.from("plain text with 'quotes' and \\backslashes\\"), Buffer.concat([Buffer.from('abc'), Buffer.from(all), Buffer.from('xyz')])]
    for (const b of inputs) w.escaped(b, 0, b.length)
    expect(text()).toBe(inputs.map((b) => escapeBytes(b)).join(''))
  })

  it('hex(), decimal(), ascii(), text() and a range of the source', () => {
    const { w, text } = collect()
    w.hex(all, 250, 256)
    w.byte(0x20)
    for (const n of [0, 7, 10, 99, 1234567890, 2 ** 53 - 1]) {
      w.decimal(n)
      w.ascii(',')
    }
    w.text('é→')
    expect(text('utf8')).toBe(`fafbfcfdfeff 0,7,10,99,1234567890,${2 ** 53 - 1},é→`)
  })

  it('flushes full buffers to the sink and grows for one large write', () => {
    const { w, parts, text } = collect()
    const big = new Uint8Array(3 << 20).fill(0x41)
    for (let i = 0; i < 3000; i++) w.ascii('0123456789'.repeat(100))
    expect(parts.length).toBeGreaterThan(1)
    w.escaped(big, 0, big.length)
    w.write(new Uint8Array(5000).fill(0x42))
    const out = text()
    expect(out.length).toBe(3000 * 1000 + big.length + 5000)
    expect(out.endsWith('B'.repeat(5000))).toBe(true)
  })

  it('with a pool, hands each buffer off for good and takes returned buffers back', () => {
    const pool = new BufferPool(4096, 4)
    const { w, parts } = collect(pool)
    for (let i = 0; i < 10; i++) w.ascii('x'.repeat(1000))
    w.flush()
    const buffers = new Set(parts.map((p) => p.buffer))
    expect(buffers.size).toBe(parts.length) // no buffer reused while held
    for (const p of parts) pool.give(p.buffer as ArrayBuffer)
    const again = collect(pool)
    again.w.ascii('y'.repeat(100))
    again.w.flush()
    expect(buffers.has(again.parts[0].buffer)).toBe(true)
  })
})

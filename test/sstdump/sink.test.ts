import { describe, expect, it } from 'vitest'
import { ByteSink, CollectingWriter } from '../../src/sstdump/sink.js'

function collect(capacity: number, write: (s: ByteSink) => void): string {
  const c = new CollectingWriter()
  const s = new ByteSink(c.write, capacity)
  write(s)
  s.flush()
  return c.toString()
}

describe('ByteSink', () => {
  it('writes decimals digit by digit, up to 2^53 - 1', () => {
    const values = [0, 7, 9, 10, 99, 100, 12345, 4294967295, 4294967296, 2 ** 53 - 1]
    const text = collect(64, (s) => {
      for (const v of values) {
        s.decimal(v)
        s.text(' ')
      }
    })
    expect(text).toBe(values.map((v) => `${v} `).join(''))
  })

  it('copies short and long byte runs alike, across flushes', () => {
    const runs = [0, 1, 31, 32, 33, 100, 700].map((n) => Buffer.alloc(n, 0x61 + (n % 26)))
    const want = Buffer.concat(runs).toString('latin1')
    for (const capacity of [64, 1 << 12]) {
      expect(
        collect(capacity, (s) => {
          for (const r of runs) s.bytes(r)
        }),
      ).toBe(want)
    }
  })
})

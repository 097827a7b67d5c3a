/**
 * The digest rewrite checks its output with (src/rewrite/entry-digest.ts): equal streams give equal
 * digests, whatever the buffer boundaries; any change of a byte, a boundary between key and value,
 * an entry's kind or order gives another.
 */
import { describe, expect, it } from 'vitest'
import { EntryDigest } from '../../src/rewrite/entry-digest.js'

type Op = ['p' | 't', Uint8Array, Uint8Array]
const b = (s: string) => new TextEncoder().encode(s)

function digestOf(ops: Op[]): string {
  const d = new EntryDigest()
  for (const [kind, x, y] of ops) kind === 'p' ? d.add(x, y) : d.addRangeTombstone(x, y)
  return d.finish()
}

describe('EntryDigest', () => {
  const base: Op[] = [
    ['p', b('key1'), b('value1')],
    ['p', b('key2'), b('')],
    ['t', b('a'), b('c')],
  ]

  it('is the same for the same stream, and differs for any change', () => {
    expect(digestOf(base)).toBe(digestOf(base.map(([k, x, y]) => [k, x.slice(), y.slice()])))
    const changes: Op[][] = [
      [['p', b('key1'), b('value2')], base[1], base[2]],
      [['p', b('key1v'), b('alue1')], base[1], base[2]],
      [base[1], base[0], base[2]],
      [base[0], base[1], ['p', b('a'), b('c')]],
      [base[0], base[1]],
    ]
    for (const c of changes) expect(digestOf(c)).not.toBe(digestOf(base))
  })

  it('hashes values larger than its buffer, and many entries across buffer boundaries, alike', () => {
    const big = new Uint8Array(3 << 20).map((_, i) => i & 0xff)
    const many: Op[] = Array.from({ length: 50_000 }, (_, i) => ['p', b(`k${i}`), big.subarray(i, i + 40)])
    expect(digestOf([...many, ['p', b('big'), big]])).toBe(digestOf([...many, ['p', b('big'), big.slice()]]))
    const flipped = big.slice()
    flipped[2 << 20] ^= 1
    expect(digestOf([...many, ['p', b('big'), flipped]])).not.toBe(digestOf([...many, ['p', b('big'), big]]))
  })
})

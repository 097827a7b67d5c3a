/**
 * The shared source pass (src/recompress/feed.ts): the dictionaries, then
 * batches whole and in order, a producer's failure reaches the consumer, and
 * a consumer that left never holds the producer up. (Across threads, the jobs
 * test in lanes.test.ts checks that 1, 2 and 3 jobs give the same results.)
 */
import { describe, expect, it } from 'vitest'
import { FeedAborted, type FedBlock, FeedReader, FeedWriter, makeFeed } from '../../src/recompress/feed.js'

const stats = (n: number) => ({ entries: n, deletions: 0, merges: 1, rawKeyBytes: 3 * n, rawValueBytes: 5, smallestSeq: 7n, largestSeq: null })
const block = (seed: number, size: number): FedBlock => ({
  raw: Uint8Array.from({ length: size }, (_, i) => (seed * 31 + i) & 0xff),
  firstKey: Uint8Array.of(seed, 1),
  lastKey: Uint8Array.of(seed, 2, 3),
  stats: stats(seed),
})
const plain = (b: FedBlock) => ({ raw: [...b.raw], firstKey: [...b.firstKey], lastKey: [...b.lastKey], stats: b.stats })

describe('the shared source pass', () => {
  it('hands every consumer the dictionaries, then every batch, whole and in order', () => {
    const { out, ins } = makeFeed(2)
    const writer = new FeedWriter(out)
    const sent = [[block(1, 100), block(2, 0), block(3, 20000)], [block(4, 5)]]
    const dictionaries = new Map([[3, { bytes: Uint8Array.of(1, 2, 3), ms: 4.5, sampleBytes: 3 }]])
    writer.dictionaries(dictionaries)
    for (const b of sent) writer.post(b)
    writer.end()
    for (const feed of ins) {
      const reader = new FeedReader(feed)
      expect(reader.dictionaries()).toEqual(dictionaries)
      expect([...reader.batches()].map((b) => b.map(plain))).toEqual(sent.map((b) => b.map(plain)))
    }
  })

  it('leaves the producer its own blocks (it compresses them too)', () => {
    const { out, ins } = makeFeed(1)
    const b = block(9, 64)
    new FeedWriter(out).post([b])
    expect(b.raw.length).toBe(64)
    expect(b.raw[1]).toBe((9 * 31 + 1) & 0xff)
    ins[0].port.close()
  })

  it("stops the consumer with the producer's failure, before or among the blocks", () => {
    const { out, ins } = makeFeed(1)
    const writer = new FeedWriter(out)
    writer.dictionaries(new Map())
    writer.post([block(1, 10)])
    writer.abort()
    const reader = new FeedReader(ins[0])
    reader.dictionaries()
    const batches = reader.batches()
    expect(batches.next().value).toHaveLength(1)
    expect(() => batches.next()).toThrow(FeedAborted)
    const early = makeFeed(1)
    new FeedWriter(early.out).abort()
    expect(() => new FeedReader(early.ins[0]).dictionaries()).toThrow(FeedAborted)
  })

  it('does not wait for a consumer that left', () => {
    const { out, ins } = makeFeed(1)
    const writer = new FeedWriter(out)
    writer.dictionaries(new Map())
    writer.post([block(1, 10)])
    const reader = new FeedReader(ins[0])
    reader.dictionaries()
    reader.batches().next()
    reader.leave() // it failed, say
    const t0 = Date.now()
    // More batches than the window holds: each would wait for room if it were still counted.
    for (let i = 0; i < 100; i++) writer.post([block(i, 10)])
    writer.end()
    expect(Date.now() - t0).toBeLessThan(1000)
  })
})

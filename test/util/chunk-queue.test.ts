/**
 * The shared chunk queue (src/util/chunk-queue.ts) on one thread: the
 * protocol's rules (order, room, close) and chunkExtent's refusals. Several
 * threads claiming from it are tested through scan and verify
 * (test/scan/parallel.slow.test.ts, test/verify/parallel.slow.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { ChunkQueue, chunkExtent, MAX_CHUNK_HANDLES } from '../../src/util/chunk-queue.js'

describe('ChunkQueue', () => {
  it('chunks are claimed once each, in order, by whoever asks first; none waiting is -1', () => {
    const q = ChunkQueue.create(4)
    const other = ChunkQueue.attach(q.buffer, 4)
    expect(q.claim(0)).toBe(-1)
    q.publish([100, 10, 115, 20])
    q.publish([140, 30])
    expect(other.published).toBe(2)
    expect(other.claim(7)).toBe(0)
    expect(q.claim(0)).toBe(1)
    expect(q.claim(0)).toBe(-1)
    expect([q.ownerOf(0), q.ownerOf(1)]).toEqual([7, 0])
    expect([...other.handlesOf(0)]).toEqual([100, 10, 115, 20])
    expect([...q.handlesOf(1)]).toEqual([140, 30])
  })

  it('room for at most `slots` chunks past the oldest not yet consumed; a slot is reused only after', () => {
    const q = ChunkQueue.create(2)
    expect(q.hasRoom(0)).toBe(true)
    q.publish([0, 1])
    q.publish([10, 1])
    expect(q.hasRoom(0)).toBe(false)
    expect(q.hasRoom(1)).toBe(true)
    q.publish([20, 1, 30, 1])
    expect([...q.handlesOf(1)]).toEqual([10, 1])
    expect([...q.handlesOf(2)]).toEqual([20, 1, 30, 1])
  })

  it('closed: nothing more is claimed, and the epoch moved (waiting threads wake)', () => {
    const q = ChunkQueue.create(2)
    q.publish([0, 1])
    const epoch = q.epoch
    q.close()
    expect(q.closed).toBe(true)
    expect(q.epoch).not.toBe(epoch)
    expect(q.claim(0)).toBe(-1)
    // The epoch read before close() is stale: no sleep at all, whatever the machine's speed.
    expect(q.waitForWork(epoch, 5000)).toBe(true)
    expect(q.waitForWork(q.epoch, 1)).toBe(false)
  })

  it('holds MAX_CHUNK_HANDLES handles per chunk', () => {
    const q = ChunkQueue.create(1)
    const pairs = Array.from({ length: 2 * MAX_CHUNK_HANDLES }, (_, i) => i)
    q.publish(pairs)
    expect(q.handlesOf(0).length).toBe(pairs.length)
    expect(q.handlesOf(0)[pairs.length - 1]).toBe(pairs.length - 1)
  })
})

describe('chunkExtent', () => {
  const f = (xs: number[]) => Float64Array.from(xs)
  it('from the first block to the last one and its trailer', () => {
    expect(chunkExtent(f([100, 10, 115, 20]), 5, 1000, 1 << 20)).toEqual({ offset: 100, length: 40 })
  })
  it('refuses blocks out of file order, past the end of the file, or a span over the limit (a damaged index)', () => {
    expect(chunkExtent(f([100, 10, 105, 20]), 5, 1000, 1 << 20)).toBeNull()
    expect(chunkExtent(f([100, 10, 980, 20]), 5, 1000, 1 << 20)).toBeNull()
    expect(chunkExtent(f([0, 2 ** 40]), 5, 2 ** 50, 1 << 20)).toBeNull()
    expect(chunkExtent(f([]), 5, 1000, 1 << 20)).toBeNull()
  })
})

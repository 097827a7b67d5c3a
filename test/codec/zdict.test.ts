import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { newPeakLock, sharePeakLock } from '../../src/codec/peak-lock.js'
import { DictionaryBuildError, trainDictionary } from '../../src/codec/zdict.js'
import { concat, kvText } from './helpers.js'

// Synthetic samples (text records): these tests are about the lock, not about matching RocksDB's dictionaries.
const SAMPLE_BYTES = 16 * 1024
const samples = concat(...Array.from({ length: 40 }, (_, i) => kvText(SAMPLE_BYTES, i + 1)))
const lengths = Array.from({ length: 40 }, () => SAMPLE_BYTES)

/**
 * A thread that takes the lock and says so, holds it until a thread waits on it (Atomics.notify
 * counts the waiter it wakes; the waiter finds the lock still held and waits again), then sets
 * `released[0]` and frees the lock as trainDictionary does.
 */
function holdLockElsewhere(lock: SharedArrayBuffer, released: SharedArrayBuffer): Promise<Worker> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads')
    const lock = new Int32Array(workerData.lock)
    const released = new Int32Array(workerData.released)
    const nap = new Int32Array(new SharedArrayBuffer(4))
    Atomics.store(lock, 0, 1)
    parentPort.postMessage('held')
    while (Atomics.notify(lock, 0, 1) === 0) Atomics.wait(nap, 0, 0, 1)
    Atomics.store(released, 0, 1)
    Atomics.store(lock, 0, 0)
    Atomics.notify(lock, 0, 1)
  `
  const worker = new Worker(code, { eval: true, workerData: { lock, released } })
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker))
    worker.once('error', reject)
  })
}

describe('the dictionary training lock', () => {
  afterEach(() => sharePeakLock(null))

  it('leaves the dictionary unchanged and the lock free after training', () => {
    const alone = trainDictionary(samples, lengths, 16384)
    const lock = newPeakLock()
    sharePeakLock(lock)
    const locked = trainDictionary(samples, lengths, 16384)
    expect(locked.length).toBeGreaterThan(0)
    expect(Buffer.from(locked).equals(Buffer.from(alone))).toBe(true)
    expect(Atomics.load(new Int32Array(lock), 0)).toBe(0)
  })

  it('frees the lock when training fails', () => {
    const lock = newPeakLock()
    sharePeakLock(lock)
    // Two samples are too few for ZDICT.
    expect(() => trainDictionary(samples.subarray(0, 2 * SAMPLE_BYTES), [SAMPLE_BYTES, SAMPLE_BYTES], 16384)).toThrow(DictionaryBuildError)
    expect(Atomics.load(new Int32Array(lock), 0)).toBe(0)
  })

  it('waits while another thread holds the lock', async () => {
    const lock = newPeakLock()
    sharePeakLock(lock)
    const released = new SharedArrayBuffer(4)
    const worker = await holdLockElsewhere(lock, released)
    trainDictionary(samples, lengths, 16384)
    // The holder frees the lock only once this thread waits on it, and marks that first.
    expect(Atomics.load(new Int32Array(released), 0)).toBe(1)
    await worker.terminate()
    expect(Atomics.load(new Int32Array(lock), 0)).toBe(0)
  })
})

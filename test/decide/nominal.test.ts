/**
 * The reference model every decision ranks on (src/decide/nominal.ts): speeds and dictionary
 * building that are the same on every run, in the order RocksDB's own costs have them, and the
 * blob decision on them too.
 */
import { describe, expect, it } from 'vitest'
import { DICT_BUFFERING_SEC_PER_GB, nominalDictionaryMs, nominalTimings } from '../../src/decide/nominal.js'
import { spec } from '../../src/decide/settings.js'
import { chooseBlob } from '../../src/advise/blob.js'
import type { BlobCandidate } from '../../src/types/advice.js'

const MB = 1e6

describe('reference dictionary building', () => {
  it('training costs more than finalizing, a raw dictionary nothing; both grow with the samples', () => {
    const train = spec('zstd', 3, 'train', false)
    const finalize = spec('zstd', 3, 'finalize', false)
    expect(nominalDictionaryMs(spec('zstd', 3, 'raw', false), 1.6 * MB)).toBe(0)
    expect(nominalDictionaryMs(spec('zstd', 3, 'none', false), 1.6 * MB)).toBe(0)
    expect(nominalDictionaryMs(train, 0)).toBe(0)
    for (const mb of [0.2, 1.6, 3.3]) expect(nominalDictionaryMs(train, mb * MB)).toBeGreaterThan(nominalDictionaryMs(finalize, mb * MB))
    // The measured points the model was fitted to (thread CPU at 53fe7be): 52 ms for 0.2 MB, 204 ms for 1.6 MB, 310 ms for 3.3 MB.
    expect(nominalDictionaryMs(train, 204800)).toBeGreaterThan(52 * 0.8)
    expect(nominalDictionaryMs(train, 204800)).toBeLessThan(52 * 1.25)
    expect(nominalDictionaryMs(train, 1638400)).toBeGreaterThan(204 * 0.9)
    expect(nominalDictionaryMs(train, 1638400)).toBeLessThan(204 * 1.1)
    expect(nominalDictionaryMs(train, 3276800)).toBeGreaterThan(310 * 0.9)
    expect(nominalDictionaryMs(train, 3276800)).toBeLessThan(310 * 1.1)
    // Finalizing compresses the samples at the setting's level: zstd 19's is far dearer than zstd 1's.
    const at = (level: number) => nominalDictionaryMs(spec('zstd', level, 'finalize', false), 1.6384 * MB)
    expect(at(1)).toBeLessThan(at(3))
    expect(at(3)).toBeLessThan(at(9))
    expect(at(19)).toBeGreaterThan(200)
    expect(at(19)).toBeLessThan(300)
  })

  it('the same figures on every call: nothing in the model is a timing of this run', () => {
    const s = spec('zstd', 6, 'finalize', false)
    expect(nominalDictionaryMs(s, 777777)).toBe(nominalDictionaryMs(s, 777777))
    expect(nominalTimings(s)).toEqual(nominalTimings(s))
  })
})

describe('blob advice on the reference speeds', () => {
  const candidate = (option: string, label: string, bytes: number, compressSecPerGB: number, decompressMBps: number): BlobCandidate => ({
    option,
    label,
    bytes: { estimate: bytes, low: bytes, high: bytes },
    change: { estimate: 0, low: 0, high: 0 },
    ratio: 1,
    compressSecPerGB,
    decompressMBps,
  })

  it("this run's timings do not move the choice: zstd stays within balanced's limits however slow it was timed", () => {
    const fast = [
      candidate('kNoCompression', 'none', 1000, 0, 0),
      candidate('kLZ4Compression', 'lz4', 600, 0.6, 10000),
      candidate('kZSTD', 'zstd', 450, 3, 900),
    ]
    // The same candidates timed on a busy machine, zstd 40x lz4 and decoding slowly.
    const busy = fast.map((c) => (c.label === 'zstd' ? { ...c, compressSecPerGB: 24, decompressMBps: 60 } : c))
    expect(chooseBlob(fast, 'balanced').pick.label).toBe('zstd')
    expect(chooseBlob(busy, 'balanced').pick.label).toBe('zstd')
    expect(chooseBlob(busy, 'balanced').reason).toMatch(/at least 1\/16 as fast/)
    // zlib, at 20x lz4's reference CPU and under 1/16 of its decoding speed, is kept off however small.
    const withZlib = [...fast, candidate('kZlibCompression', 'zlib', 400, 1, 1e6)]
    expect(chooseBlob(withZlib, 'balanced').pick.label).toBe('zstd')
    expect(chooseBlob(withZlib, 'size').pick.label).toBe('zlib')
  })
})

describe("RocksDB's dictionary buffering", () => {
  it('is charged to every dictionary setting per GB of input, on top of the codec (bench/README.md: 0.71 s on 103 MB)', () => {
    const plain = nominalTimings(spec('zstd', 3, 'none', false)).compress.value!
    for (const dict of ['raw', 'finalize', 'train'] as const)
      expect(nominalTimings(spec('zstd', 3, dict, false)).compress.value! - plain).toBeCloseTo(DICT_BUFFERING_SEC_PER_GB, 9)
    expect(DICT_BUFFERING_SEC_PER_GB).toBeCloseTo(0.71 / 0.103, 0)
  })
})

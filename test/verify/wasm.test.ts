/**
 * verify's WebAssembly order check must give exactly the findings of the
 * JavaScript check (tested against sst_dump in test/parity), on every real
 * fixture, every corrupt file, and synthetic tables with keys out of order.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import { BlockBuilder, decodeBlockLayout } from '../../src/format/block.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { WasmOrderChecker } from '../../src/verify/wasm.js'
import { BAD, fixturePath, fixtures } from '../helpers.js'
import { verifyThreeWays } from './paths.js'
import { writeSyntheticTable } from '../synthetic.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-verify-wasm-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The JavaScript, WebAssembly and native paths find the same (test/verify/paths.ts). */
const both = verifyThreeWays

const enc = (s: string) => new TextEncoder().encode(s)

function synthetic(name: string, entries: [Uint8Array, Uint8Array][], compression: number = CompressionType.None): string {
  return writeSyntheticTable(join(dir, `synthetic-${name}.sst`), entries, { compression, blockSize: 1024 })
}

const ordered = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      [encodeInternalKey(enc(`key${String(i).padStart(5, '0')}`), 10_000 - i, ValueType.Value), enc(`value ${i} `.repeat(5))] as [Uint8Array, Uint8Array],
  )

describe('WasmOrderChecker', () => {
  it('is available here, so the tests below exercise it', () => {
    expect(WasmOrderChecker.create()).not.toBeNull()
  })

  const ik = (user: string, seq: number) => encodeInternalKey(enc(user), seq, ValueType.Value)
  /** check() of one block holding `keys` (restart interval 4), after `prev`: the entry count, or -1. */
  const check = (keys: Uint8Array[], prev: Uint8Array | null = null) => {
    const b = new BlockBuilder(4)
    for (const k of keys) b.add(k, enc('v'))
    const block = b.finish()
    const c = WasmOrderChecker.create()!
    const n = c.check(block, decodeBlockLayout(block, 0).entriesEnd, prev)
    return { n, first: n > 0 ? Buffer.from(c.firstKey()) : null, last: n > 0 ? Buffer.from(c.lastKey()) : null }
  }
  const long = 'L'.repeat(300)

  it.each([
    ['prefixes first', ['a', 'ab', 'abc', 'abcd', 'abd', 'b'].map((u, i) => ik(u, 50 - i))],
    ['versions newest first, sharing trailer bytes', [0x0102030405, 0x0102030404, 0x0102030304, 0x0102020304].map((s) => ik('key', s))],
    ['long keys', [`${long}a`, `${long}ab`, `${long}b`, `${long}b${long}`, `${long}c`].map((u) => ik(u, 7))],
  ])('passes keys in order: %s, with their first and last keys', (_name, keys) => {
    const r = check(keys)
    expect(r.n).toBe(keys.length)
    expect(r.first).toEqual(Buffer.from(keys[0]))
    expect(r.last).toEqual(Buffer.from(keys[keys.length - 1]))
  })

  it.each([
    ['a longer key before its prefix', ['a', 'abc', 'ab'].map((u, i) => ik(u, 50 - i))],
    ['an older version first, sharing 7 trailer bytes', [ik('key', 0x0102030404), ik('key', 0x0102030405)]],
    ['equal keys', [ik('key', 5), ik('key', 5)]],
    ['long keys out of order', [`${long}b`, `${long}a${long}`].map((u) => ik(u, 7))],
  ])('refuses keys out of order: %s', (_name, keys) => {
    expect(check(keys).n).toBe(-1)
  })

  it('checks the first key against the previous block last key', () => {
    expect(check([ik('b', 1), ik('c', 1)], ik('a', 1)).n).toBe(2)
    expect(check([ik('b', 1), ik('c', 1)], ik('b', 2)).n).toBe(2)
    expect(check([ik('b', 2), ik('c', 1)], ik('b', 1)).n).toBe(-1)
    expect(check([ik('b', 1), ik('c', 1)], ik('bb', 1)).n).toBe(-1)
  })
})

describe('verify: wasm order check = JavaScript check', () => {
  it.each(fixtures().map((f) => f.name))('%s', (name) => {
    const r = both(fixturePath(name))
    expect('ok' in r && r.ok).toBe(true)
  })

  it.each(readdirSync(BAD).filter((f) => f.endsWith('.sst')))('bad/%s', (name) => {
    both(join(BAD, name))
  })

  it('clean synthetic tables, uncompressed and Snappy', () => {
    for (const c of [CompressionType.None, CompressionType.Snappy]) {
      const r = both(synthetic(`ordered-${c}`, ordered(2000), c))
      expect('ok' in r && r.ok && r.entries).toBe(2000)
    }
  })

  it('keys out of order inside a block, across blocks, duplicates and seqnos in the wrong order', () => {
    const swapped = ordered(2000)
    ;[swapped[10], swapped[11]] = [swapped[11], swapped[10]]
    const acrossBlocks = ordered(2000)
    acrossBlocks.splice(1500, 0, acrossBlocks[3])
    const duplicate = ordered(2000)
    duplicate.splice(700, 0, duplicate[700])
    const seqs = ordered(2000)
    // key00899 @9101 is followed by a newer version of the same key: newest must come first
    seqs[900] = [encodeInternalKey(enc('key00899'), 20_000, ValueType.Value), enc('newer after older')]
    for (const [name, entries] of Object.entries({ swapped, acrossBlocks, duplicate, seqs })) {
      const r = both(synthetic(name, entries))
      expect('ok' in r && r.ok, name).toBe(false)
    }
  })

  it('user keys that are prefixes of each other, long keys and shared bytes reaching into the trailer, in and out of order', () => {
    const ik = (user: string, seq: number) => encodeInternalKey(enc(user), seq, ValueType.Value)
    const long = 'L'.repeat(300)
    const cases: Record<string, [Uint8Array, Uint8Array][]> = {
      // in order: a prefix sorts first; versions of one key newest first (their trailers share bytes)
      prefixes: ['a', 'ab', 'abc', 'abcd', 'abd', 'b'].map((u, i) => [ik(u, 50 - i), enc(`v${i}`)]),
      versions: [ik('key', 0x0102030405), ik('key', 0x0102030404), ik('key', 0x0102030304), ik('key', 0x0102020304), ik('key2', 9)].map((k, i) => [
        k,
        enc(`v${i}`),
      ]),
      longKeys: [`${long}a`, `${long}ab`, `${long}b`, `${long}b${long}`, `${long}c`].map((u, i) => [ik(u, 7), enc(`v${i}`)]),
      // out of order: a longer key before its prefix, an older version before a newer one (sharing 7 trailer bytes), equal keys
      longerFirst: ['a', 'abc', 'ab', 'b'].map((u, i) => [ik(u, 50 - i), enc(`v${i}`)]),
      olderFirst: [ik('key', 0x0102030404), ik('key', 0x0102030405), ik('key2', 9)].map((k, i) => [k, enc(`v${i}`)]),
      equal: [ik('key', 5), ik('key', 5), ik('key2', 9)].map((k, i) => [k, enc(`v${i}`)]),
      longOutOfOrder: [`${long}b`, `${long}a${long}`, `${long}c`].map((u, i) => [ik(u, 7), enc(`v${i}`)]),
    }
    for (const [name, entries] of Object.entries(cases)) {
      const r = both(synthetic(name, entries))
      expect('ok' in r && r.ok, name).toBe(!/First|equal|OutOfOrder/.test(name))
    }
  })

  it('same user key, many versions in order (newest first), across restart points and blocks', () => {
    const entries = Array.from(
      { length: 3000 },
      (_, i) =>
        [encodeInternalKey(enc(`k${Math.floor(i / 500)}`), 100_000 - i, i % 3 ? ValueType.Value : ValueType.Merge), enc(`v${i}`)] as [Uint8Array, Uint8Array],
    )
    const r = both(synthetic('versions', entries))
    expect('ok' in r && r.ok).toBe(true)
  })
})

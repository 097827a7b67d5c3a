/** Deterministic test data for codec tests. */

/** xorshift32 PRNG, so failures reproduce. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s
  }
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'user', 'order', 'status', 'shipped', 'pending', 'value', 'rocksdb', 'sst']

/** KV-like text: compressible, but not trivially so. */
export function kvText(bytes: number, seed = 1): Uint8Array {
  const next = rng(seed)
  let s = ''
  let i = 0
  while (s.length < bytes) {
    s += `key${String(i++).padStart(8, '0')}|${WORDS[next() % WORDS.length]}=${next() % 100000};`
  }
  return new TextEncoder().encode(s.slice(0, bytes))
}

export function randomBytes(n: number, seed = 7): Uint8Array {
  const next = rng(seed)
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = next() & 0xff
  return out
}

/** Place `bytes` at an odd offset inside a larger buffer with garbage around it, as a file read would. */
export function embedded(bytes: Uint8Array, before = 13, after = 7): Uint8Array {
  const big = randomBytes(before + bytes.length + after, 99)
  big.set(bytes, before)
  return big.subarray(before, before + bytes.length)
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let pos = 0
  for (const p of parts) {
    out.set(p, pos)
    pos += p.length
  }
  return out
}

export function ascii(s: string): Uint8Array {
  return new TextEncoder().encode(s)
}

/** Run `fn` and return what it threw (fails the test if it did not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (err) {
    return err as Error
  }
  throw new Error('expected an exception')
}

/**
 * Assert two byte arrays are identical. (vitest's toEqual walks typed arrays
 * element by element and takes seconds on MiB-sized blocks.)
 */
export function expectBytes(actual: Uint8Array, expected: Uint8Array, what = 'bytes'): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength)
  const e = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength)
  if (a.equals(e)) return
  let i = 0
  while (i < a.length && i < e.length && a[i] === e[i]) i++
  throw new Error(`${what} differ: length ${a.length} vs ${e.length}, first difference at ${i}`)
}

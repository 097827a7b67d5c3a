/** Output-buffer helpers shared by the codec adapters. */

/**
 * A fresh, unpooled, uninitialised byte array of exactly `n` bytes. The codec
 * overwrites it, so zero-filling would be wasted work; unpooled so that
 * `.buffer` is the block alone.
 */
export function allocOutput(n: number): Uint8Array {
  const b = Buffer.allocUnsafeSlow(n)
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
}

/**
 * A plain Uint8Array view of a Buffer. Callers get Uint8Array semantics
 * (`slice` copies), not Buffer's (`slice` aliases).
 */
export function plainBytes(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
}

/** Thrown by an adapter when the output would exceed the space it was given. */
export class OutputOverflow extends Error {
  constructor(readonly limit: number) {
    super(`output exceeds ${limit} bytes`)
  }
}

/** Copy the first `n` bytes into a right-sized array (compressors over-allocate). */
export function trimmed(buf: Uint8Array, n: number): Uint8Array {
  return buf.slice(0, n)
}

/** Output-buffer helpers shared by the codec adapters. */
import { SstkitError } from '../errors.js'

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
export class OutputOverflow extends SstkitError {
  override name = 'OutputOverflow'
  constructor(readonly limit: number) {
    super('internal', `output exceeds ${limit} bytes`)
  }
}

/** Copy the first `n` bytes into a right-sized array (compressors over-allocate). */
export function trimmed(buf: Uint8Array, n: number): Uint8Array {
  return buf.slice(0, n)
}

/** A reusable output buffer: decoders given one return a view into it (valid until its next use). */
export interface Scratch {
  buf: Uint8Array
}

export function newScratch(): Scratch {
  return { buf: new Uint8Array(0) }
}

/** The first `n` bytes of the scratch buffer, grown (never zero-filled) when too small. */
export function scratchBytes(s: Scratch, n: number): Uint8Array {
  if (s.buf.length < n) s.buf = allocOutput(Math.max(n, s.buf.length * 2, 64 * 1024))
  return s.buf.subarray(0, n)
}

/**
 * Byte output for the sst_dump emulation. sst_dump writes C strings and raw key
 * bytes, so everything here is bytes: text is UTF-8 (paths as given), keys and
 * values are written exactly as stored.
 */

import { UpperHexEncoder } from './hex.js'

/** Where output goes: a function receiving chunks (a file descriptor writer, a test collector); a chunk is valid only during the call. */
export type ByteWriter = (chunk: Uint8Array) => void

/** Buffers small writes into large chunks; call flush() before anything else writes to the same stream. */
export class ByteSink {
  private buf: Buffer
  private len = 0
  constructor(
    private readonly writer: ByteWriter,
    private readonly capacity = 1 << 16,
  ) {
    this.buf = Buffer.allocUnsafe(capacity)
  }

  text(s: string): void {
    // Fast path for ASCII-only strings (almost every line).
    const max = s.length * 3
    if (this.len + max > this.capacity) {
      this.flush()
      if (max > this.capacity) {
        this.writer(Buffer.from(s, 'utf8'))
        return
      }
    }
    this.len += this.buf.write(s, this.len, 'utf8')
  }

  /** A string of bytes (each char below 256, as sst_dump's std::string texts are kept here). */
  latin1(s: string): void {
    if (this.len + s.length > this.capacity) {
      this.flush()
      if (s.length > this.capacity) {
        this.writer(Buffer.from(s, 'latin1'))
        return
      }
    }
    this.len += this.buf.write(s, this.len, 'latin1')
  }

  bytes(b: Uint8Array): void {
    const n = b.length
    if (this.len + n > this.capacity) {
      this.flush()
      if (n > this.capacity) {
        this.writer(b)
        return
      }
    }
    const buf = this.buf
    let at = this.len
    // a loop for short pieces (quotes, keys): set()'s call costs more than it copies
    if (n <= 32) for (let i = 0; i < n; i++) buf[at++] = b[i]
    else {
      buf.set(b, at)
      at += n
    }
    this.len = at
  }

  /** `Slice::ToString(true)` of `b`, written straight into the buffer (no string per entry). */
  hex(b: Uint8Array): void {
    if (b.length >= 16 && wasmHex()) {
      this.bytes((encoder as UpperHexEncoder).encode(b))
      return
    }
    const n = b.length * 2
    if (this.len + n > this.capacity) {
      this.flush()
      if (n > this.capacity) {
        this.writer(Buffer.from(hexUpper(b), 'latin1'))
        return
      }
    }
    const buf = this.buf
    let at = this.len
    for (let i = 0; i < b.length; i++) {
      const c = b[i]
      buf[at++] = HEX_UPPER[c >> 4]
      buf[at++] = HEX_UPPER[c & 15]
    }
    this.len = at
  }

  /** A non-negative integer below 2^53 in decimal (sequence numbers, types). */
  decimal(v: number): void {
    if (this.len + 16 > this.capacity) this.flush()
    // the digits written in place, last first: no string per number
    let digits = 1
    for (let t = v; t >= 10; t = Math.floor(t / 10)) digits++
    const buf = this.buf
    let at = this.len + digits
    this.len = at
    do {
      buf[--at] = 0x30 + (v % 10)
      v = Math.floor(v / 10)
    } while (v > 0)
  }

  /** Hand `b` to the writer as it is, after what is buffered (output assembled elsewhere). */
  direct(b: Uint8Array): void {
    this.flush()
    this.writer(b)
  }

  flush(): void {
    if (this.len === 0) return
    // A view, not a copy (ByteWriter): the buffer is reused once the writer returns.
    const chunk = this.buf.subarray(0, this.len)
    this.len = 0
    this.writer(chunk)
  }
}

let encoder: UpperHexEncoder | null | undefined
/** Whether the WebAssembly hex encoder runs here (made on first use). */
function wasmHex(): boolean {
  if (encoder === undefined) encoder = UpperHexEncoder.create()
  return encoder !== null
}

/** Collects everything written (tests, in-process callers). */
export class CollectingWriter {
  readonly chunks: Buffer[] = []
  readonly write: ByteWriter = (c) => {
    this.chunks.push(Buffer.from(c))
  }
  get buffer(): Buffer {
    return Buffer.concat(this.chunks)
  }
  toString(): string {
    return this.buffer.toString('latin1')
  }
}

/** `printf("%s", str)`: a C string stops at its first NUL byte. */
export function cString(b: Uint8Array): Uint8Array {
  const i = b.indexOf(0)
  return i < 0 ? b : b.subarray(0, i)
}

const HEX = '0123456789ABCDEF'
const HEX_UPPER = Buffer.from(HEX, 'latin1')
/** `Slice::ToString(true)`: upper-case hex. */
export function hexUpper(b: Uint8Array): string {
  let s = ''
  for (let i = 0; i < b.length; i++) s += HEX[b[i] >> 4] + HEX[b[i] & 15]
  return s
}

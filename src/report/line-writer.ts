/**
 * Output lines assembled as bytes in one reused buffer.
 *
 * `scan` prints one line per entry, hundreds of MB for a large file: building
 * a JS string per line and encoding it again was most of its time. Here keys
 * and values are escaped (or hex-encoded) straight from the block bytes into
 * the buffer, which is handed to `sink` whenever it fills.
 */
import { HEX_DIGITS } from '../format/coding.js'

/** Bytes printed as themselves: printable ASCII except backslash and quote. */
const PLAIN = new Uint8Array(256).map((_, c) => (c >= 0x20 && c < 0x7f && c !== 0x5c && c !== 0x27 ? 1 : 0))
/** Per byte, its escaped form packed little-endian into a uint32 (1, 2 or 4 bytes), and that length. */
const ESCAPED = new Uint32Array(256)
const ESCAPED_LENGTH = new Uint8Array(256)
for (let c = 0; c < 256; c++) {
  const form = PLAIN[c] ? [c] : c >= 0x20 && c < 0x7f ? [0x5c, c] : [0x5c, 0x78, HEX_DIGITS[c >> 4], HEX_DIGITS[c & 15]]
  ESCAPED[c] = form.reduce((v, b, i) => v | (b << (8 * i)), 0) >>> 0
  ESCAPED_LENGTH[c] = form.length
}
/** Per byte, its two hex digits packed little-endian into a uint16. */
const HEX_PAIR = new Uint16Array(256).map((_, c) => HEX_DIGITS[c >> 4] | (HEX_DIGITS[c & 15] << 8))

export type ByteSink = (bytes: Uint8Array) => void

/**
 * Spare output buffers, for writers that hand theirs off: the receiver gives
 * them back once written, so a long scan does not allocate (and collect) a
 * buffer per MiB of output.
 */
export class BufferPool {
  private readonly free: ArrayBuffer[] = []
  constructor(
    readonly capacity = 1 << 20,
    private readonly keep = 16,
  ) {}

  take(): Buffer {
    const b = this.free.pop()
    return b ? Buffer.from(b) : Buffer.allocUnsafeSlow(this.capacity)
  }

  give(b: ArrayBuffer): void {
    if (b.byteLength === this.capacity && this.free.length < this.keep) this.free.push(b)
  }
}

export class LineWriter {
  private buf: Buffer
  private view: DataView
  private readonly capacity: number
  private readonly handOff: boolean
  private pos = 0
  /** Bytes handed to the sink so far. */
  private sent = 0

  /**
   * @param sink receives full buffers (and the rest on flush); it may keep
   *   them only when a `pool` is given, else it must use them before returning.
   * @param pool hand each full buffer to the sink for good and continue in a
   *   buffer from the pool (for output kept or sent to another thread);
   *   default: reuse one buffer.
   */
  constructor(
    private readonly sink: ByteSink,
    private readonly pool?: BufferPool,
  ) {
    this.capacity = pool?.capacity ?? 1 << 20
    this.handOff = pool !== undefined
    this.buf = pool ? pool.take() : Buffer.allocUnsafeSlow(this.capacity)
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
  }

  private setBuffer(b: Buffer): void {
    this.buf = b
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  }

  /** Bytes waiting in the buffer. */
  get pending(): number {
    return this.pos
  }

  /** Bytes written so far, sent or waiting. */
  get written(): number {
    return this.sent + this.pos
  }

  /**
   * Take back the last `n` bytes if they are still waiting (a header printed
   * before knowing whether anything would follow it); false if already sent.
   */
  unwrite(n: number): boolean {
    if (n > this.pos) return false
    this.pos -= n
    return true
  }

  flush(): void {
    if (this.pos === 0) return
    const full = new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.pos)
    this.sent += this.pos
    this.pos = 0
    if (this.pool) this.setBuffer(this.pool.take())
    this.sink(full)
  }

  /** Make room for `n` more bytes. */
  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return
    this.flush()
    if (n > this.buf.length) this.setBuffer(Buffer.allocUnsafeSlow(Math.max(n, this.buf.length * 2)))
  }

  /** Bytes printed elsewhere: large runs go straight to the sink (after what is buffered). */
  write(src: Uint8Array): void {
    if (src.length < 4096 || this.handOff) {
      this.bytes(src)
      return
    }
    this.flush()
    this.sent += src.length
    this.sink(src)
  }

  byte(c: number): void {
    this.reserve(1)
    this.buf[this.pos++] = c
  }

  /** An ASCII-only string (callers guarantee it). */
  ascii(s: string): void {
    this.reserve(s.length)
    const b = this.buf
    let p = this.pos
    for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i)
    this.pos = p
  }

  /** Any string, as UTF-8. */
  text(s: string): void {
    this.reserve(s.length * 3)
    this.pos += this.buf.write(s, this.pos, 'utf8')
  }

  bytes(src: Uint8Array): void {
    this.reserve(src.length)
    this.buf.set(src, this.pos)
    this.pos += src.length
  }

  /** A non-negative integer below 2^53 in decimal. */
  decimal(v: number): void {
    this.reserve(16)
    const b = this.buf
    if (v < 10) {
      b[this.pos++] = 0x30 + v
      return
    }
    let digits = 0
    for (let t = v; t >= 1; t = Math.floor(t / 10)) digits++
    let p = this.pos + digits
    this.pos = p
    for (let t = v; t >= 1; t = Math.floor(t / 10)) b[--p] = 0x30 + (t % 10)
  }

  /** `src[start, end)` with printable ASCII as is, `\` and `'` backslashed, other bytes as \xNN (as escapeBytes). */
  escaped(src: Uint8Array, start: number, end: number): void {
    this.reserve((end - start) * 4)
    const b = this.buf
    let p = this.pos
    let i = start
    // Text runs copy with a well-predicted branch; from the first byte that needs
    // escaping on, each byte's form is stored whole from a table, branch-free
    // (binary data mispredicted the branchy loop on most bytes: ~2x slower).
    for (; i < end; i++) {
      const c = src[i]
      if (PLAIN[c] === 0) break
      b[p++] = c
    }
    const v = this.view
    for (; i < end; i++) {
      const c = src[i]
      v.setUint32(p, ESCAPED[c], true) // writes 4 bytes; reserve() left room for them
      p += ESCAPED_LENGTH[c]
    }
    this.pos = p
  }

  /** `src[start, end)` as lowercase hex. */
  hex(src: Uint8Array, start: number, end: number): void {
    this.reserve((end - start) * 2)
    const v = this.view
    let p = this.pos
    for (let i = start; i < end; i++) {
      v.setUint16(p, HEX_PAIR[src[i]], true)
      p += 2
    }
    this.pos = p
  }
}

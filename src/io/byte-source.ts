/**
 * ByteSource: positional reads from a file without ever loading it whole.
 *
 * Reads are synchronous (`fs.readSync` with a position measured fastest for
 * 4-16 KiB blocks on a warm cache) and served through a bounded readahead
 * window so that sequential scans issue few system calls. Memory held is at
 * most one window, whatever the file size.
 */
import { closeSync, constants, fstatSync, openSync, read, readSync, type Stats } from 'node:fs'
import { SstkitError, transferable } from '../errors.js'

export interface ByteSource {
  /** A name for messages (the file path). */
  readonly name: string
  readonly size: number
  /**
   * Read exactly `length` bytes at `offset`. The result may be a view into an
   * internal buffer: callers must not modify it, but it stays valid.
   */
  read(offset: number, length: number): Uint8Array
  /** Read exactly `target.length` bytes at `offset` into `target` (the caller's buffer); optional. */
  readInto?(offset: number, target: Uint8Array): void
  close(): void
}

/** Raised when a read falls outside the file: the caller decides how to phrase it. */
export class ShortReadError extends SstkitError {
  override name = 'ShortReadError'
  constructor(
    override readonly offset: number,
    readonly length: number,
    readonly size: number,
  ) {
    super('io', `read of ${length} bytes at offset ${offset} runs past the end of the file (${size} bytes)`)
  }
}
transferable(ShortReadError)

/** A path that is not a regular file (a directory, a FIFO, a device): SSTs are read by offset. */
export class NotAFileError extends SstkitError {
  override name = 'NotAFileError'
  constructor(
    readonly path: string,
    st: Stats,
  ) {
    super('io', `not a regular file but ${fileKind(st)}`, { file: path })
  }
}
transferable(NotAFileError)

/** What kind of non-regular file `st` describes, in words. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory'
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  return st.isFile() ? 'a regular file' : 'not a regular file'
}

/** The file ended before the size it had when opened: it was truncated or replaced while being read. */
export class FileShrankError extends SstkitError {
  override name = 'FileShrankError'
  constructor(path: string, at: number, openedSize: number) {
    super('io', `the file shrank while being read: it ends before offset ${at}, and had ${openedSize} bytes when opened`, { file: path })
  }
}
transferable(FileShrankError)

export interface FileSourceOptions {
  /** Readahead window in bytes; reads smaller than this are served from it. 0 disables. */
  readahead?: number
}

export const DEFAULT_READAHEAD = 1 << 20

export class FileByteSource implements ByteSource {
  readonly size: number
  private fd: number
  private window: Uint8Array = new Uint8Array(0)
  private windowStart = 0
  private readonly readahead: number

  constructor(
    readonly name: string,
    options: FileSourceOptions = {},
  ) {
    // Read-only: an input file is never modified. Non-blocking, so that opening a FIFO
    // returns (instead of waiting for a writer) and is refused below.
    this.fd = openSync(name, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const st = fstatSync(this.fd)
      if (!st.isFile()) throw new NotAFileError(name, st)
      this.size = st.size
    } catch (e) {
      closeSync(this.fd)
      throw e
    }
    this.readahead = options.readahead ?? DEFAULT_READAHEAD
  }

  read(offset: number, length: number): Uint8Array {
    if (offset < 0 || length < 0 || offset + length > this.size) throw new ShortReadError(offset, length, this.size)
    const w = this.window
    if (offset >= this.windowStart && offset + length <= this.windowStart + w.length) {
      return w.subarray(offset - this.windowStart, offset - this.windowStart + length)
    }
    if (length >= this.readahead) return this.readExact(offset, length)
    const windowLength = Math.min(this.readahead, this.size - offset)
    this.window = this.readExact(offset, windowLength)
    this.windowStart = offset
    return this.window.subarray(0, length)
  }

  private readExact(offset: number, length: number): Uint8Array {
    const b = Buffer.allocUnsafe(length)
    const buf = new Uint8Array(b.buffer, b.byteOffset, length)
    this.readInto(offset, buf)
    return buf
  }

  readInto(offset: number, target: Uint8Array): void {
    const length = target.length
    if (offset < 0 || offset + length > this.size) throw new ShortReadError(offset, length, this.size)
    let done = 0
    while (done < length) {
      const n = readSync(this.fd, target, done, length - done, offset + done)
      if (n === 0) throw new FileShrankError(this.name, offset + done, this.size)
      done += n
    }
  }

  /** As readInto, on libuv's threads: reads in flight together copy in parallel. */
  async readIntoAsync(offset: number, target: Uint8Array): Promise<void> {
    const length = target.length
    if (offset < 0 || offset + length > this.size) throw new ShortReadError(offset, length, this.size)
    let done = 0
    while (done < length) {
      const n = await new Promise<number>((resolve, reject) => {
        read(this.fd, target, done, length - done, offset + done, (e, bytes) => (e ? reject(e) : resolve(bytes)))
      })
      if (n === 0) throw new FileShrankError(this.name, offset + done, this.size)
      done += n
    }
  }

  close(): void {
    if (this.fd >= 0) {
      closeSync(this.fd)
      this.fd = -1
      this.window = new Uint8Array(0)
    }
  }
}

/** An in-memory source, for tests and for bytes already in hand. */
export class BufferByteSource implements ByteSource {
  readonly size: number
  constructor(
    readonly bytes: Uint8Array,
    readonly name = '<memory>',
  ) {
    this.size = bytes.length
  }
  read(offset: number, length: number): Uint8Array {
    if (offset < 0 || length < 0 || offset + length > this.size) throw new ShortReadError(offset, length, this.size)
    return this.bytes.subarray(offset, offset + length)
  }
  readInto(offset: number, target: Uint8Array): void {
    target.set(this.read(offset, target.length))
  }
  close(): void {}
}

/**
 * A private readahead window over a source, for one sequential reader that
 * uses each result before its next read (a scan printing block after block).
 * Unlike the source's own window it reuses one buffer: results are valid only
 * until the next read, and a long scan allocates nothing per MiB.
 */
export class ReadWindow {
  private buf: Uint8Array
  private start = 0
  private length = 0

  constructor(
    private readonly source: ByteSource,
    size = DEFAULT_READAHEAD,
  ) {
    // No larger than the source: a window of a small file costs its size, not 1 MiB each (advise's block size opens
    // every file once per candidate, and each dead megabyte brings a recompress lane's next full collection nearer).
    this.buf = new Uint8Array(Math.min(size, source.size))
  }

  read(offset: number, length: number): Uint8Array {
    const at = this.at(offset, length)
    return this.buf.subarray(at, at + length)
  }

  /**
   * Where [offset, offset + length) starts in `bytes` (valid until the next read): as read(),
   * without a view per call, for a caller that reads the bytes in place.
   */
  at(offset: number, length: number): number {
    if (offset >= this.start && offset + length <= this.start + this.length) return offset - this.start
    if (offset < 0 || length < 0 || offset + length > this.source.size) throw new ShortReadError(offset, length, this.source.size)
    if (length > this.buf.length) this.grow(length)
    const n = Math.max(length, Math.min(this.buf.length, this.source.size - offset))
    const target = this.buf.subarray(0, n)
    if (this.source.readInto) this.source.readInto(offset, target)
    else target.set(this.source.read(offset, n))
    this.start = offset
    this.length = n
    return 0
  }

  /**
   * A buffer of at least `length` bytes, at least twice the last: reads of a little more each
   * time (runs of blocks up to a limit) had each taken a new buffer, whose pages the kernel
   * faulted in afresh (3,700 page faults of a 64 MB file's sst-dump check).
   */
  private grow(length: number): void {
    this.buf = new Uint8Array(Math.max(length, 2 * this.buf.length))
  }

  /** The window's buffer (at() says where a read starts in it). */
  get bytes(): Uint8Array {
    return this.buf
  }

  /**
   * Read [offset, offset + length) now, and no readahead past it: for a
   * caller that knows where its next reads fall (one of several threads
   * taking chunks of blocks, whose readahead would read the others' blocks).
   * Best effort: a range outside the source or a failed read leaves the
   * window empty (false), and read() then meets the problem as it would have (`rethrow`: the
   * failed read's error is thrown). True: `bytes` holds the range from its start.
   */
  fill(offset: number, length: number, rethrow = false): boolean {
    this.length = 0
    if (offset < 0 || length <= 0 || offset + length > this.source.size) return false
    if (length > this.buf.length) this.grow(length)
    const target = this.buf.subarray(0, length)
    try {
      if (this.source.readInto) this.source.readInto(offset, target)
      else target.set(this.source.read(offset, length))
    } catch (e) {
      if (rethrow) throw e
      return false
    }
    this.start = offset
    this.length = length
    return true
  }
}

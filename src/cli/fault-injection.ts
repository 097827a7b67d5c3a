/**
 * A test seam for the rule that a failure anywhere in one file is that file's report, never the
 * run's end: with `SSTKIT_TEST_FAIL_READ=N` in the environment, the N-th read (counting from 1)
 * of every file a command opens throws a plain Error, as a bug or a failing library would.
 * Unset (always, outside the tests), files are opened as they are.
 */
import { type ByteSource, FileByteSource } from '../io/byte-source.js'

export const FAIL_READ_ENV = 'SSTKIT_TEST_FAIL_READ'

/** The source a command reads `file` through. */
export function openSource(file: string, options: { readahead?: number } = {}): ByteSource {
  const source = new FileByteSource(file, options)
  const n = Number(process.env[FAIL_READ_ENV] ?? 0)
  return Number.isInteger(n) && n > 0 ? new FailingByteSource(source, n) : source
}

/** Passes reads through to `inner`, except the `failAt`-th, which throws. */
export class FailingByteSource implements ByteSource {
  private reads = 0

  constructor(
    private readonly inner: ByteSource,
    private readonly failAt: number,
  ) {}

  get name(): string {
    return this.inner.name
  }

  get size(): number {
    return this.inner.size
  }

  read(offset: number, length: number): Uint8Array {
    if (++this.reads === this.failAt) throw new Error(`injected failure of read ${this.reads} (offset ${offset}, ${length} bytes)`)
    return this.inner.read(offset, length)
  }

  close(): void {
    this.inner.close()
  }
}

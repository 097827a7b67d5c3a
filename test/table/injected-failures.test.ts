/**
 * An internal failure anywhere (here: a read that throws, as a bug or a failing library would) is
 * a problem of the file being read, with the file offset, never a throw out of verify: every read
 * of a whole verify run is failed in turn, on real fixtures of several layouts.
 */
import { describe, expect, it } from 'vitest'
import { FailingByteSource } from '../../src/cli/fault-injection.js'
import { type ByteSource, FileByteSource } from '../../src/io/byte-source.js'
import { verifyFile } from '../../src/verify/verify.js'
import { join } from 'node:path'
import { fixturePath, ROOT } from '../helpers.js'

const FIXTURES = [
  ...['fv5-none', 'fv0-crc32c-snappy', 'filter-fastbloom', 'index-partitioned', 'zstd-dict-trained', 'entry-types', 'v11-fv7-zstd'].map((n) => fixturePath(n)),
  // LevelDB tables: internal keys, and raw keys (the key format is detected by reading the first block).
  ...['leveldb-bytewise.ldb', 'leveldb-raw-keys.ldb'].map((n) => join(ROOT, 'test/fixtures/comparators', n)),
]

/** Counts the reads made through it. */
class CountingSource implements ByteSource {
  reads = 0
  constructor(private readonly inner: ByteSource) {}
  get name() {
    return this.inner.name
  }
  get size() {
    return this.inner.size
  }
  read(offset: number, length: number): Uint8Array {
    this.reads++
    return this.inner.read(offset, length)
  }
  close() {
    this.inner.close()
  }
}

function readsOfVerify(file: string): number {
  let counter: CountingSource | undefined
  const outcome = verifyFile(file, { openSource: (f) => (counter = new CountingSource(new FileByteSource(f))) })
  expect(outcome.kind).toBe('ok')
  return counter!.reads
}

describe.each(FIXTURES)('%s: every read failed in turn', (file) => {
  it('each failure is a finding of this file naming the offset of the read, never a throw', () => {
    const reads = readsOfVerify(file)
    expect(reads).toBeGreaterThan(3)
    for (let k = 1; k <= reads; k++) {
      const outcome = verifyFile(file, { openSource: (f) => new FailingByteSource(new FileByteSource(f), k) })
      expect(outcome.kind, `read ${k} of ${reads}`).toBe('findings')
      if (outcome.kind !== 'findings') continue
      const injected = outcome.problems.find((p) => p.message.includes(`injected failure of read ${k} `))
      expect(injected, `read ${k}: ${JSON.stringify(outcome.problems)}`).toBeDefined()
      expect(injected!.message).toMatch(/internal error: injected failure of read \d+ \(offset \d+, \d+ bytes\)/)
      for (const p of outcome.problems) expect(p.message).not.toMatch(/[\n\r]/)
    }
  })
})

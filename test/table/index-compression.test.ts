/**
 * Index blocks compressed through a context of their own (table/writer.ts compressIndexBlock: the
 * codec kernel's, freed on return) are byte for byte what the thread's shared context gives
 * (compressBlock, the path they took before), at zstd levels whose contexts differ in size.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CompressionType, compressBlock, decompressBlock } from '../../src/codec/compression.js'
import { codecKernelLoaded } from '../../src/codec/kernel.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { openTable } from '../../src/table/reader.js'
import { plainWriterOptions } from '../../src/table/writer.js'
import { type Entry, writeSyntheticTableWith } from '../synthetic.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-index-compression-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Entries in key order: 256-byte blocks of them make an index of well over 64 KiB (the locked path). */
function* entries(n: number): Generator<Entry> {
  const enc = new TextEncoder()
  for (let i = 0; i < n; i++) {
    const key = encodeInternalKey(enc.encode(`key${String(i * 7919).padStart(12, '0')}`), i + 1, ValueType.Value)
    yield [key, enc.encode(`value ${i} `.repeat(6))]
  }
}

describe('index block compression', () => {
  it('runs through the codec kernel here', () => {
    expect(codecKernelLoaded()).toBe(true)
  })

  for (const level of [1, 19]) {
    it(`stores zstd ${level}'s index payload exactly as the shared context compresses it`, () => {
      const path = join(dir, `synthetic-index-zstd${level}.sst`)
      const options = plainWriterOptions({ compressionType: CompressionType.ZSTD, level, blockSize: 256 })
      // Entries sorted by key (i * 7919 grows with i).
      writeSyntheticTableWith(path, entries(12_000), options)
      const table = openTable(path)
      try {
        const handle = table.indexHandle
        const raw = table.source.read(handle.offset, handle.size + 5)
        expect(raw[handle.size]).toBe(CompressionType.ZSTD)
        const payload = raw.subarray(0, handle.size)
        const index = decompressBlock(CompressionType.ZSTD, payload, { formatVersion: options.formatVersion, offset: handle.offset })
        expect(index.length).toBeGreaterThan(64 << 10)
        const shared = compressBlock(CompressionType.ZSTD, index, { formatVersion: options.formatVersion, level })
        expect(Buffer.from(payload).equals(Buffer.from(shared))).toBe(true)
      } finally {
        table.close()
      }
    })
  }
})

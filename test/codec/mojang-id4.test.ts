/**
 * Compression id 4 in a table of LevelDB's format: RocksDB's LZ4, but Mojang's LevelDB fork (Minecraft
 * Bedrock worlds) writes raw deflate under it (its ZlibCompressorRaw; kZlibRawCompression = 0x4 in later
 * forks; its id 2 is zlib with a header). The tables here are SYNTHETIC (test/synthetic.ts
 * writeSyntheticMojangTable), for what no real table shows: a damaged id-4 block, and id 4 in RocksDB's own
 * formats. A table the fork itself wrote: test/commands/mojang-zlib.test.ts (test/fixtures/found/mojang-zlib).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { CompressionType, decompressBlock } from '../../src/codec/compression.js'
import { CorruptionError, NotSupportedError } from '../../src/errors.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { sstkit } from '../helpers.js'
import { type Entry, writeSyntheticMojangTable } from '../synthetic.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-mojang-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const enc = new TextEncoder()
const ENTRIES: Entry[] = Array.from({ length: 120 }, (_, i) => [
  encodeInternalKey(enc.encode(`chunk-${String(i).padStart(5, '0')}`), BigInt(i + 1), 1),
  enc.encode(`value ${i} `.repeat(20)),
])
const NOT_LZ4 = "compression id 4 in a table of LevelDB's format is not RocksDB's LZ4 here: the block inflates as raw deflate"
const NOT_ZLIB_EITHER = "(compression id 4 in a table of LevelDB's format: not Mojang's LevelDB zlib either, which would inflate as raw deflate)"

describe("id 4 in a table of LevelDB's format (synthetic Mojang-style tables)", () => {
  const table = writeSyntheticMojangTable(join(tmp, 'synthetic-mojang-id4.ldb'), ENTRIES)

  it('a block that inflates as raw deflate: one line saying the id is not RocksDB’s LZ4 here, naming the file and offset', () => {
    const r = sstkit(['scan', table])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`${table}: data block: ${NOT_LZ4}`)
    expect(lines[0]).toContain("Mojang's LevelDB fork writes under id 4 (its zlib)")
    expect(lines[0]).toMatch(/\(at offset 0\)$/)
    expect(lines[0]).not.toContain('declares an uncompressed size')
    const v = sstkit(['verify', table])
    expect(v.status).toBe(1)
    expect(v.stdout).toContain(`data block at offset 0: data block: ${NOT_LZ4}`)
  })

  it('a block that is neither: the LZ4 error as before, with the id-4 hint', () => {
    // Its first bytes inverted: neither LZ4's framing nor a deflate stream.
    const bad = writeSyntheticMojangTable(join(tmp, 'synthetic-mojang-id4-damaged.ldb'), ENTRIES, {
      blockPayload: (d) => d.map((b, i) => (i < 12 ? 0xff - b : b)),
    })
    const r = sstkit(['scan', bad])
    expect(r.status).toBe(1)
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/data block: LZ4 block declares an uncompressed size of \d+ bytes, above the limit of \d+ /)
    expect(r.stderr).toContain(`${NOT_ZLIB_EITHER} (at offset 0)`)
  })

  it('only in a table of LevelDB’s format: RocksDB’s own LZ4 tables (format_version ≥ 1) keep the plain LZ4 error', () => {
    const deflated = new Uint8Array(deflateRawSync(enc.encode('a Bedrock chunk '.repeat(40))))
    expect(() => decompressBlock(CompressionType.LZ4, deflated, { formatVersion: 0, offset: 7 })).toThrow(NotSupportedError)
    for (const formatVersion of [1, 2, 5]) {
      let err: unknown
      try {
        decompressBlock(CompressionType.LZ4, deflated, { formatVersion, offset: 7 })
      } catch (e) {
        err = e
      }
      expect(err, `format_version ${formatVersion}`).toBeInstanceOf(CorruptionError)
      expect((err as Error).message).not.toContain('id 4')
    }
    // LZ4HC (id 5) is no one's zlib.
    expect(() => decompressBlock(CompressionType.LZ4HC, deflated, { formatVersion: 0, offset: 7 })).toThrow(/^LZ4HC block/)
  })
})

/**
 * A table written by Mojang's LevelDB fork itself (test/fixtures/found/mojang-zlib, from
 * generate-mojang-zlib.sh, which builds github.com/Mojang/leveldb-mcpe and a writer that sets its
 * ZlibCompressorRaw, as Minecraft Bedrock does): every data block and the index block are raw deflate
 * under compression id 4, RocksDB's LZ4. The fork reads the table back intact; sstkit says the id is not
 * RocksDB's LZ4 here, in one line naming the file and offset, and never reports a corrupt LZ4 block.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ROOT, sstkit } from '../helpers.js'

const DB = join(ROOT, 'test/fixtures/found/mojang-zlib')
const TABLE = join(DB, '000005.ldb')
const INDEX_OFFSET = 13119
const NOT_LZ4 = "compression id 4 in a table of LevelDB's format is not RocksDB's LZ4 here: the block inflates as raw deflate"
const FORK = "which Mojang's LevelDB fork writes under id 4 (its zlib); sstkit does not read that fork's tables"
const INDEX_LINE = `index block: ${NOT_LZ4} (923 bytes), ${FORK} (at offset ${INDEX_OFFSET})`

/** What an LZ4 reading would have said, and what a crash looks like. */
function expectNoLz4ErrorNorTrace(text: string): void {
  expect(text).not.toMatch(/declares an uncompressed size|LZ4 block|not Mojang's LevelDB zlib either/)
  expect(text).not.toMatch(/^\s+at /m)
}

describe("a table of Mojang's LevelDB fork (raw deflate under id 4, written by the fork)", () => {
  it('is what the fork writes: LevelDB footer, index and every data block id 4, each inflating as raw deflate', () => {
    const file = readFileSync(TABLE)
    expect(file.readBigUInt64LE(file.length - 8)).toBe(0xdb4775248b80fb57n)
    let p = file.length - 48
    const varint = (b: Uint8Array): number => {
      let r = 0
      for (let s = 0; ; s += 7) {
        const c = b[p++]
        r += (c & 0x7f) * 2 ** s
        if (!(c & 0x80)) return r
      }
    }
    varint(file)
    varint(file) // metaindex
    const io = varint(file)
    const is = varint(file)
    expect([io, file[io + is]]).toEqual([INDEX_OFFSET, 4])
    const index = inflateRawSync(file.subarray(io, io + is))
    const end = index.length - 4 - 4 * index.readUInt32LE(index.length - 4)
    const types: number[] = []
    for (p = 0; p < end; ) {
      varint(index)
      const keyBytes = varint(index)
      varint(index)
      p += keyBytes
      const offset = varint(index)
      const size = varint(index)
      types.push(file[offset + size])
      expect(inflateRawSync(file.subarray(offset, offset + size)).length).toBeGreaterThan(size)
    }
    expect(types).toEqual(Array(31).fill(4))
  })

  it('scan: one line saying id 4 is not RocksDB’s LZ4 here, naming the file, the block and its offset; exit 1', () => {
    const r = sstkit(['scan', TABLE])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`sstkit: ${TABLE}: ${INDEX_LINE}\n`)
  })

  it('verify: the index block named, as not RocksDB’s LZ4 here; an intact file is NOT SUPPORTED, never CORRUPT; exit 1', () => {
    const r = sstkit(['verify', TABLE])
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/: NOT SUPPORTED \(\d+ problems?\)\n/)
    expect(r.stdout).not.toContain('CORRUPT')
    expect(r.stdout).toContain(`index at offset ${INDEX_OFFSET}: index block: ${NOT_LZ4}`)
    expectNoLz4ErrorNorTrace(r.stdout + r.stderr)
    const j = JSON.parse(sstkit(['verify', TABLE, '--json']).stdout)
    const problems = (Array.isArray(j) ? j[0] : j).problems as { block: string; offset: number; message: string }[]
    expect(problems[0]).toMatchObject({ block: 'index', offset: INDEX_OFFSET, unsupported: true })
    expect(problems.every((p) => (p as { unsupported?: boolean }).unsupported === true)).toBe(true)
    expect(problems[0].message).toContain(NOT_LZ4)
  })

  it('layout: the footer and metaindex read, the index block’s problem says id 4; exit 1', () => {
    const r = sstkit(['layout', TABLE, '--json'])
    expect(r.status).toBe(1)
    expectNoLz4ErrorNorTrace(r.stdout + r.stderr)
    expect(r.stdout + r.stderr).toContain(NOT_LZ4)
  })

  it('props: a LevelDB table, read from its footer; exit 0', () => {
    const r = sstkit(['props', TABLE])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('LegacyBlockBasedTable (LevelDB), format_version 0')
    expect(r.stdout).toContain(`index                     offset ${INDEX_OFFSET}, size 401`)
  })

  it('advise on the database: its one table left out with the same words, nothing to advise on; exit 1', () => {
    const r = sstkit(['advise', DB])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`sstkit: every live file (1) was left out, nothing to advise on; the first, ${TABLE}: ${INDEX_LINE}; left out\n`)
  })
})

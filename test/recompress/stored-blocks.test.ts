/**
 * A pass's stored data blocks decoded a run at a time by the native decoder give what reading them
 * one by one (Table.readDataBlock) gives: the same contents, tally, stored payloads told to the
 * observer, and the same error at the same block; a block the decoder leaves (too large for its
 * buffer, damaged) is read on its own.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CompressionType } from '../../src/codec/compression.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { BufferByteSource, ReadWindow } from '../../src/io/byte-source.js'
import { newScratch } from '../../src/codec/output.js'
import { storedBlockDecoder, storedBlocks } from '../../src/recompress/stored-blocks.js'
import { openTable, type StoredTally, type Table } from '../../src/table/reader.js'
import { messageOf } from '../../src/table/layout.js'
import { ROOT } from '../helpers.js'
import { writeSyntheticTable } from '../synthetic.js'

const REAL = join(ROOT, 'test/fixtures/real')

interface Pass {
  blocks: { offset: number; data: string }[]
  observed: { offset: number; type: number; payload: string }[]
  tally: StoredTally
  error: { offset: number | null; message: string } | null
  bytes: number
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

/** Every data block of `table` through storedBlocks (with the native decoder or without), or one by one through readDataBlock. */
function pass(table: Table, how: 'decoder' | 'blocks' | 'readDataBlock'): Pass {
  const out: Pass = { blocks: [], observed: [], tally: { blocks: 0, storedBytes: 0, compressed: 0, types: [] }, error: null, bytes: 0 }
  const reuse = {
    window: new ReadWindow(table.source),
    scratch: newScratch(),
    tally: out.tally,
    observe: (s: { handle: { offset: number }; payload: Uint8Array; compressionType: number }) =>
      out.observed.push({ offset: s.handle.offset, type: s.compressionType, payload: hex(s.payload) }),
  }
  if (how === 'readDataBlock') {
    let offset: number | null = null
    try {
      for (const handle of table.dataHandles()) {
        offset = handle.offset
        const data = table.readDataBlock(handle, reuse)
        out.blocks.push({ offset, data: hex(data) })
        out.bytes += data.length
      }
    } catch (e) {
      out.error = { offset, message: messageOf(e) }
    }
    return out
  }
  const decoder = how === 'decoder' ? storedBlockDecoder(table) : null
  if (how === 'decoder') expect(decoder).not.toBeNull()
  for (const b of storedBlocks(table, decoder, reuse, (_ms, bytes) => (out.bytes += bytes))) {
    if (b.data === undefined) {
      out.error = { offset: b.handle?.offset ?? null, message: messageOf(b.error) }
      break
    }
    out.blocks.push({ offset: b.handle.offset, data: hex(b.data) })
  }
  return out
}

describe('stored blocks decoded a run at a time', () => {
  const fixtures = readdirSync(REAL)
    .filter((f) => f.endsWith('.sst'))
    .map((f) => f.slice(0, -4))

  it.each(fixtures)('%s: the same contents, tally, observed payloads and bytes as block by block', (name) => {
    const table = openTable(join(REAL, `${name}.sst`))
    try {
      const one = pass(table, 'readDataBlock')
      expect(pass(table, 'decoder')).toEqual(one)
      expect(pass(table, 'blocks')).toEqual(one)
      expect(one.blocks.length).toBeGreaterThan(0)
    } finally {
      table.close()
    }
  })

  it('a damaged block: the blocks before it, then the error readDataBlock words, at that block', () => {
    const file = join(REAL, 'fv5-lz4.sst')
    const bytes = new Uint8Array(readFileSync(file))
    const handles = [...openTable(file).dataHandles()]
    let checked = 0
    for (const k of [0, 3, handles.length - 1]) {
      for (const at of [handles[k].offset + 5, handles[k].offset + handles[k].size, handles[k].offset + handles[k].size + 2]) {
        const damaged = bytes.slice()
        damaged[at] ^= 0x55
        const table = openTable(new BufferByteSource(damaged, `damaged at ${at}`))
        const one = pass(table, 'readDataBlock')
        expect(one.error, `byte ${at}`).not.toBeNull()
        expect(one.error!.offset).toBe(handles[k].offset)
        expect(pass(table, 'decoder'), `byte ${at}`).toEqual(one)
        checked++
      }
    }
    expect(checked).toBe(9)
  })

  it('a block larger than the decoder buffer is read on its own, the blocks around it decoded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sstkit-stored-blocks-'))
    try {
      const big = new TextEncoder().encode('large value '.repeat(140_000)) // 1.68 MB, one block
      const small = new TextEncoder().encode('small value '.repeat(40))
      const key = (i: number) => encodeInternalKey(new TextEncoder().encode(`k${String(i).padStart(6, '0')}`), BigInt(i + 1), ValueType.Value)
      const entries: [Uint8Array, Uint8Array][] = []
      for (let i = 0; i < 300; i++) entries.push([key(i), i === 150 ? big : small])
      const file = writeSyntheticTable(join(dir, 'big-block.sst'), entries, { compression: CompressionType.LZ4 })
      const table = openTable(file)
      try {
        const one = pass(table, 'readDataBlock')
        expect(one.blocks.some((b) => b.data.length / 2 > 1 << 20)).toBe(true)
        expect(pass(table, 'decoder')).toEqual(one)
      } finally {
        table.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

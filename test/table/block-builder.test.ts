/**
 * The block and index builders reproduce RocksDB byte for byte: re-cutting the
 * entries of real uncompressed files (written by RocksDB 7.8.3 with 1 KiB or
 * 512-byte blocks) gives exactly the stored data blocks and index block.
 */
import { describe, expect, it } from 'vitest'
import { openTable, parseInternalKey } from '../../src/index.js'
import { BlockBuilder, FlushBySizePolicy } from '../../src/table/block-builder.js'
import { ShortenedIndexBuilder, shortestSeparator } from '../../src/format/index-block.js'
import { fixturePath } from '../helpers.js'

function rebuild(name: string, blockSize: number, indexRestartInterval = 1) {
  const table = openTable(fixturePath(name))
  const refs = [...table.dataBlocks()]
  const stored = refs.map((b) => table.readBlock(b.handle, 'data block', true).slice())
  const builder = new BlockBuilder(16)
  const policy = new FlushBySizePolicy(blockSize)
  const index = new ShortenedIndexBuilder({ userKeys: true, deltaValues: true, restartInterval: indexRestartInterval, valueTypeForSeek: 0x11 })
  const built: Uint8Array[] = []
  let lastKey: Uint8Array | null = null
  const flush = (next: Uint8Array | null) => {
    built.push(builder.finish())
    // The stored handles: blocks may be compressed, and the index records stored sizes.
    index.add(lastKey!, next, refs[built.length - 1]?.handle ?? { offset: 0, size: 0 })
  }
  const it = table.iterator()
  for (it.seekToFirst(); it.valid; it.next()) {
    if (policy.shouldFlush(builder, it.key.length, it.value.length)) flush(it.key)
    builder.add(it.key, it.value)
    lastKey = it.key.slice()
  }
  flush(null)
  const storedIndex = table.readBlock(table.indexHandle, 'index block')
  const userKeys = table.indexEncoding.keyIsUserKey
  table.close()
  return { stored, built, storedIndex, index: index.finish(), userKeys, indexUserKeys: index.keysAreUserKeys }
}

describe('BlockBuilder + FlushBySizePolicy', () => {
  it.each([
    ['fv5-none', 1024, 1],
    ['index-restart4', 512, 4],
    ['long-prefix', 256, 1],
  ])('reproduce the data blocks and index block of %s (block size %d, index restart interval %d)', (name, size, interval) => {
    const r = rebuild(name, size, interval)
    expect(r.built.length).toBe(r.stored.length)
    for (const [i, b] of r.built.entries()) expect(Buffer.from(b).equals(Buffer.from(r.stored[i])), `block ${i}`).toBe(true)
    expect(r.indexUserKeys).toBe(r.userKeys)
    expect(Buffer.from(r.index).equals(Buffer.from(r.storedIndex))).toBe(true)
  })
})

describe('shortestSeparator', () => {
  const b = (s: string) => new TextEncoder().encode(s)
  const t = (u: Uint8Array) => new TextDecoder().decode(u)
  it('shortens between keys as BytewiseComparator does', () => {
    expect(t(shortestSeparator(b('abcdef'), b('abzz')))).toBe('abd')
    expect(t(shortestSeparator(b('abc'), b('abcd')))).toBe('abc')
    expect(t(shortestSeparator(b('ab1xyz'), b('ab2')))).toBe('ab1y')
  })
})

it('internal keys survive the round trip', () => {
  const r = openTable(fixturePath('fv5-none'))
  const it = r.iterator()
  it.seekToFirst()
  expect(parseInternalKey(it.key).type).toBe(1)
  r.close()
})

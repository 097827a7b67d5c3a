/**
 * The browser's model against the library: the Blocks screen lists what
 * `tableLayout` lists, the Entries screen walks what the table iterator walks,
 * seek lands where the iterator's seek lands, and a corrupt block is one row
 * that says why while the rest of the file stays readable.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { openTable, tableLayout, type Table } from '../../src/index.js'
import { BrowseModel, type EntryPos } from '../../src/tui/model.js'
import { BAD, fixturePath, ROOT } from '../helpers.js'
import { join } from 'node:path'

const tables: Table[] = []
const models: BrowseModel[] = []
afterEach(() => {
  while (models.length) models.pop()!.close()
  while (tables.length) tables.pop()!.close()
})

function model(file: string): BrowseModel {
  const t = openTable(file)
  tables.push(t)
  const m = new BrowseModel(file, t, { background: false })
  models.push(m)
  return m
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex')
}

/** Every entry the model shows, in order, walking with move(+1). */
function walk(m: BrowseModel): { keys: string[]; problems: string[] } {
  const keys: string[] = []
  const problems: string[] = []
  let pos: EntryPos | null = m.first()
  while (pos) {
    const row = m.window(pos, 1)[0].row
    if ('problem' in row) problems.push(`#${pos.block}: ${row.problem}`)
    else keys.push(hex(row.internalKey))
    const next = m.move(pos, 1)
    if (next.block === pos.block && next.entry === pos.entry) break
    pos = next
  }
  return { keys, problems }
}

function iteratorKeys(t: Table): string[] {
  const out: string[] = []
  const it = t.iterator()
  for (it.seekToFirst(); it.valid; it.next()) out.push(hex(it.key))
  return out
}

const SAMPLE = join(ROOT, 'examples/sample.sst')

describe('BrowseModel', () => {
  it('reads nothing beyond what openTable read until asked (first paint is instant)', () => {
    const m = model(fixturePath('index-partitioned'))
    expect(m.refs.length).toBe(0)
    expect(m.metaBlocks).toBeNull()
    expect(m.props.properties['rocksdb.num.entries']).toBe(400)
    expect(m.byteSplit().source).toBe('properties')
    // one step of background work in a generous slice does all of it for a small file
    m.runAll()
    expect(m.indexDone).toBe(true)
    expect(m.refs.length).toBe(40)
    expect(m.byteSplit().source).toBe('layout')
  })

  it.each(['examples/sample.sst', 'index-partitioned', 'filter-ribbon', 'v11-fv7-zstd-dict', 'ingested-global-seqno'])(
    'lists the same blocks as tableLayout, in file order: %s',
    (name) => {
      const file = name.includes('/') ? join(ROOT, name) : fixturePath(name)
      const m = model(file)
      m.runAll()
      const expected = tableLayout(m.table, { decompress: false }).blocks
      const rows = m.blockRows().map((r) => m.describe(r, false).block)
      expect(rows.map((b) => [b.kind, b.offset, b.sizeOnDisk, b.checksum, b.compression])).toEqual(
        expected.map((b) => [b.kind, b.offset, b.sizeOnDisk, b.checksum, b.compression]),
      )
      // the split measured from the blocks adds up to the file
      const split = m.byteSplit()
      expect(split.parts.reduce((a, p) => a + p.bytes, 0)).toBe(m.table.fileSize)
    },
  )

  it.each(['index-partitioned', 'entry-types', 'many-versions', 'ingested-global-seqno', 'udt-u64ts', 'index-first-key', 'v11-fv7-blob', 'wide-columns'])(
    'walks the same entries as the table iterator, block by block: %s',
    (name) => {
      const m = model(fixturePath(name))
      const { keys, problems } = walk(m)
      expect(problems).toEqual([])
      expect(keys).toEqual(iteratorKeys(m.table))
      expect(m.indexDone).toBe(true)
    },
  )

  it('reads any block on its own through the index (random access, no walk from the start)', () => {
    const m = model(fixturePath('index-partitioned'))
    m.finishIndex()
    const all = iteratorKeys(m.table)
    // read blocks back to front: every one is positioned by a seek, none continues a previous read
    const perBlock: string[][] = []
    for (let b = m.refs.length - 1; b >= 0; b--) {
      const e = m.entries(b)
      expect(e.ok).toBe(true)
      if (e.ok) perBlock[b] = e.entries.map((r) => hex(r.internalKey))
    }
    expect(perBlock.flat()).toEqual(all)
  })

  it('seeks to the first entry >= key through the index, as the iterator does', () => {
    const m = model(SAMPLE)
    for (const k of ['user:0005', 'user:000508', 'a', 'user:0008999', '']) {
      const key = new TextEncoder().encode(k)
      const it = m.table.iterator()
      it.seek(key)
      const r = m.seek(key)
      expect('pos' in r).toBe(true)
      if (!('pos' in r)) continue
      const e = m.entries(r.pos.block)
      expect(e.ok && hex(e.entries[r.pos.entry].internalKey)).toBe(hex(it.key))
    }
    expect(m.seek(new TextEncoder().encode('zzz'))).toEqual({ end: true })
  })

  /** The iterator's entries of the undamaged original, minus the block that was damaged in the copy. */
  function originalWithout(name: string, badOffset: number): string[] {
    const t = openTable(fixturePath(name))
    tables.push(t)
    const out: string[] = []
    const it = t.iterator()
    for (it.seekToFirst(); it.valid; it.next()) if (it.blockHandle?.offset !== badOffset) out.push(hex(it.key))
    return out
  }

  it('shows a corrupt first data block as one row with the reason; every other block stays readable', () => {
    const m = model(join(BAD, 'data-flip-zstd.sst')) // fv5-zstd with data block 0 damaged
    const { keys, problems } = walk(m)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^#0: data block checksum mismatch.*at offset 0/)
    expect(keys).toEqual(originalWithout('fv5-zstd', 0))
    expect(keys.length).toBeGreaterThan(100)
    // the Blocks screen flags it too, as a checksum mismatch
    m.runAll()
    const rows = m.blockRows()
    const i = m.nextProblem(rows.length - 1)
    expect(m.describe(rows[i]).block).toMatchObject({ kind: 'data', offset: 0, checksum: 'mismatch', problem: expect.stringMatching(/checksum mismatch/) })
    expect(m.progress().problems).toBe(1)
  })

  it('a corrupt block in the middle: entries before and after it are all there', () => {
    const m = model(join(BAD, 'data-flip-none.sst')) // fv5-none with data block 1 (offset 984) damaged
    const { keys, problems } = walk(m)
    expect(problems).toEqual([expect.stringMatching(/^#1: data block checksum mismatch.*offset 984/)])
    expect(keys).toEqual(originalWithout('fv5-none', 984))
  })

  it('with an unreadable index: seek says why, the Blocks list marks the index and keeps the rest', () => {
    const m = model(join(BAD, 'index-flip.sst'))
    const r = m.seek(new TextEncoder().encode('row'))
    expect(r).toEqual({ error: expect.stringMatching(/index block checksum mismatch/) })
    m.runAll()
    expect(m.indexError).toMatch(/index block checksum mismatch/)
    // the Blocks screen still lists the meta blocks, the index marked, the data region as a gap
    const kinds = m.blockRows().map((r) => r.block.kind)
    expect(kinds).toContain('properties')
    expect(m.blockRows().find((r) => r.block.kind === 'index')?.block.problem).toMatch(/checksum mismatch/)
  })

  it('keeps a bounded number of blocks of entries in memory', () => {
    const t = openTable(fixturePath('index-partitioned'))
    tables.push(t)
    const m = new BrowseModel('x', t, { background: false, cacheBlocks: 4 })
    models.push(m)
    m.finishIndex()
    for (let b = 0; b < m.refs.length; b++) m.entries(b)
    const cached = m.refs.map((_, b) => m.isLoaded(b)).filter(Boolean).length
    expect(cached).toBe(4)
  })
})

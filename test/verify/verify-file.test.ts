import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../src/index.js'
import { BAD, fixturePath } from '../helpers.js'

describe('verifyFile: one typed outcome per file', () => {
  it('ok for a clean table, with its counts', () => {
    const o = verifyFile(fixturePath('fv5-zstd'))
    expect(o.kind).toBe('ok')
    if (o.kind === 'unopenable') return expect.unreachable()
    expect(o.problems).toEqual([])
    expect(o.entries).toBeGreaterThan(0)
  })

  it('findings for a damaged block, and for damaged meta blocks behind a readable footer', () => {
    const data = verifyFile(join(BAD, 'data-flip-zstd.sst'))
    expect(data.kind).toBe('findings')
    if (data.kind === 'unopenable') return expect.unreachable()
    expect(data.problems[0].message).toMatch(/checksum mismatch/)
    const meta = verifyFile(join(BAD, 'huge-index-handle.sst'))
    expect(meta.kind).toBe('findings')
    if (meta.kind === 'unopenable') return expect.unreachable()
    expect(meta.problems).toEqual([expect.objectContaining({ block: 'table', message: expect.stringMatching(/index block handle claims/) })])
  })

  it("a damaged metaindex is the one problem: the index is read as RocksDB wrote it at the file's format_version, not as if undelta-encoded", () => {
    // fv5: index values delta-encoded; without the properties to say so, each handle read otherwise names a data block that is not there.
    const o = verifyFile(join(BAD, 'metaindex-flip.sst'))
    expect(o.kind).toBe('findings')
    if (o.kind === 'unopenable') return expect.unreachable()
    expect(o.problems).toEqual([
      expect.objectContaining({ block: 'metaindex', offset: 9369, message: expect.stringMatching(/metaindex block checksum mismatch/) }),
    ])
  })

  it('unopenable without a readable footer, or for a missing file', () => {
    for (const name of ['bad-magic.sst', 'three-bytes.sst', 'empty.sst', 'fv99.sst', 'no-such-file.sst']) {
      expect(verifyFile(join(BAD, name)).kind, name).toBe('unopenable')
    }
  })
})

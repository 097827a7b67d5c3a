/** The overview's byte split (src/tui/overview.ts) on real files. */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openTable, tableLayout } from '../../src/index.js'
import { byteSplit } from '../../src/tui/overview.js'
import { fixturePath, ROOT } from '../helpers.js'

describe('byteSplit', () => {
  it.each([join(ROOT, 'examples/sample.sst'), fixturePath('index-partitioned'), fixturePath('filter-ribbon')])(
    'from the properties, then from the blocks: %s',
    (file) => {
      const t = openTable(file)
      try {
        const known = t.properties.known
        const estimate = byteSplit(t, null)
        expect(estimate.source).toBe('properties')
        const bytes = Object.fromEntries(estimate.parts.map((p) => [p.name, p.bytes]))
        expect(bytes.data).toBe(Number(known.get('rocksdb.data.size')))
        expect(bytes.index).toBe(Number(known.get('rocksdb.index.size')))
        expect(bytes.data + bytes.index + bytes.filter + bytes.meta).toBe(t.fileSize)

        const blocks = tableLayout(t, { decompress: false }).blocks
        const measured = byteSplit(t, blocks)
        expect(measured.source).toBe('layout')
        expect(measured.parts.reduce((a, p) => a + p.bytes, 0)).toBe(t.fileSize)
        const data = blocks.filter((b) => b.kind === 'data').reduce((a, b) => a + b.sizeOnDisk, 0)
        expect(measured.parts.find((p) => p.name === 'data')?.bytes).toBe(data)
      } finally {
        t.close()
      }
    },
  )
})

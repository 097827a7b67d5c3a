/**
 * The separated key/value layout of data blocks (RocksDB 11's separate_key_value_in_data_block)
 * against tables RocksDB 11.8.1 wrote with it (test/fixtures/v11-layout/, generate-v11-layout.sh):
 * sstkit reads every entry RocksDB wrote, and its BlockBuilder and FlushBySizePolicy, fed those
 * entries with the table's options, cut and encode the very data blocks RocksDB stored, byte for byte.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openTable } from '../../src/index.js'
import { BlockBuilder, FlushBySizePolicy } from '../../src/table/block-builder.js'
import { decodeBlockLayout } from '../../src/format/block.js'
import { Property } from '../../src/format/properties.js'
import { ROOT } from '../helpers.js'

const DIR = join(ROOT, 'test/fixtures/v11-layout')
const manifest = JSON.parse(readFileSync(join(DIR, 'fixtures.json'), 'utf8')) as {
  data: string
  tables: { name: string; compression: string; tableOptions: string }[]
}
/** The table options as numbers: block_size, block_restart_interval, separate_key_value_in_data_block. */
function tableOptions(s: string): { blockSize: number; restartInterval: number; separated: boolean } {
  const o = Object.fromEntries(s.split(';').map((kv) => kv.split('=')))
  return {
    blockSize: Number(o.block_size ?? 4096),
    restartInterval: Number(o.block_restart_interval ?? 16),
    separated: o.separate_key_value_in_data_block === 'true',
  }
}
const expected = spawnSync('node', [join(ROOT, 'test/fixtures/gen-data.mjs'), ...manifest.data.split(' ')], { encoding: 'utf8' })
  .stdout.split('\n')
  .filter(Boolean)

describe.each(manifest.tables)('$name (RocksDB 11.8.1, $tableOptions)', ({ name, tableOptions: topts }) => {
  const o = tableOptions(topts)

  it('reads back every entry RocksDB wrote, in order, and records the layout in its properties', () => {
    const table = openTable(join(DIR, `${name}.sst`))
    try {
      expect(table.dataRestartInterval).toBe(o.restartInterval)
      expect(table.properties.raw.some((p) => p.name === Property.SeparateKeyValueInDataBlock)).toBe(o.separated)
      const got: string[] = []
      const it = table.iterator()
      for (it.seekToFirst(); it.valid; it.next())
        got.push(`0x${Buffer.from(it.key.subarray(0, -8)).toString('hex')} ==> 0x${Buffer.from(it.value).toString('hex')}`)
      expect(got).toEqual(expected)
    } finally {
      table.close()
    }
  })

  it("BlockBuilder cuts and encodes RocksDB's data blocks to the byte", () => {
    const table = openTable(join(DIR, `${name}.sst`))
    try {
      const stored = [...table.dataBlocks()].map((b) => table.readBlock(b.handle, 'data block', true).slice())
      for (const b of stored) expect(decodeBlockLayout(b, 0).separatedKV).toBe(o.separated)
      const builder = new BlockBuilder(o.restartInterval, true, false, o.separated)
      const policy = new FlushBySizePolicy(o.blockSize)
      const built: Uint8Array[] = []
      const it = table.iterator()
      for (it.seekToFirst(); it.valid; it.next()) {
        if (policy.shouldFlush(builder, it.key.length, it.value.length)) built.push(builder.finish())
        builder.add(it.key, it.value)
      }
      built.push(builder.finish())
      expect(built.length).toBe(stored.length)
      for (const [i, b] of built.entries()) expect(Buffer.from(b).equals(Buffer.from(stored[i])), `data block ${i}`).toBe(true)
    } finally {
      table.close()
    }
  })
})

/**
 * A database RocksDB 2.5 wrote (test/fixtures/found/rocksdb-2.5, from generate-rocksdb25.sh, which builds
 * RocksDB 2.5's own ldb): its table keeps its properties under the block's old name, rocksdb.stats, and the
 * database has no OPTIONS file. It is a RocksDB database, not LevelDB's: no LevelDB option, no migration.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { jsonNoteTexts, ROOT, sstkit, toolPresent } from '../helpers.js'

const DB = join(ROOT, 'test/fixtures/found/rocksdb-2.5')
const TABLE = join(DB, '000006.sst')
const SST_DUMP = ['/usr/bin/sst_dump', '/usr/local/bin/sst_dump'].find((p) => spawnSync('test', ['-x', p]).status === 0) ?? null

describe('RocksDB 2.5 (properties under rocksdb.stats, no OPTIONS file)', () => {
  it.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))('its properties are read as the real sst_dump 7.8.3 reads them', () => {
    const props = JSON.parse(sstkit(['props', TABLE, '--json']).stdout).properties
    const real = spawnSync(SST_DUMP!, [`--file=${TABLE}`, '--show_properties', '--command=none'], { encoding: 'utf8' }).stdout
    const field = (name: string) => Number(new RegExp(`^ {2}${name}: (\\d+)$`, 'm').exec(real)?.[1])
    expect(props['rocksdb.num.entries']).toBe(field('# entries'))
    expect(props['rocksdb.num.data.blocks']).toBe(field('# data blocks'))
    expect(props['rocksdb.data.size']).toBe(field('data block size'))
    expect(props['rocksdb.raw.key.size']).toBe(field('raw key size'))
    expect(props['rocksdb.raw.value.size']).toBe(field('raw value size'))
    expect(props['rocksdb.num.entries']).toBe(2000)
  })

  it('advise calls it a RocksDB database: no LevelDB option, no migration', () => {
    const r = sstkit(['advise', DB, '--json', '--types', 'snappy,zstd', '--levels', 'default', '--dict', 'none'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const a = JSON.parse(r.stdout) as Advice
    expect(a.source.engine).not.toBe('leveldb')
    expect(a.leveldb ?? null).toBeNull()
    expect(a.notes.map((n) => n.code)).not.toContain('leveldb-database')
    expect(jsonNoteTexts(a).join('\n')).not.toMatch(/LevelDB/)
    expect(a.notes).toContainEqual({ code: 'no-options-file', text: 'no OPTIONS file: today is what the files themselves say' })
    expect(a.columnFamilies[0].levels.map((l) => [l.level, l.entries])).toEqual([[2, 2000]])
  })
})

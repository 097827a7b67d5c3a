/**
 * Tables `ldb` 7.8.3 writes with kZlibCompression under CompressionOptions::strategy 0..4, from the
 * same entries (gen-data.mjs), and the shape of their data blocks and index: the oracle of
 * zlib-strategy.slow.test.ts (rewrite) and test/recompress/zlib-strategy.test.ts (recompress's sweep).
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tableLayout } from '../../src/table/layout.js'
import { openTable } from '../../src/table/reader.js'
import { LDB } from '../db/ldb.js'
import { ROOT } from '../helpers.js'

/** The entries every strategy's table holds: 1,500 sequential keys, text values of 8..160 bytes. */
export function strategyData(): string {
  return spawnSync('node', [join(ROOT, 'test/fixtures/gen-data.mjs'), '--seed=41', '--count=1500', '--keys=seq:key:8', '--values=text:8:160'], {
    encoding: 'utf8',
  }).stdout
}

/** One SST written by ldb 7.8.3 (4 KiB blocks, format_version 5) from `data` with zlib under this deflate strategy, in a new DB under `dir`. */
export function ldbZlibSst(dir: string, name: string, data: string, strategy: number): string {
  const db = join(dir, `db-${name}`)
  const run = (args: string[], input = '') => {
    const r = spawnSync(LDB!, args, { input, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`ldb ${args.join(' ')}: ${r.stderr}`)
  }
  run([`--db=${db}`, '--create_if_missing', 'load'])
  const file = join(
    db,
    readdirSync(db)
      .filter((n) => n.startsWith('OPTIONS-'))
      .sort()
      .pop()!,
  )
  let text = readFileSync(file, 'utf8')
  text = text.replace(/^(\s*)compression=.*$/m, '$1compression=kZlibCompression')
  text = text.replace(/^(\s*compression_opts=\{.*)strategy=0;/m, `$1strategy=${strategy};`)
  text = text.replace(/^(\s*)format_version=.*$/m, '$1format_version=5')
  writeFileSync(file, text)
  run([`--db=${db}`, '--hex', 'load', '--disable_wal'], data)
  const ssts = readdirSync(db).filter((n) => n.endsWith('.sst'))
  if (ssts.length !== 1) throw new Error(`${name}: expected one SST, found ${ssts.join(', ')}`)
  return join(db, ssts[0])
}

/** A table's data blocks (count, bytes with trailers), index block bytes and rocksdb.compression_options. */
export function tableShape(file: string): { blocks: number; dataBytes: number; indexBytes: number; options: string } {
  const table = openTable(file)
  try {
    const l = tableLayout(table, { decompress: false })
    const data = l.blocks.filter((b) => b.kind === 'data')
    return {
      blocks: data.length,
      dataBytes: data.reduce((a, b) => a + b.sizeOnDisk, 0),
      indexBytes: l.blocks.filter((b) => b.kind === 'index').reduce((a, b) => a + b.sizeOnDisk, 0),
      options: String(table.properties.known.get('rocksdb.compression_options')),
    }
  } finally {
    table.close()
  }
}

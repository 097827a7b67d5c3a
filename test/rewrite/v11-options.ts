/**
 * The RocksDB 11.8.1 database of test/fixtures/db/v11 with table options edited in its OPTIONS
 * file, for tests of what a database's OPTIONS make sstkit write (its tables stay RocksDB's).
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { newestOptionsFile } from '../../src/db/options.js'
import { ROOT } from '../helpers.js'

/**
 * A copy of the RocksDB 11.8.1 database db/v11 whose newest OPTIONS file sets `option` to `value`
 * in the table options of column family `cf` (each written there by RocksDB with its default).
 */
export function v11WithTableOption(dir: string, edits: { cf: string; option: string; value: string }[]): string {
  cpSync(join(ROOT, 'test/fixtures/db/v11'), dir, { recursive: true })
  const file = newestOptionsFile(dir)!
  let text = readFileSync(file, 'utf8')
  for (const { cf, option, value } of edits) {
    const start = text.indexOf(`[TableOptions/BlockBasedTable "${cf}"]`)
    const at = text.indexOf(`\n  ${option}=`, start)
    const end = text.indexOf('\n', at + 1)
    if (start < 0 || at < start) throw new Error(`no ${option} in the table options of "${cf}"`)
    text = `${text.slice(0, at)}\n  ${option}=${value}${text.slice(end)}`
  }
  writeFileSync(file, text)
  return dir
}

/**
 * `rewrite DB --advice FILE` applies the advised block size: examples/db advised by the real
 * `sstkit advise` (block_size 4096 → 32768 for "default", 8192 → 16384 for "events"), rewritten;
 * then sst_dump 7.8.3 checks every table and counts its data blocks, every data block but the last
 * is cut where RocksDB's FlushBlockBySizePolicy cuts one at that block size (at least 90% of it,
 * block_size_deviation=10), the OPTIONS file carries the block size, and ldb 7.8.3 scans every
 * column family of the output equal to the source.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/db/database.js'
import { parseOptionsFile, columnFamilySections } from '../../src/format/options-file.js'
import { assertFreshBuild, ROOT, SST_DUMP, sstkit, toolPresent } from '../helpers.js'
import { LDB } from '../db/ldb.js'

assertFreshBuild()
const EXAMPLE = join(ROOT, 'examples/db')
const work = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-db-bs-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Advised {
  name: string
  blockSize: { today: number; recommended: number | null }
}

describe.runIf(
  toolPresent('ldb', LDB !== null, 'apt-get install rocksdb-tools') && toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'),
)('rewrite DB --advice: the advised block size', () => {
  const out = join(work, 'out')
  let advised: Advised[] = []
  let stderr = ''
  beforeAll(() => {
    const a = sstkit(['advise', EXAMPLE, '--json'])
    expect(a.status, a.stderr).toBe(0)
    writeFileSync(join(work, 'advice.json'), a.stdout)
    advised = JSON.parse(a.stdout).columnFamilies
    const r = sstkit(['rewrite', EXAMPLE, '-o', out, '--advice', join(work, 'advice.json')])
    expect(r.status, r.stderr).toBe(0)
    stderr = r.stderr
  }, 180_000)

  it('advise recommends a block size other than today for both column families (else this test shows nothing)', () => {
    for (const cf of advised) {
      expect(cf.blockSize.recommended).not.toBeNull()
      expect(cf.blockSize.recommended).not.toBe(cf.blockSize.today)
      expect(stderr).toContain(`column family "${cf.name}": every table written with the advised block_size ${cf.blockSize.recommended}`)
    }
  })

  it("every table: sst_dump checks it, its data blocks are cut at the column family's advised block size", () => {
    for (const cf of openDatabase(out).columnFamilies) {
      const bs = advised.find((a) => a.name === cf.name)!.blockSize.recommended!
      const source = openDatabase(EXAMPLE).columnFamilies.find((c) => c.name === cf.name)!
      for (const f of cf.levels.flat()) {
        const check = spawnSync(SST_DUMP!, [`--file=${f.path}`, '--command=check', '--verify_checksum'], { encoding: 'utf8' })
        expect(check.status, check.stderr).toBe(0)
        const props = spawnSync(SST_DUMP!, [`--file=${f.path}`, '--show_properties'], { encoding: 'utf8' })
        expect(props.status, props.stderr).toBe(0)
        const blocks = Number(/# data blocks: (\d+)/.exec(props.stdout)![1])
        const layout = JSON.parse(sstkit(['layout', f.path, '--json']).stdout)
        const data = (layout.blocks as { kind: string; uncompressedSize: number }[]).filter((b) => b.kind === 'data')
        expect(data.length).toBe(blocks)
        for (const b of data.slice(0, -1)) {
          expect(b.uncompressedSize).toBeGreaterThanOrEqual(Math.floor(bs * 0.9))
          expect(b.uncompressedSize).toBeLessThan(bs + 1024)
        }
        // The source's table of the same number, cut at today's smaller block size, has more blocks.
        const before = source.levels.flat().find((g) => g.fileNumber === f.fileNumber)!
        const sourceBlocks = Number(
          /# data blocks: (\d+)/.exec(spawnSync(SST_DUMP!, [`--file=${before.path}`, '--show_properties'], { encoding: 'utf8' }).stdout)![1],
        )
        expect(blocks).toBeLessThan(sourceBlocks)
      }
    }
  })

  it('the OPTIONS file written carries block_size in each column family table section', () => {
    const name = readdirSync(out).find((f) => f.startsWith('OPTIONS-'))!
    const file = parseOptionsFile(readFileSync(join(out, name), 'latin1'), name)
    for (const cf of advised) expect(columnFamilySections(file, cf.name)?.table?.entries.get('block_size')).toBe(String(cf.blockSize.recommended))
  })

  it('ldb 7.8.3 scans every column family of the output equal to the source', () => {
    for (const cf of advised) {
      const scan = (dir: string) => {
        const copy = join(work, `copy-${cf.name}-${dir === out ? 'out' : 'src'}`)
        cpSync(dir, copy, { recursive: true })
        const r = spawnSync(LDB!, [`--db=${copy}`, `--column_family=${cf.name}`, 'scan', '--hex'], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })
        expect(r.status, r.stderr).toBe(0)
        return r.stdout
      }
      const want = scan(EXAMPLE)
      expect(want.split('\n').length).toBeGreaterThan(100)
      expect(scan(out)).toBe(want)
    }
  })
})

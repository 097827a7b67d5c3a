/**
 * Restart points (RocksDB's BinarySeek rule, table/block_based/block.cc): each is the offset of an
 * entry that shares no key bytes. Real fixtures with one block's restart array damaged and its checksum
 * resealed (test/synthetic.ts restartDamagedCopy), in every block kind with restarts, with plain and
 * delta-encoded index values: JavaScript, WebAssembly, the native kernel and the parallel driver find the
 * same problem, at the same offset; where sst_dump 7.8.3's check reads the block by seeking (the
 * metaindex, the properties), it fails on the same tables. props, scan and layout say so in one line.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type * as VerifyModule from '../../src/verify/verify.js'
import { CompressionType } from '../../src/codec/compression.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { plainWriterOptions } from '../../src/table/writer.js'
import { assertFreshBuild, fixturePath, ROOT, SST_DUMP, sstkit, toolPresent } from '../helpers.js'
import { type RestartBlockKind, type RestartDamage, restartDamagedCopy, writeSyntheticTableWith } from '../synthetic.js'
import { verifyFile as verifySource } from '../../src/verify/verify.js'

assertFreshBuild()
const { verifyFile } = (await import(join(ROOT, 'dist', 'verify/verify.js'))) as typeof VerifyModule

const dir = mkdtempSync(join(tmpdir(), 'sstkit-restarts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const enc = (s: string) => new TextEncoder().encode(s)
const entries = Array.from(
  { length: 600 },
  (_, i) => [encodeInternalKey(enc(`key${String(i).padStart(6, '0')}`), 1000 - i, ValueType.Value), enc(`value ${i} `.repeat(3))] as [Uint8Array, Uint8Array],
)

/** sstkit's writer, uncompressed: format_version 3 (index values with their lengths), and a partitioned index. */
const synthetic = {
  fv3: writeSyntheticTableWith(
    join(dir, 'synthetic-fv3.sst'),
    entries,
    plainWriterOptions({ compressionType: CompressionType.None, formatVersion: 3, blockSize: 1024 }),
  ),
  partitioned: writeSyntheticTableWith(
    join(dir, 'synthetic-partitioned.sst'),
    entries,
    plainWriterOptions({ compressionType: CompressionType.None, blockSize: 512, index: 'partitioned', metadataBlockSize: 256 }),
  ),
}

const CASES: [string, string, RestartBlockKind][] = [
  ['fv5-none', fixturePath('fv5-none'), 'data'],
  ['v11-fv7-none', fixturePath('v11-fv7-none'), 'data'],
  ['fv5-none', fixturePath('fv5-none'), 'index'],
  ['v10-fv6-none', fixturePath('v10-fv6-none'), 'index'],
  ['synthetic-fv3', synthetic.fv3, 'index'],
  ['synthetic-partitioned', synthetic.partitioned, 'index partition'],
  ['entry-types', fixturePath('entry-types'), 'metaindex'],
  ['v9-fv6-zstd-dict', fixturePath('v9-fv6-zstd-dict'), 'metaindex'],
  ['fv5-none', fixturePath('fv5-none'), 'properties'],
  ['entry-types', fixturePath('entry-types'), 'range deletions'],
]
const DAMAGES: RestartDamage[] = ['into', 'middle', 'duplicate', 'shared']
const RESTART_PROBLEM = /restart point \d+ \(\d+\) (is not the start of an entry|does not follow)|entry at restart point \d+ has shared length \d+, not 0/

const damaged = CASES.flatMap(([name, path, kind]) =>
  DAMAGES.map((damage) => {
    const out = restartDamagedCopy(path, join(dir, `synthetic-${name}-${kind.replace(' ', '-')}-${damage}.sst`), kind, damage)
    return { name, kind, damage, path: out }
  }).filter((c): c is { name: string; kind: RestartBlockKind; damage: RestartDamage; path: string } => c.path !== null),
)

describe('a restart point off an entry, or at an entry that shares key bytes', () => {
  it('is made for every block kind and every damage the block has restart points for', () => {
    const made = new Set(damaged.map((c) => `${c.kind}/${c.damage}`))
    for (const kind of new Set(CASES.map((c) => c[2]))) {
      expect(made.has(`${kind}/shared`)).toBe(true)
      if (kind !== 'properties') for (const damage of DAMAGES) expect(made.has(`${kind}/${damage}`)).toBe(true)
    }
  })

  it.each(damaged.map((c) => [`${c.name} ${c.kind} ${c.damage}`, c] as const))('%s: the same finding from every path', (_, c) => {
    // JavaScript alone, WebAssembly alone, with the native kernel (this source), and the built code serially
    // and with workers taking chunks of about a block.
    const js = verifySource(c.path, { wasm: false, jobs: 1 })
    expect(verifySource(c.path, { native: false, jobs: 1 })).toEqual(js)
    expect(verifySource(c.path, { jobs: 1 })).toEqual(js)
    expect(verifyFile(c.path, { jobs: 1 })).toEqual(js)
    expect(verifyFile(c.path, { jobs: 2, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true })).toEqual(js)
    expect(js.kind).toBe('findings')
    const problems = js.kind === 'findings' ? js.problems : []
    expect(problems.map((p) => p.message).join('\n')).toMatch(RESTART_PROBLEM)
    expect(problems.every((p) => p.offset !== null)).toBe(true)
  })
})

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))('real RocksDB (sst_dump 7.8.3) on the same tables', () => {
  // 7.8.3 reads format_version 5 and below.
  const readable = damaged.filter((c) => !/fv[67]/.test(c.name))
  const check = (path: string) => spawnSync(SST_DUMP as string, [`--file=${path}`, '--command=check', '--verify_checksum'], { encoding: 'utf8' })

  it('every table its check calls corrupt, sstkit verify calls damaged', () => {
    let failed = 0
    for (const c of readable) {
      const real = check(c.path)
      if (!/Corruption/.test(`${real.stdout}${real.stderr}`)) continue
      failed++
      expect(verifyFile(c.path, { jobs: 1 }).kind, c.path).toBe('findings')
    }
    // Its check seeks in the metaindex and the properties block, and walks the other blocks linearly (which never looks at restart points).
    expect(failed).toBeGreaterThan(0)
  })

  // A linear walk passes a data or index block whose restart point lies inside an entry; RocksDB's seek, a binary search over the restart points, fails.
  it.each([
    ['data', 'into'],
    ['data', 'middle'],
    ['data', 'shared'],
    ['index', 'into'],
    ['index', 'middle'],
  ] as const)('%s block, %s: its seek finds nothing where the intact table has the keys', (kind, damage) => {
    const c = damaged.find((x) => x.name === 'fv5-none' && x.kind === kind && x.damage === damage)!
    const scan = (path: string) =>
      spawnSync(SST_DUMP as string, [`--file=${path}`, '--command=scan', '--from=row000030', '--to=row000032'], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => l.startsWith("'row"))
    expect(scan(fixturePath('fv5-none'))).toHaveLength(2)
    expect(scan(c.path)).toHaveLength(0)
    expect(verifyFile(c.path, { jobs: 1 }).kind).toBe('findings')
  })
})

describe('props, scan and layout on a table with a damaged restart array', () => {
  const pick = (kind: RestartBlockKind, damage: RestartDamage) => damaged.find((c) => c.kind === kind && c.damage === damage && !c.name.startsWith('v'))!
  it.each([
    ['scan', 'data', 'into'],
    ['scan', 'index', 'middle'],
    ['props', 'metaindex', 'middle'],
    ['layout', 'metaindex', 'shared'],
    ['props', 'properties', 'shared'],
    ['scan', 'range deletions', 'into'],
  ] as const)('%s, %s block, %s: one line naming the file, the problem and where', (command, kind, damage) => {
    const c = pick(kind, damage)
    const r = sstkit([command, c.path])
    expect(r.status).not.toBe(0)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(c.path)
    expect(lines[0]).toMatch(RESTART_PROBLEM)
    expect(lines[0]).toMatch(/offset \d+/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it.each(['into', 'middle', 'duplicate', 'shared'] as const)('layout, index block, %s: the block listed with its problem, exit 1', (damage) => {
    const c = pick('index', damage)
    const r = sstkit(['layout', '--json', c.path])
    expect(r.status).toBe(1)
    const blocks = (JSON.parse(r.stdout) as { blocks: { kind: string; problem?: string }[] }).blocks
    expect(blocks.find((b) => b.kind === 'index')?.problem).toMatch(RESTART_PROBLEM)
  })
})

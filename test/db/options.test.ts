import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compressionOptionName, compressionTypeName } from '../../src/codec/compression.js'
import { databaseNoteText, levelContext, openDatabase, type LiveFile } from '../../src/db/database.js'
import {
  compressionForLevel,
  compressionOpts,
  DEFAULT_COMPRESSION_OPTS,
  dynamicBaseLevel,
  readNewestOptions,
  targetFileSize,
  type ColumnFamilyOptions,
} from '../../src/db/options.js'
import { bufferLimited } from '../../src/decide/settings.js'
import { COMPRESSION_DICT_BLOCK } from '../../src/format/metaindex.js'
import { openTable } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'
import { catchErr } from '../format/catch-corruption.js'
import { dbFixture } from './ldb.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-options-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Option name (kZSTD, kLZ4Compression, ...) → RocksDB's compression type byte. */
function typeOf(option: string): number {
  const t = [0, 1, 2, 3, 4, 5, 6, 7, 0x40].find((n) => compressionOptionName(n) === option)
  if (t === undefined) throw new Error(`unknown compression option ${option}`)
  return t
}

describe('readNewestOptions on the fixture databases', () => {
  it('picks the highest-numbered OPTIONS file', () => {
    expect(readNewestOptions(dbFixture('layered'))?.path).toBe(join(dbFixture('layered'), 'OPTIONS-000017'))
    expect(readNewestOptions(dbFixture('churn'))?.path).toBe(join(dbFixture('churn'), 'OPTIONS-000018'))
    expect(readNewestOptions(dbFixture('v11'))?.path).toBe(join(dbFixture('v11'), 'OPTIONS-000009'))
  })

  it('null for a directory without one', () => {
    writeFileSync(join(tmp, 'CURRENT'), 'MANIFEST-000001\n')
    expect(readNewestOptions(tmp)).toBeNull()
  })

  it('layered: what db-writer set per column family (generate-db.sh)', () => {
    const o = readNewestOptions(dbFixture('layered'))!
    expect(o.rocksdbVersion).toBe('7.8.3')
    const [def, events] = o.columnFamilies
    expect(def).toMatchObject({
      name: 'default',
      compression: 'kSnappyCompression',
      compressionPerLevel: ['kLZ4Compression', 'kLZ4Compression', 'kSnappyCompression', 'kSnappyCompression'],
      bottommostCompression: 'kZSTD',
      numLevels: 4,
      levelCompactionDynamicLevelBytes: false,
      compactionStyle: 'kCompactionStyleLevel',
      blockSize: 4096,
      formatVersion: 5,
      checksum: 'kCRC32c',
      blockRestartInterval: 16,
      // separate_key_value_in_data_block is RocksDB 11's: absent here, its default.
      separateKeyValue: false,
      indexCompression: true,
      tableFactory: 'TableOptions/BlockBasedTable',
    })
    expect(def.compressionOpts).toEqual(DEFAULT_COMPRESSION_OPTS)
    expect(def.bottommostCompressionOpts).toEqual({ ...DEFAULT_COMPRESSION_OPTS, level: 3, maxDictBytes: 4096, zstdMaxTrainBytes: 32768, enabled: true })
    expect(events).toMatchObject({
      name: 'events',
      compressionPerLevel: ['kNoCompression', 'kLZ4Compression', 'kZSTD'],
      bottommostCompression: 'kDisableCompressionOption',
      numLevels: 5,
      blockSize: 8192,
      formatVersion: 4,
      checksum: 'kxxHash',
      blockRestartInterval: 8,
    })
    expect(events.compressionOpts.level).toBe(6)
    expect(events.raw['table.block_size']).toBe('8192')
    expect(events.raw.compression).toBe('kSnappyCompression')
  })

  it('churn: the dropped column family is gone from the newest file', () => {
    expect(readNewestOptions(dbFixture('churn'))!.columnFamilies.map((c) => c.name)).toEqual(['default', 'logs'])
  })

  it('v11: RocksDB 11.8.1 defaults (dynamic level bytes, format_version 7, XXH3) and the zstd checksum option', () => {
    const [def, events] = readNewestOptions(dbFixture('v11'))!.columnFamilies
    expect(def).toMatchObject({ compression: 'kLZ4Compression', numLevels: 7, levelCompactionDynamicLevelBytes: true, formatVersion: 7, checksum: 'kXXH3' })
    expect(events.compression).toBe('kZSTD')
    expect(def.compressionOpts.checksum).toBe(false)
  })
})

/** Which rule applies to a fixture file: the fixtures' writers flush into L0 and compact into the
 * deepest level first (then it was the bottommost), shallower levels later (generate-db.sh). */
function contextOf(f: LiveFile, levels: LiveFile[][]) {
  const deepest = levels.reduce((d, l, i) => (l.length > 0 ? i : d), 0)
  return { flush: f.level === 0, bottommost: f.level > 0 && f.level === deepest }
}

const ORACLE_DBS = [dbFixture('layered'), dbFixture('churn'), dbFixture('v11'), join(ROOT, 'examples/db')]

describe('compressionForLevel against what RocksDB wrote (each file`s compression property and blocks)', () => {
  it.each(ORACLE_DBS)('%s', (dir) => {
    const view = openDatabase(dir)
    let checked = 0
    let compressed = 0
    for (const cf of view.columnFamilies) {
      const cfo = view.options!.columnFamilies.find((c) => c.name === cf.name)!
      for (const files of cf.levels) {
        for (const f of files) {
          const want = compressionForLevel(cfo, f.level, contextOf(f, cf.levels))
          const type = typeOf(want.compression)
          const t = openTable(f.path)
          try {
            const name = t.properties.known.get('rocksdb.compression') as string
            const used = new Set<number>()
            for (const ref of t.dataBlocks()) used.add(t.readRaw(ref.handle, 'data block').compressionType)
            if (t.formatVersion >= 7) {
              // RocksDB 11 names the compressions actually used ("BuiltinV2;07;", "BuiltinV2;;" = none).
              expect(name).toBe(used.has(type) && type !== 0 ? `BuiltinV2;${type.toString(16).padStart(2, '0')};` : 'BuiltinV2;;')
            } else {
              expect(name, `${f.path} L${f.level}`).toBe(compressionTypeName(type))
            }
            // Blocks are stored with that compression, or raw where it did not pay.
            for (const u of used) expect([type, 0]).toContain(u)
            if (used.has(type) && type !== 0) compressed++
            else if (type !== 0) expect(used).toEqual(new Set([0])) // e.g. random bytes: every block rejected
            // The compression options the file records, dictionary included.
            const recorded = String(t.properties.known.get('rocksdb.compression_options'))
            expect(recorded).toContain(`level=${want.opts.level};`)
            expect(recorded).toContain(`max_dict_bytes=${want.opts.maxDictBytes};`)
            expect(t.metaBlock(COMPRESSION_DICT_BLOCK) !== null).toBe(want.opts.maxDictBytes > 0 && type === 7)
          } finally {
            t.close()
          }
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3)
    expect(compressed).toBeGreaterThanOrEqual(checked / 2)
  })

  it.each(ORACLE_DBS)('%s: levelContext (the rule applied to the LSM as it is now) predicts the same', (dir) => {
    const view = openDatabase(dir)
    let files = 0
    for (const cf of view.columnFamilies) {
      const cfo = view.options!.columnFamilies.find((c) => c.name === cf.name)!
      cf.levels.forEach((levelFiles, level) => {
        if (levelFiles.length === 0) return
        const now = compressionForLevel(cfo, level, levelContext(cf, level, cfo))
        for (const f of levelFiles) expect(now).toEqual(compressionForLevel(cfo, level, contextOf(f, cf.levels)))
        files += levelFiles.length
      })
    }
    expect(files, 'files compared').toBeGreaterThan(0)
  })

  it('levelContext: flush on L0, bottommost from the deepest non-empty level down, dynamic base level', () => {
    const view = openDatabase(dbFixture('v11'))
    const [def] = view.columnFamilies
    const cfo = view.options!.columnFamilies[0]
    expect(levelContext(def, 0, cfo)).toEqual({ flush: true, bottommost: false, baseLevel: 6 })
    expect(levelContext(def, 5, cfo)).toEqual({ flush: false, bottommost: false, baseLevel: 6 })
    expect(levelContext(def, 6, cfo)).toEqual({ flush: false, bottommost: true, baseLevel: 6 })
    const layered = openDatabase(dbFixture('layered'))
    expect(levelContext(layered.columnFamilies[1], 2, layered.options!.columnFamilies[1])).toEqual({ flush: false, bottommost: false, baseLevel: 1 })
  })

  it('layered: lz4 on L0/L1, snappy on L2, zstd with a dictionary on the bottommost L3', () => {
    const view = openDatabase(dbFixture('layered'))
    const def = view.options!.columnFamilies[0]
    const got = view.columnFamilies[0].levels.map((files) =>
      files.map((f) => compressionForLevel(def, f.level, contextOf(f, view.columnFamilies[0].levels)).compression),
    )
    expect(got).toEqual([['kLZ4Compression', 'kLZ4Compression'], ['kLZ4Compression'], ['kSnappyCompression'], ['kZSTD']])
  })
})

const cf = (over: Partial<ColumnFamilyOptions> = {}): ColumnFamilyOptions => ({
  name: 'default',
  compression: 'kSnappyCompression',
  compressionPerLevel: [],
  bottommostCompression: 'kDisableCompressionOption',
  compressionOpts: { ...DEFAULT_COMPRESSION_OPTS },
  bottommostCompressionOpts: { ...DEFAULT_COMPRESSION_OPTS },
  numLevels: 7,
  levelCompactionDynamicLevelBytes: false,
  compactionStyle: 'kCompactionStyleLevel',
  maxBytesForLevelBase: 256 << 20,
  maxBytesForLevelMultiplier: 10,
  targetFileSizeBase: 64 << 20,
  targetFileSizeMultiplier: 1,
  blockSize: 4096,
  formatVersion: 5,
  checksum: 'kCRC32c',
  blockRestartInterval: 16,
  separateKeyValue: false,
  indexCompression: true,
  tableFactory: 'TableOptions/BlockBasedTable',
  raw: {},
  ...over,
})

describe('compressionForLevel rules (compaction_picker.cc GetCompressionType / GetCompressionOptions)', () => {
  const perLevel = ['kNoCompression', 'kLZ4Compression', 'kZSTD']

  it('no compression_per_level: compression everywhere', () => {
    for (const level of [0, 1, 6]) expect(compressionForLevel(cf(), level, { bottommost: false }).compression).toBe('kSnappyCompression')
  })

  it('compression_per_level is indexed by level (static base level 1), clamped to its last entry', () => {
    const o = cf({ compressionPerLevel: perLevel })
    expect([0, 1, 2, 3, 6].map((l) => compressionForLevel(o, l, { bottommost: false }).compression)).toEqual([
      'kNoCompression',
      'kLZ4Compression',
      'kZSTD',
      'kZSTD',
      'kZSTD',
    ])
  })

  it('with a base level above 1 (dynamic level bytes) the entries shift: idx = level - base + 1', () => {
    const o = cf({ compressionPerLevel: perLevel, levelCompactionDynamicLevelBytes: true })
    expect([0, 4, 5, 6].map((l) => compressionForLevel(o, l, { bottommost: false, baseLevel: 5 }).compression)).toEqual([
      'kNoCompression',
      'kNoCompression',
      'kLZ4Compression',
      'kZSTD',
    ])
  })

  it('bottommost_compression overrides on the bottommost level, not for flushes', () => {
    const o = cf({ compressionPerLevel: perLevel, bottommostCompression: 'kZSTD', compressionOpts: { ...DEFAULT_COMPRESSION_OPTS, level: 1 } })
    expect(compressionForLevel(o, 1, { bottommost: true }).compression).toBe('kZSTD')
    expect(compressionForLevel(o, 0, { bottommost: true, flush: true }).compression).toBe('kNoCompression')
    // bottommost_compression_opts not enabled: compression_opts
    expect(compressionForLevel(o, 1, { bottommost: true }).opts.level).toBe(1)
  })

  it('bottommost_compression_opts apply when enabled, even without bottommost_compression', () => {
    const o = cf({ bottommostCompressionOpts: { ...DEFAULT_COMPRESSION_OPTS, enabled: true, level: 19, maxDictBytes: 8192 } })
    const r = compressionForLevel(o, 6, { bottommost: true })
    expect(r.compression).toBe('kSnappyCompression')
    expect(r.opts.level).toBe(19)
    expect(compressionForLevel(o, 5, { bottommost: false }).opts.level).toBe(32767)
  })

  it('universal compaction has base level -1 (static): idx = level + 2', () => {
    const o = cf({ compressionPerLevel: ['kNoCompression', 'kLZ4Compression', 'kSnappyCompression', 'kZSTD'], compactionStyle: 'kCompactionStyleUniversal' })
    expect(compressionForLevel(o, 1, { bottommost: false }).compression).toBe('kZSTD')
  })
})

describe('dynamicBaseLevel (VersionStorageInfo::CalculateBaseBytes)', () => {
  const dyn = cf({ levelCompactionDynamicLevelBytes: true })
  const GiB = 1024 ** 3

  it('static without dynamic level bytes', () => {
    expect(dynamicBaseLevel(cf(), [0, 0, 0, 0, 0, 0, 100 * GiB])).toBe(1)
    expect(dynamicBaseLevel(cf({ compactionStyle: 'kCompactionStyleUniversal' }), [])).toBe(-1)
  })

  it('no data above L0: the last level', () => expect(dynamicBaseLevel(dyn, [5 * GiB])).toBe(6))

  it('little data: the first non-empty level', () => {
    expect(dynamicBaseLevel(dyn, [0, 0, 0, 0, 0, 0, 100 << 20])).toBe(6)
    expect(dynamicBaseLevel(dyn, [0, 0, 0, 0, 1 << 20, 0, 100 << 20])).toBe(4)
  })

  it('much data: the base level moves up until its target fits max_bytes_for_level_base', () => {
    // 100 GiB on L6: 10 GiB L5, 1 GiB L4, 102 MiB L3 <= 256 MiB: base L3.
    expect(dynamicBaseLevel(dyn, [0, 0, 0, 0, 0, 0, 100 * GiB])).toBe(3)
    expect(dynamicBaseLevel(dyn, [0, 0, 0, 0, 0, 0, 100_000 * GiB])).toBe(1)
  })
})

describe('targetFileSize (MutableCFOptions max_file_size, MaxFileSizeForLevel) and the dictionary buffer it bounds', () => {
  const MiB = 1 << 20
  it('L0 is a flush (no target); L1 the base, then times the multiplier per level', () => {
    const o = cf({ targetFileSizeBase: 2 * MiB, targetFileSizeMultiplier: 3 })
    expect([0, 1, 2, 3].map((l) => targetFileSize(o, l, 1))).toEqual([0, 2 * MiB, 6 * MiB, 18 * MiB])
    expect(targetFileSize(cf({ compactionStyle: 'kCompactionStyleUniversal' }), 3, -1)).toBe(0)
  })
  it('with dynamic level bytes, counted from the base level', () => {
    const o = cf({ targetFileSizeBase: 2 * MiB, targetFileSizeMultiplier: 3, levelCompactionDynamicLevelBytes: true })
    expect([4, 5, 6].map((l) => targetFileSize(o, l, 4))).toEqual([2 * MiB, 2 * MiB, 6 * MiB])
  })
  it("the buffer is the smaller of max_dict_buffer_bytes and the target, 0 meaning the other's", () => {
    const d = { maxDictBytes: 16384, trainBytes: 1 << 20, maxDictBufferBytes: 64 * MiB }
    expect(bufferLimited(d, 0)).toBe(d)
    expect(bufferLimited(d, MiB).maxDictBufferBytes).toBe(MiB)
    expect(bufferLimited(d, 128 * MiB).maxDictBufferBytes).toBe(64 * MiB)
    expect(bufferLimited({ ...d, maxDictBufferBytes: 0 }, MiB).maxDictBufferBytes).toBe(MiB)
  })
})

describe('compression options values', () => {
  it('the legacy colon form', () => {
    expect(compressionOpts('-14:3:0:16384:65536:2:true', 'x')).toEqual({
      ...DEFAULT_COMPRESSION_OPTS,
      level: 3,
      maxDictBytes: 16384,
      zstdMaxTrainBytes: 65536,
      parallelThreads: 2,
      enabled: true,
    })
  })

  it('values read as RocksDB reads them: a decimal comma, k/m/g suffixes; an option advise does not use only noted', () => {
    const dir = mkdtempSync(join(tmp, 'locale-'))
    const file = join(dir, 'OPTIONS-000005')
    writeFileSync(
      file,
      '[DBOptions]\n[CFOptions "default"]\n  max_bytes_for_level_multiplier=10,000000\n  max_bytes_for_level_base=64m\n' +
        '[TableOptions/BlockBasedTable "default"]\n  block_size=4k\n  block_restart_interval=sixteen\n[Future "x"]\n  whatever\n',
    )
    const o = readNewestOptions(dir)!
    expect(o.columnFamilies[0]).toMatchObject({ maxBytesForLevelMultiplier: 10, maxBytesForLevelBase: 64 << 20, blockSize: 4096, blockRestartInterval: 16 })
    expect(o.notes).toEqual([
      { code: 'options-section-skipped', file, line: 8, section: '[Future "x"]' },
      { code: 'option-decimal-comma', file, line: 3, key: 'max_bytes_for_level_multiplier', value: '10,000000', readAs: 10 },
      { code: 'option-not-used', problem: `${file}:7: block_restart_interval: 'sixteen' is not a number`, default: '16' },
    ])
    expect(o.notes.map(databaseNoteText)).toEqual([
      `${file}:8: section [Future "x"] is not one sstkit knows: skipped`,
      `${file}:3: max_bytes_for_level_multiplier=10,000000 is written with a decimal comma (by a writer under a locale that writes one): read as 10`,
      `${file}:7: block_restart_interval: 'sixteen' is not a number; advise does not use it: RocksDB's default 16 stands in`,
    ])
    writeFileSync(file, '[DBOptions]\n[CFOptions "default"]\n  num_levels=7\n  max_bytes_for_level_multiplier=ten\n')
    expect(catchErr(() => readNewestOptions(dir)).message).toBe(`${file}:4: max_bytes_for_level_multiplier: 'ten' is not a number`)
  })

  it('bad values are errors naming the file and key', () => {
    expect(catchErr(() => compressionOpts('{level=high;}', 'OPTIONS-7:12: compression_opts')).message).toBe(
      "OPTIONS-7:12: compression_opts.level: 'high' is not a number",
    )
    expect(catchErr(() => compressionOpts('{enabled=maybe;}', 'f')).message).toBe("f.enabled: 'maybe' is not a boolean")
    expect(catchErr(() => compressionOpts('1:2', 'f')).message).toContain("has fewer than 4 ':'-separated fields")
    const dir = mkdtempSync(join(tmp, 'bad-'))
    writeFileSync(join(dir, 'OPTIONS-000003'), '[DBOptions]\n[CFOptions "default"]\n  num_levels=seven\n')
    // The value's own line, not its section's.
    expect(catchErr(() => readNewestOptions(dir)).message).toBe(`${join(dir, 'OPTIONS-000003')}:3: num_levels: 'seven' is not a number`)
  })
})

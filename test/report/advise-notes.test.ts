/**
 * report/advise-notes.ts: every coded note of the advice in its one sentence (the wording the reports
 * printed when the engine wrote sentences itself), and `advise --json`'s notes with their text beside.
 */
import { describe, expect, it } from 'vitest'
import { adviceJson, noteText } from '../../src/report/advise-notes.js'
import type { Advice, AdviceNote, BlockSizeNote } from '../../src/types/advice.js'
import { sampleAdvice } from './advice-sample.js'

type Note = AdviceNote | BlockSizeNote

/** One note of each code and its sentence; a code missing here fails to compile. */
const SENTENCES: { [C in Note['code']]: [Extract<Note, { code: C }>, string][] } = {
  'matrix-type-has-no-levels': [[{ code: 'matrix-type-has-no-levels', type: 'snappy' }, 'snappy has no levels: --levels ignored']],
  'matrix-levels-out-of-range': [
    [
      { code: 'matrix-levels-out-of-range', type: 'lz4', min: -65537, max: -1, leftOut: [1, 3], defaultLevelKept: true },
      'lz4 accepts levels -65537..-1: left out 1, 3; its default level evaluated',
    ],
  ],
  'matrix-dict-mode-not-applicable': [
    [{ code: 'matrix-dict-mode-not-applicable', type: 'lz4', modes: ['raw', 'train'] }, 'dictionary mode raw, train does not apply to lz4'],
  ],
  'matrix-strategy-without-zlib': [
    [
      { code: 'matrix-strategy-without-zlib', types: ['zstd', 'lz4'] },
      "--compression-strategy is zlib's deflate strategy, and no zlib type is evaluated: ignored (zstd, lz4 take none)",
    ],
  ],
  'options-section-skipped': [
    [
      { code: 'options-section-skipped', file: 'db/OPTIONS-5', line: 8, section: '[Future "x"]' },
      'db/OPTIONS-5:8: section [Future "x"] is not one sstkit knows: skipped',
    ],
  ],
  'option-not-used': [
    [
      { code: 'option-not-used', problem: "db/OPTIONS-5:7: block_restart_interval: 'sixteen' is not a number", default: '16' },
      "db/OPTIONS-5:7: block_restart_interval: 'sixteen' is not a number; advise does not use it: RocksDB's default 16 stands in",
    ],
  ],
  'option-decimal-comma': [
    [
      { code: 'option-decimal-comma', file: 'db/OPTIONS-5', line: 3, key: 'max_bytes_for_level_multiplier', value: '10,000000', readAs: 10 },
      'db/OPTIONS-5:3: max_bytes_for_level_multiplier=10,000000 is written with a decimal comma (by a writer under a locale that writes one): read as 10',
    ],
  ],
  'manifest-tail-ignored': [
    [
      { code: 'manifest-tail-ignored', file: 'db/MANIFEST-9', bytes: 12, offset: 4096, reason: 'truncated record payload' },
      'db/MANIFEST-9: the last 12 bytes (from offset 4096) are an incomplete record (truncated record payload); ignored, as RocksDB does',
    ],
  ],
  'column-family-without-options': [
    [
      { code: 'column-family-without-options', columnFamily: 'extra', file: 'db/OPTIONS-5' },
      'column family "extra" has no [CFOptions] section in db/OPTIONS-5',
    ],
  ],
  'column-family-beyond-num-levels': [
    [
      { code: 'column-family-beyond-num-levels', columnFamily: 'default', level: 5, numLevels: 3 },
      'column family "default" has files on level 5 but num_levels is 3 (RocksDB would not open it with these options)',
    ],
  ],
  'column-family-files-elsewhere': [
    [
      { code: 'column-family-files-elsewhere', columnFamily: 'default', files: 1, firstFileNumber: 8, pathId: 2, dir: 'db' },
      'column family "default": 1 file(s) (first #8) live in db_paths/cf_paths[2], outside db',
    ],
  ],
  'workload-log-unreadable': [
    [{ code: 'workload-log-unreadable', dir: 'db', reason: 'EACCES' }, 'cannot read the info LOG of db (EACCES): compression CPU is ranked by the fixed rules'],
  ],
  'workload-no-log': [
    [{ code: 'workload-no-log', dir: 'db' }, 'no info LOG in db (deleted, or written to db_log_dir): compression CPU is ranked by the fixed rules'],
    [
      { code: 'workload-no-log', dir: 'db', writeRate: { used: false, why: 'no-shape' } },
      'no info LOG in db (deleted, or written to db_log_dir): compression CPU is ranked by the fixed rules; --write-rate is not used: there is no per-level shape to scale',
    ],
  ],
  'workload-no-events': [
    [
      { code: 'workload-no-events', logFiles: 1 },
      'the info LOG (1 file) holds no event: info_log_level above INFO, or a LevelDB LOG: compression CPU is ranked by the fixed rules',
    ],
  ],
  'workload-no-writes': [
    [{ code: 'workload-no-writes', events: 7 }, 'the info LOG records no flush or compaction (7 events): compression CPU is ranked by the fixed rules'],
  ],
  'workload-measured': [
    [
      { code: 'workload-measured', logFiles: 2, flushes: 40, compactions: 12, spanSeconds: 1800, shortSpan: true, writtenPerDay: 3.1e9 },
      'workload from the info LOG (2 files, 40 flushes, 12 compactions over 30.0 min: a short span, rates may not be the day’s): 3.1 GB/day written',
    ],
    [
      {
        code: 'workload-measured',
        logFiles: 1,
        flushes: 40,
        compactions: 12,
        spanSeconds: 86400,
        shortSpan: false,
        writtenPerDay: 5e8,
        writeRate: { used: true, flushedPerDay: 20e9, measuredPerDay: 2e8 },
      },
      'workload from the info LOG (1 file, 40 flushes, 12 compactions over 24.0 h): 500.0 MB/day written; priced at --write-rate 20.0 GB/day flushed (the LOG measured 200.0 MB/day), its shape across levels kept',
    ],
    [
      {
        code: 'workload-measured',
        logFiles: 1,
        flushes: 0,
        compactions: 3,
        spanSeconds: 86400,
        shortSpan: false,
        writtenPerDay: 5e5,
        writeRate: { used: false, why: 'no-flush' },
      },
      'workload from the info LOG (1 file, 0 flushes, 3 compactions over 24.0 h): 500.0 KB/day written; --write-rate is not used: the LOG records no flush to scale from',
    ],
  ],
  'reads-not-measured': [[{ code: 'reads-not-measured' }, 'reads not measured']],
  'reads-no-statistics': [
    [{ code: 'reads-no-statistics' }, 'reads not measured (no statistics dumps in the LOG: statistics off): decompression keeps the fixed rule'],
  ],
  'reads-measured': [
    [
      { code: 'reads-measured', seconds: 600, dataBlockMissesPerSec: 12.345 },
      "reads from the statistics dumps over 10.0 min: rocksdb.block.cache.data.miss (data blocks read from the files, decompressed), 12.3/s; RocksDB counts them for the whole database, so they are put on each column family's bottommost level",
    ],
  ],
  'directory-without-sst': [[{ code: 'directory-without-sst', path: 'dir/empty' }, 'dir/empty holds no .sst files']],
  'live-files-missing': [
    [
      { code: 'live-files-missing', files: ['db/000007.sst', 'db/000009.sst'] },
      '2 live file(s) the MANIFEST lists are missing on disk and were left out: db/000007.sst, db/000009.sst',
    ],
  ],
  'live-files-vanished': [
    [
      { code: 'live-files-vanished', files: ['db/000007.sst'], versions: 3 },
      '1 live file(s) were deleted by RocksDB before they could be held (the database kept changing through 3 versions) and were left out: db/000007.sst',
    ],
  ],
  'live-files-not-held': [
    [
      { code: 'live-files-not-held', files: 4, why: 'open-file-limit' },
      '4 live file(s) could not be held (past the open-file limit) and are read in place: one RocksDB deletes meanwhile is reported as unreadable',
    ],
    [
      { code: 'live-files-not-held', files: 1, why: 'no-links-or-descriptors' },
      '1 live file(s) could not be held (no hard links or descriptors here) and are read in place: one RocksDB deletes meanwhile is reported as unreadable',
    ],
  ],
  'leveldb-database': [
    [
      { code: 'leveldb-database' },
      'a LevelDB database (no OPTIONS file; tables without a properties block): LevelDB has one option, compression (snappy or none); the RocksDB options below are for a migration to RocksDB',
    ],
  ],
  'no-options-file': [[{ code: 'no-options-file' }, 'no OPTIONS file: today is what the files themselves say']],
  'rocksdb-version-flag-ignored': [
    [
      { code: 'rocksdb-version-flag-ignored', flag: '9.1', from: 'LOG', version: '7.8.3' },
      "--rocksdb-version 9.1 left aside: the database's LOG says RocksDB 7.8.3, and the options are written for it",
    ],
  ],
  'rocksdb-version-unknown': [
    [
      { code: 'rocksdb-version-unknown' },
      "the database's RocksDB release is unknown (no rocksdb_version in OPTIONS, no LOG header; --rocksdb-version sets it): the options are in the newest syntax, and each says the release it needs",
    ],
  ],
  'small-database': [
    [
      { code: 'small-database', bytes: 3_456_789, limitBytes: 10 << 20, timeBudgetMs: 1800, narrowed: true },
      'live files of 3.5 MB (under 10 MiB): a time budget of 1.8 s, without zstd 9 and 12 and raw or trained dictionaries (their CPU outweighs what they could save at this size; --types or --time-budget evaluates them)',
    ],
    [
      { code: 'small-database', bytes: 3_456_789, limitBytes: 10 << 20, timeBudgetMs: 1800, narrowed: false },
      'live files of 3.5 MB (under 10 MiB): a time budget of 1.8 s (--time-budget gives it more)',
    ],
  ],
  'files-sampled': [
    [
      {
        code: 'files-sampled',
        read: 4,
        files: 9,
        levels: [
          { columnFamily: 'default', level: 1, read: 2, files: 3 },
          { columnFamily: 'files', level: null, read: 2, files: 6 },
        ],
      },
      "files drawn in proportion to their size, 4 of 9 read (default L1 2 of 3, files 2 of 6): the other files' bytes are estimated from those read, and their levels' intervals include the spread between files",
    ],
  ],
  'time-budget-ended': [
    [
      { code: 'time-budget-ended', timeBudgetMs: 8000, precision: 0.005 },
      "the time budget (8 s) ended sampling before every level reached ±0.5%: how far it got depends on this machine's speed, so another run may sample more or fewer blocks and advise differently (--sample fixes the sample, and with it the answer)",
    ],
  ],
  'levels-not-sampled': [
    [
      { code: 'levels-not-sampled', levels: [{ columnFamily: 'default', level: 6 }], budgetMs: null },
      "not sampled (the time budget ended first): default L6; it keeps today's setting",
    ],
    [
      {
        code: 'levels-not-sampled',
        levels: [
          { columnFamily: 'default', level: 5 },
          { columnFamily: 'default', level: 6 },
        ],
        budgetMs: 25_000,
      },
      "not sampled (the time budget ended first): default L5, default L6; they keep today's setting; a --time-budget of about 25 s would sample every level",
    ],
  ],
  'only-bottommost-level': [
    [
      { code: 'only-bottommost-level', columnFamily: 'default', level: 6 },
      'default: only L6, the bottommost level, holds data: compression (flushes and the levels above it) is left as it is, with no data there to decide on',
    ],
  ],
  'options-not-printed': [
    [
      { code: 'options-not-printed', columnFamily: 'default', levels: [0, 4] },
      "default: no options printed: L0, L4 not sampled and today's compression unknown",
    ],
    [
      { code: 'options-not-printed', columnFamily: 'files', levels: [null] },
      "files: no options printed: its files not sampled and today's compression unknown",
    ],
  ],
  'no-manifest': [[{ code: 'no-manifest' }, 'no MANIFEST: levels are unknown, so each column family gets one setting (compression and compression_opts)']],
  'balanced-write-weighted': [
    [
      { code: 'balanced-write-weighted', negligibleCores: 0.01 },
      "balanced: each level's CPU multiple is weighted by the write rate the info LOG measured there (a level written at w times the average rate gets the multiple divided by w, between 1.25x and 32x; on L2 and below never tighter than 0.01 cores at the level's rate)",
    ],
  ],
  'cost-without-workload': [
    [{ code: 'cost-without-workload' }, 'objective cost without a measured workload: compression CPU cannot be priced, so the balanced rules decide'],
  ],
  'cost-short-log-span': [
    [
      { code: 'cost-short-log-span', spanSeconds: 90, shortSpanSeconds: 3600 },
      "--objective cost: the info LOG spans 90.0 s, under the 60.0 min a measured write rate is priced from (a burst is not the day's rate): the levels are decided by the balanced rules and their costs shown, not chosen on; give --write-rate (bytes flushed a day) to price them",
    ],
  ],
  'dynamic-level-bytes': [
    [
      { code: 'dynamic-level-bytes' },
      'level_compaction_dynamic_level_bytes is on: compression_per_level entry i > 0 applies to level base_level + i - 1, and the RocksDB options advised are written that way',
    ],
  ],
  'blob-files-sampled': [
    [
      { code: 'blob-files-sampled', columnFamily: 'blobs', read: 5, files: 80, maxBytes: 2 * 1024 ** 3 },
      'column family "blobs" blob files: 5 of 80 files read (2 GiB of record headers at most), an evenly spread choice; the others are scaled by their size on disk',
    ],
  ],
  'block-size-skipped': [
    [{ code: 'block-size-skipped', needs: 'database-with-options' }, 'block_size not advised: it needs a database directory with an OPTIONS file'],
    [{ code: 'block-size-skipped', needs: 'whole-database' }, 'block_size not advised: it needs the whole database, not a shard'],
    [{ code: 'block-size-skipped', needs: 'objective' }, 'block_size not advised: it needs an objective, not explicit limits'],
  ],
  'block-size-out-of-time': [
    [
      { code: 'block-size-out-of-time', columnFamily: 'default', budgetMs: 0, recut: 0, files: 12 },
      'block_size of column family "default" not advised: the time budget\'s share for it (0.0 s) ended before two table files of every level were re-cut (0 of 12)',
    ],
  ],
  'block-size-unreadable': [
    [
      { code: 'block-size-unreadable', columnFamily: 'default', file: 'db/000012.sst', message: 'bad block checksum at offset 4096' },
      'block_size of column family "default" not advised: db/000012.sst could not be re-cut (bad block checksum at offset 4096)',
    ],
  ],
  'write-options-missing-sections': [
    [
      { code: 'write-options-missing-sections', file: 'db/OPTIONS-5', columnFamilies: ['a'] },
      '--write-options: db/OPTIONS-5 has no section for column family a: left as is',
    ],
    [
      { code: 'write-options-missing-sections', file: 'db/OPTIONS-5', columnFamilies: ['a', 'b'] },
      '--write-options: db/OPTIONS-5 has no section for column families a, b: left as is',
    ],
  ],
  'block-size-level-left-out': [
    [
      { code: 'block-size-level-left-out', level: 3, compression: 'kXpressCompression' },
      'L3: compression kXpressCompression is not one sstkit writes: left out',
    ],
  ],
  'block-size-files-sampled': [
    [
      { code: 'block-size-files-sampled', recut: 4, files: 9, fileShare: null },
      "4 of 9 table files re-cut within the time budget: the other levels' bytes are ratio estimates (95% intervals)",
    ],
    [
      { code: 'block-size-files-sampled', recut: 4, files: 9, fileShare: 0.125 },
      "4 of 9 table files re-cut (--sample: 12.5% of each level's, at least two): the other levels' bytes are ratio estimates (95% intervals)",
    ],
  ],
  'block-size-dictionaries': [
    [
      { code: 'block-size-dictionaries' },
      'levels with a dictionary: each file re-cut gets its own dictionary from blocks of the candidate size, as RocksDB builds one',
    ],
  ],
}

describe('noteText', () => {
  for (const [code, cases] of Object.entries(SENTENCES))
    it(code, () => {
      for (const [note, sentence] of cases as [Note, string][]) expect(noteText(note)).toBe(sentence)
    })
})

describe('adviceJson', () => {
  it("writes each note's sentence beside its code and values, the advice's, the block sizes' and the workload's; the advice itself is left as it is", () => {
    const a = sampleAdvice()
    a.workload = { measured: null, note: { code: 'workload-no-log', dir: 'db' }, readsNote: { code: 'reads-not-measured' }, prices: null }
    a.columnFamilies[0].blockSize = {
      columnFamily: a.columnFamilies[0].name,
      today: 4096,
      compression: 'advised',
      candidates: [],
      recommended: null,
      reason: 'keep',
      files: { evaluated: 2, of: 3 },
      levels: [],
      notes: [{ code: 'block-size-dictionaries' }],
    }
    const before = JSON.stringify(a)
    const json = adviceJson(a) as Advice
    expect(JSON.stringify(a)).toBe(before)
    expect(json.notes).toEqual(a.notes.map((n) => ({ ...n, text: noteText(n) })))
    expect(json.notes[1]).toEqual({
      code: 'time-budget-ended',
      timeBudgetMs: 60_000,
      precision: 0.005,
      text: "the time budget (60 s) ended sampling before every level reached ±0.5%: how far it got depends on this machine's speed, so another run may sample more or fewer blocks and advise differently (--sample fixes the sample, and with it the answer)",
    })
    expect(json.columnFamilies[0].blockSize!.notes).toEqual([{ code: 'block-size-dictionaries', text: SENTENCES['block-size-dictionaries'][0][1] }])
    expect(json.workload!.note).toEqual({ code: 'workload-no-log', dir: 'db', text: SENTENCES['workload-no-log'][0][1] })
    expect(json.workload!.readsNote).toEqual({ code: 'reads-not-measured', text: 'reads not measured' })
    // A partial document (nothing to advise on): its notes only.
    expect(adviceJson({ version: 1, notes: [{ code: 'no-options-file' }] })).toEqual({
      version: 1,
      notes: [{ code: 'no-options-file', text: 'no OPTIONS file: today is what the files themselves say' }],
    })
  })
})

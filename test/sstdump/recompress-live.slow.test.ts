/**
 * `sstkit sst-dump --command=recompress` against the installed real sst_dump
 * 7.8.3, run live on real fixtures of every kind (codecs, legacy framing,
 * binary keys, big values, long shared prefixes, many versions, deletions and
 * merges, wide columns, partitioned and hash indexes, filters, dictionaries,
 * ingested files, a RocksDB 10 file) at two block sizes
 * and with a dictionary: every line as sst_dump prints it, sizes to the byte,
 * kZSTD sizes within 0.2% (zstd-napi's 1.5.7 vs the system's 1.5.4).
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ROOT, SST_DUMP, sstkit, toolPresent } from '../helpers.js'
import { expectRecompressOutput, runIn } from './harness.js'

const FIXTURES = [
  'fv5-none',
  'fv5-snappy',
  'fv1-zlib',
  'fv0-lz4',
  'binary-keys',
  'big-value',
  'long-prefix',
  'entry-types',
  'many-versions',
  'wide-columns',
  'index-partitioned',
  'ingested-global-seqno',
  'sstfilewriter-mixed',
  'lz4-dict-raw',
  'zstd-dict-trained',
  'filter-ribbon',
  'index-hash',
  'data-block-hash',
  'v10-fv5-none',
]

const RUNS: [string, string[]][] = [
  ['16 KiB blocks', []],
  ['4 KiB blocks', ['--set_block_size=4096']],
  [
    'zlib, LZ4, LZ4HC and zstd with a 4 KiB dictionary',
    ['--compression_types=kZlibCompression,kLZ4Compression,kLZ4HCCompression,kZSTD', '--compression_max_dict_bytes=4096'],
  ],
]

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))(
  'sst-dump --command=recompress vs the installed sst_dump 7.8.3',
  () => {
    it.each(FIXTURES)('%s: every line, sizes to the byte', async (name) => {
      for (const [what, extra] of RUNS) {
        const args = [`--file=test/fixtures/real/${name}.sst`, '--command=recompress', ...extra]
        const real = spawnSync(SST_DUMP!, args, { cwd: ROOT, encoding: 'latin1' })
        expect(real.status, `${what}: ${real.stderr}`).toBe(0)
        const ours = await runIn(ROOT, args)
        expect(ours.code, what).toBe(0)
        expectRecompressOutput(ours.stdout.toString('latin1'), real.stdout, { live: true })
      }
    })
  },
)

describe.runIf(toolPresent('sst_dump', SST_DUMP !== null, 'apt-get install rocksdb-tools'))(
  'sst-dump --command=recompress with codecs that have no levels (Snappy, BZip2), through the CLI',
  () => {
    // 7.8.3 compresses them the same way at every level: one line per level, each the same.
    it.each(['examples/sample.sst', 'test/fixtures/real/fv5-none.sst'])('%s, levels 1 to 3: every line as sst_dump prints it', (file) => {
      for (const type of ['kSnappyCompression', 'kBZip2Compression']) {
        const args = [`--file=${file}`, '--command=recompress', `--compression_types=${type}`, '--compression_level_from=1', '--compression_level_to=3']
        const real = spawnSync(SST_DUMP!, args, { cwd: ROOT, encoding: 'latin1' })
        expect(real.status, real.stderr).toBe(0)
        const ours = sstkit(['sst-dump', ...args])
        expect(ours.status, ours.stderr).toBe(0)
        expect(ours.stdout).toMatch(/Compression level: 3 Size: +\d+/)
        expectRecompressOutput(ours.stdout, real.stdout, { live: true })
      }
    })
  },
)

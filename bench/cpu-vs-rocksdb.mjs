#!/usr/bin/env node
// Benchmark (not a test): sstkit's compression CPU per setting against what real RocksDB 7.8.3
// spends compacting the same data (docs/cpu.md). A database written by db_bench 7.8.3
// (filluniquerandom, seed 42, 200-byte values of ratio 0.5, LZ4, 4 KiB blocks; ~100 MB of
// key-values by default) is compacted by db_bench's `compact` under each setting, best of
// --rounds interleaved rounds (test/fixtures/compaction-cpu.mjs); sstkit's recompress times the
// same settings on the compacted data (test/fixtures/sstkit-cpu.mjs), best of --rounds.
//
//   node bench/cpu-vs-rocksdb.mjs [--keys 460000] [--rounds 3] [--compare OTHER_CHECKOUT] [--json]
//
// Per setting, in seconds of CPU for the whole data set:
//   marginal   RocksDB's compaction CPU (compaction_time_cpu_micros) less kNoCompression's: the
//              issue's method; it also counts the writing a smaller output saves
//   timer      RocksDB's own per-block compression timer (rocksdb.compression.times.nanos,
//              median x blocks)
//   +buffering for a dictionary setting: its level's timer plus what its compaction adds over
//              that level's without a dictionary (buffering and replaying the blocks, sampling,
//              ZDICT): RocksDB's whole cost of the dictionary, which sstkit charges only in part
//   RocksDB    what the test holds sstkit to: the timer; for a finalized or trained dictionary,
//              plus what its compaction adds over the raw dictionary's (ZDICT's work)
//   sstkit     recompress's compression CPU per uncompressed byte x RocksDB's bytes compressed,
//              plus the dictionary's building
// --compare: the same sstkit measurement with another checkout's build (its dist/), e.g. the
// commit before this method, in the same rounds.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compactedTable, haveDbBench, rocksDbCompressionCpu, rocksDbReference, SETTINGS, writeDatabase } from '../test/fixtures/compaction-cpu.mjs'
import { sstkitCompressionCpu, sstkitCompressionCpuElsewhere } from '../test/fixtures/sstkit-cpu.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const keys = Number(opt('keys', '460000'))
const rounds = Number(opt('rounds', '3'))
const compare = opt('compare')
if (!haveDbBench()) throw new Error('needs the real db_bench (apt-get install rocksdb-tools)')

const data = join(HERE, 'data')
mkdirSync(data, { recursive: true })
const db = join(data, `cpu-db-${keys}`)
if (!existsSync(db)) {
  process.stderr.write(`writing ${db} with db_bench (${keys} keys)...\n`)
  writeDatabase(db, keys)
}
const file = compactedTable(db, `${db}-lz4`)
process.stderr.write(`RocksDB: ${SETTINGS.length + 1} compactions x ${rounds} rounds...\n`)
const rocks = rocksDbCompressionCpu(db, join(data, 'cpu-db-work'), SETTINGS, rounds)
process.stderr.write('sstkit...\n')
const ours = await sstkitCompressionCpu(file, SETTINGS, rounds)
const theirs = compare ? sstkitCompressionCpuElsewhere(resolve(compare), file, rounds) : null

const seconds = (o, s) => (o.compressSecPerGB * s.compressedInputBytes) / 1e9 + o.dictSeconds
const rows = rocksDbReference(rocks).map(({ name, reference, withBuffering, setting: s }) => {
  const sstkit = seconds(ours.get(name), s)
  const other = theirs ? seconds(theirs.get(name), s) : null
  return {
    name,
    marginal: s.marginalSeconds,
    timer: s.timerSeconds,
    rocksdb: reference,
    withBuffering,
    sstkit,
    ratio: sstkit / reference,
    other,
    otherRatio: other === null ? null : other / reference,
  }
})
const lz4 = { rocksdb: rocks.lz4DecompressMBps, sstkit: ours.get('lz4').decompressMBps, other: theirs?.get('lz4').decompressMBps ?? null }
// Each setting's output read back by RocksDB (db_bench readseq, its per-block timer) against sstkit's round trips of the same setting.
const reads = rocks.settings.map((s) => ({
  name: s.name,
  rocksdb: s.decompressMBps,
  sstkit: ours.get(s.name).decompressMBps,
  other: theirs?.get(s.name).decompressMBps ?? null,
}))

if (args.includes('--json')) {
  console.log(JSON.stringify({ keys, rounds, uncompressedBytes: rocks.settings[0].compressedInputBytes, rows, lz4, reads }, null, 2))
} else {
  const mb = (rocks.settings[0].compressedInputBytes / 1e6).toFixed(0)
  console.log(`compression CPU, seconds, on ${mb} MB of key-values (db_bench ${keys} keys), best of ${rounds} rounds`)
  const head = ['setting', 'marginal', 'timer', '+buffering', 'RocksDB', 'sstkit', 'sstkit/RocksDB', ...(theirs ? ['compare', 'compare/RocksDB'] : [])]
  console.log(head.join('\t'))
  for (const r of rows)
    console.log(
      [
        r.name,
        r.marginal.toFixed(3),
        r.timer.toFixed(3),
        r.rocksdb.toFixed(3),
        r.sstkit.toFixed(3),
        `${r.ratio.toFixed(2)}x`,
        ...(theirs ? [r.other.toFixed(3), `${r.otherRatio.toFixed(2)}x`] : []),
      ].join('\t'),
    )
  console.log(`LZ4 decompression, MB/s: RocksDB ${lz4.rocksdb.toFixed(0)}, sstkit ${lz4.sstkit.toFixed(0)}${theirs ? `, compare ${lz4.other.toFixed(0)}` : ''}`)
  console.log("decompression of each setting's output, MB/s (RocksDB: readseq, its per-block timer, median x blocks)")
  console.log(['setting', 'RocksDB', 'sstkit', 'sstkit/RocksDB', ...(theirs ? ['compare'] : [])].join('\t'))
  for (const r of reads)
    console.log(
      [r.name, r.rocksdb.toFixed(0), r.sstkit.toFixed(0), `${(r.sstkit / r.rocksdb).toFixed(2)}x`, ...(theirs ? [r.other.toFixed(0)] : [])].join('\t'),
    )
}

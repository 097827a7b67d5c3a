// Benchmark (not a test): `sstkit rewrite DB -o OUT` on a >= 1 GB database against RocksDB's own
// full compaction of the same database to the same setting (`ldb compact` 7.8.3 on a copy whose
// OPTIONS say zstd for every level), interleaved round by round: wall, CPU (user + sys, all
// threads) and peak RSS (GNU time), bytes before and after.
//
//   node bench/rewrite-db.mjs [--rounds 2] [--jobs 1] [--regen] [--num 5700000]
//
// The database is written on first use by db_bench 7.8.3 (fillrandom, LZ4, 64 MiB files, values
// compressible to about half) into bench/data/rewrite-db (gitignored): a few minutes. Each round
// works on fresh copies (copy time not counted) in bench/data/rewrite-db-work.

import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const GNU_TIME = '/usr/bin/time'
const DB_BENCH = '/usr/bin/db_bench'
const LDB = '/usr/bin/ldb'
const DATA = join(ROOT, 'bench', 'data')
const DB = join(DATA, 'rewrite-db')
const WORK = join(DATA, 'rewrite-db-work')

const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const rounds = Number(opt('rounds', '2'))
const jobs = opt('jobs', '1') // rewrite's default
const num = opt('num', '5700000') // 1.06 GB of LZ4 tables

for (const tool of [GNU_TIME, DB_BENCH, LDB]) if (!existsSync(tool)) throw new Error(`${tool}: not installed (apt-get install time rocksdb-tools)`)

function generate() {
  const tmp = `${DB}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(DATA, { recursive: true })
  process.stderr.write(`generating ${DB} with db_bench (fillrandom, ${num} entries, a few minutes)...\n`)
  const r = spawnSync(
    DB_BENCH,
    [
      '--benchmarks=fillrandom',
      `--db=${tmp}`,
      `--num=${num}`,
      '--key_size=16',
      '--value_size=400',
      '--compression_type=lz4',
      '--compression_ratio=0.5',
      '--target_file_size_base=67108864',
      '--max_background_jobs=2',
      '--seed=1',
      '--statistics=0',
      '--histogram=0',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (r.status !== 0) throw new Error(`db_bench failed (exit ${r.status})`)
  // What a reader of the database needs: no LOCK, no info LOG.
  for (const n of readdirSync(tmp)) if (n === 'LOCK' || n.startsWith('LOG')) rmSync(join(tmp, n))
  rmSync(DB, { recursive: true, force: true })
  renameSync(tmp, DB)
}

const tableBytes = (dir) =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.sst'))
    .reduce((a, n) => a + statSync(join(dir, n)).size, 0)

/** One command under GNU time: wall, CPU, peak RSS (MB). */
function timed(cmd, argv) {
  const t0 = performance.now()
  const r = spawnSync(GNU_TIME, ['-f', '__TIME__ %U %S %M', cmd, ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 })
  const wall = (performance.now() - t0) / 1000
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '')
  if (r.status !== 0 || !m) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status}): ${(r.stderr ?? '').slice(-400)}`)
  return { wall, cpu: Number(m[1]) + Number(m[2]), rssMB: Number(m[3]) / 1024 }
}

/** A copy of the database whose newest OPTIONS file says zstd (RocksDB's default level) on every level. */
function zstdCopy(to) {
  cpSync(DB, to, { recursive: true })
  const options = readdirSync(to)
    .filter((n) => /^OPTIONS-\d+$/.test(n))
    .sort()
    .at(-1)
  const text = readFileSync(join(to, options), 'utf8')
    .replace(/^(\s*)compression=.*$/gm, '$1compression=kZSTD')
    .replace(/^(\s*)compression_per_level=.*$/gm, '$1compression_per_level=')
    .replace(/^(\s*)bottommost_compression=.*$/gm, '$1bottommost_compression=kDisableCompressionOption')
  writeFileSync(join(to, options), text)
}

if (args.includes('--regen') || !existsSync(join(DB, 'CURRENT'))) generate()
const before = tableBytes(DB)
if (before < 1e9) process.stderr.write(`warning: ${DB} holds ${(before / 1e9).toFixed(2)} GB of tables, under 1 GB (--num larger, --regen)\n`)
const commit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
console.log(`database  ${DB}: ${(before / 1e9).toFixed(3)} GB of tables, ${readdirSync(DB).filter((n) => n.endsWith('.sst')).length} files`)
console.log(`commit    ${commit}, ${new Date().toISOString()}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
console.log(`setting   zstd (RocksDB's default level) on every level; sstkit --jobs ${jobs}; ldb compact = CompactRange over the whole key range`)

const rows = []
for (let round = 1; round <= rounds; round++) {
  rmSync(WORK, { recursive: true, force: true })
  mkdirSync(WORK, { recursive: true })
  const out = join(WORK, 'sstkit-out')
  const s = timed(process.execPath, [RUN_JS, 'rewrite', DB, '-o', out, '--compression', 'zstd', '--jobs', jobs, '--json'])
  const sBytes = tableBytes(out)
  rmSync(out, { recursive: true, force: true })
  const copy = join(WORK, 'rocksdb')
  zstdCopy(copy)
  const r = timed(LDB, [`--db=${copy}`, '--try_load_options', 'compact'])
  const rBytes = tableBytes(copy)
  rmSync(copy, { recursive: true, force: true })
  rows.push({ round, s, r, sBytes, rBytes })
  console.log(
    `round ${round}: sstkit ${s.wall.toFixed(1)} s wall, ${s.cpu.toFixed(1)} s CPU, ${s.rssMB.toFixed(0)} MB, ${(sBytes / 1e9).toFixed(3)} GB | ldb compact ${r.wall.toFixed(1)} s wall, ${r.cpu.toFixed(1)} s CPU, ${r.rssMB.toFixed(0)} MB, ${(rBytes / 1e9).toFixed(3)} GB`,
  )
}
rmSync(WORK, { recursive: true, force: true })
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sw = median(rows.map((x) => x.s.wall))
const rw = median(rows.map((x) => x.r.wall))
const sc = median(rows.map((x) => x.s.cpu))
const rc = median(rows.map((x) => x.r.cpu))
const peak = Math.max(...rows.map((x) => x.s.rssMB))
console.log(
  `median    wall sstkit/RocksDB ${(sw / rw).toFixed(2)} (${sw.toFixed(1)} s / ${rw.toFixed(1)} s); CPU ${(sc / rc).toFixed(2)} (${sc.toFixed(1)} s / ${rc.toFixed(1)} s)`,
)
console.log(
  `memory    sstkit peak RSS ${peak.toFixed(0)} MB (target <= 150 MB): ${peak <= 150 ? 'met' : 'MISSED'}; RocksDB ${Math.max(...rows.map((x) => x.r.rssMB)).toFixed(0)} MB`,
)

#!/usr/bin/env node
// Benchmark (not a test): every command's peak RSS next to its wall and CPU time, on the bench
// files, against the 150 MB target (issue 15: "every command <= 150 MB peak RSS on the bench
// files, whatever the file size"). Each command runs under GNU time (/usr/bin/time -f %M: the
// peak RSS of the process, worker threads included), stdout to /dev/null.
//
//   node bench/memory.mjs [--file PATH] [--db DIR] [--only a,b] [--timeout S] [--full] [--json] [--strict]
//
// Default file: bench/data/inspect-200mb.sst (the inspect bench's, ~224 MB, generated with the
// real ldb on first use). Default database: advise's bench database
// (${XDG_CACHE_HOME:-~/.cache}/sstkit-bench/advise-db, made by `node bench/advise.mjs`) when it
// exists, else bench/data/memory-db, written on first use by the real db_bench (fillrandom,
// ~0.3 GB in a few dozen SSTs). Timings on a shared machine are noisy: the RSS column is the
// point here; bench/inspect.mjs and bench/recompress.mjs measure speed.
//
// `recompress` with its default matrix (zstd 1..19 x four dictionary modes x frame checksum, 56
// settings) takes hours of CPU on the 224 MB file (zstd 19 alone ~1 MB/s): its row runs on
// bench/data/memory-16mb.sst (16 MB, the same generator), and on the large file with --full.
// `browse` (a terminal UI) is measured by bench/browse.mjs in tmux, not here.
//
// The files most databases are made of: recompress's default matrix on 8 MB and 64 MB files of
// 4 KiB blocks, LZ4 and ZSTD, written by the real db_bench 7.8.3 (fillrandom, seed 1, 200-byte
// values, then one compaction into one file; bench/data/memory-<codec>-4k-<size>.sst, made on
// first use), each next to the real sst_dump's --command=recompress on the same file and bare
// node (`node -e 0`) in the same run: those rows are references, not held to the target.
// `--only 'recompress default'` runs those rows alone (the 64 MB ones take ~5 minutes each).

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateSst } from './gen-sst.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const GNU_TIME = '/usr/bin/time'
const TARGET_MB = 150

const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const flag = (name) => args.includes(`--${name}`)
if (flag('help') || flag('h')) {
  console.log('usage: node bench/memory.mjs [--file PATH] [--db DIR] [--only a,b] [--timeout S] [--full] [--json] [--strict]')
  process.exit(0)
}
const file = resolve(opt('file', join(HERE, 'data', 'inspect-200mb.sst')))
const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sstkit-bench')
const adviseDb = join(cache, 'advise-db')
const db = resolve(opt('db', existsSync(adviseDb) ? adviseDb : join(HERE, 'data', 'memory-db')))
const midFile = join(HERE, 'data', 'memory-16mb.sst')
const full = flag('full')
/** advise's many-file database (bench/advise-many.mjs makes it); its row is left out when it does not exist. */
const manyFiles = join(HERE, 'data', 'advise-many-files')
const only = opt('only', '')
  .split(',')
  .filter((s) => s)
const timeoutS = Number(opt('timeout', '600'))

if (!existsSync(GNU_TIME)) throw new Error('needs GNU time (/usr/bin/time: apt-get install -y time) for peak RSS')
const wants = (name) => !only.length || only.some((o) => name.startsWith(o))
const needsMain = ['props', 'layout', 'scan', 'verify', 'recompress (', 'recompress --', 'rewrite', 'baseline', 'check-size', 'sst-dump', 'synth'].some(wants)
if (needsMain && !existsSync(file)) {
  if (opt('file')) throw new Error(`${file} does not exist`)
  mkdirSync(dirname(file), { recursive: true })
  process.stderr.write(`generating ${file} with ldb (about 224 MB, a few minutes)...\n`)
  await generateSst(file)
}
if (['recompress (16', 'recompress --dict'].some(wants) && !existsSync(midFile)) {
  process.stderr.write(`generating ${midFile} with ldb (16 MB)...\n`)
  await generateSst(midFile, { entries: 95_000, minBytes: 1 })
}
if (['verify DB', 'layout --summary DB', 'advise DB'].some(wants) && !existsSync(db)) {
  if (opt('db')) throw new Error(`${db} does not exist`)
  generateDb(db)
}
const scratch = mkdtempSync(join(tmpdir(), 'sstkit-memory-'))
const rewritten = join(scratch, 'rewritten.sst')
const baselineFile = join(scratch, 'baseline.json')
const defaultBaseline = join(scratch, 'default-baseline.json')

// One row per command; `needs` runs first (check-size needs the baseline). Every command runs with
// its default flags (the rows named by the command alone: the promise is for those), and some
// with the flags that change their memory use (recompress: bench/recompress.mjs's narrower matrix,
// zstd 1..3 x none/finalize, 16 KiB blocks; 2 jobs and 1). browse (a terminal UI) is not run.
const RECOMPRESS = ['--levels', '1..3', '--dict', 'none,finalize', '--block-size', '16384', '--checksum', 'off', '--jobs', '2']
const cases = [
  { name: '--version', argv: ['--version'] },
  { name: 'props', argv: ['props', file] },
  { name: 'layout --summary', argv: ['layout', '--summary', file] },
  { name: 'layout', argv: ['layout', file] },
  { name: 'layout --json', argv: ['layout', '--json', file] },
  { name: 'layout --format csv', argv: ['layout', '--format', 'csv', file] },
  { name: 'scan', argv: ['scan', file] },
  { name: 'scan --hex', argv: ['scan', '--hex', file] },
  { name: 'verify', argv: ['verify', file] },
  { name: 'recompress (16 MB file)', argv: ['recompress', midFile], subject: 'mid' },
  ...(full ? [{ name: 'recompress', argv: ['recompress', file] }] : []),
  { name: 'recompress --dict none (16 MB file)', argv: ['recompress', midFile, '--dict', 'none'], subject: 'mid' },
  { name: 'recompress (2 jobs)', argv: ['recompress', file, ...RECOMPRESS] },
  { name: 'recompress --jobs 1', argv: ['recompress', file, ...RECOMPRESS.slice(0, -2), '--jobs', '1'] },
  { name: 'rewrite', argv: ['rewrite', file, '-o', join(scratch, 'rewritten-default.sst')] },
  { name: 'rewrite zstd 3', argv: ['rewrite', file, '-o', rewritten, '--compression', 'zstd', '--level', '3'] },
  { name: 'baseline', argv: ['baseline', file, '-o', defaultBaseline] },
  { name: 'check-size (default baseline)', argv: ['check-size', file, '-b', defaultBaseline], needs: 'baseline' },
  { name: 'verify DB', argv: ['verify', db], subject: 'db' },
  { name: 'layout --summary DB', argv: ['layout', '--summary', db], subject: 'db' },
  { name: 'baseline zstd 3', argv: ['baseline', file, '-o', baselineFile, '--types', 'zstd', '--levels', '3', '--dict', 'none', '--force'] },
  { name: 'check-size', argv: ['check-size', file, '-b', baselineFile], needs: 'baseline zstd 3' },
  { name: 'sst-dump', argv: ['sst-dump', `--file=${file}`] },
  { name: 'sst-dump --show_properties', argv: ['sst-dump', `--file=${file}`, '--show_properties'] },
  { name: 'sst-dump --command=check', argv: ['sst-dump', `--file=${file}`, '--command=check', '--verify_checksum'] },
  { name: 'sst-dump --command=verify', argv: ['sst-dump', `--file=${file}`, '--command=verify'] },
  { name: 'sst-dump --command=scan', argv: ['sst-dump', `--file=${file}`, '--command=scan'] },
  { name: 'sst-dump scan --from --read_num', argv: ['sst-dump', `--file=${file}`, '--command=scan', '--from=user:000000065000', '--read_num=100000'] },
  { name: 'sst-dump --command=scan --output_hex', argv: ['sst-dump', `--file=${file}`, '--command=scan', '--output_hex'] },
  { name: 'sst-dump --command=recompress', argv: ['sst-dump', `--file=${file}`, '--command=recompress'] },
  { name: 'synth', argv: ['synth', '-o', join(scratch, 'synth.sst')] },
  {
    name: 'sst-dump --command=recompress zstd 3',
    argv: ['sst-dump', `--file=${file}`, '--command=recompress', '--compression_types=kZSTD', '--compression_level_from=3', '--compression_level_to=3'],
  },
  ...(existsSync(manyFiles) ? [{ name: 'advise many-files DB (3,000+ files)', argv: ['advise', manyFiles], subject: 'many' }] : []),
  ...(existsSync(db)
    ? [
        { name: 'advise DB', argv: ['advise', db], subject: 'db' },
        { name: 'advise DB (2 jobs)', argv: ['advise', db, '--jobs', '2'], subject: 'db' },
        { name: 'advise DB --jobs 1', argv: ['advise', db, '--jobs', '1'], subject: 'db' },
      ]
    : []),
]
/** The 4 KiB-block files of recompress's default-matrix rows: codec, nominal size, entries of 200-byte values (measured bytes per entry: LZ4 76, ZSTD 61). */
const SMALL_FILES = [
  { codec: 'lz4', size: '8 MB', entries: 105_263 },
  { codec: 'zstd', size: '8 MB', entries: 131_147 },
  { codec: 'lz4', size: '64 MB', entries: 842_105 },
  { codec: 'zstd', size: '64 MB', entries: 1_049_180 },
]
const smallFile = (f) => join(HERE, 'data', `memory-${f.codec}-4k-${f.size.replace(' ', '').toLowerCase()}.sst`)
cases.push({ name: 'recompress default: node -e 0 (reference)', cmd: process.execPath, argv: ['-e', '0'], subject: 'none', reference: true })
for (const f of SMALL_FILES) {
  const label = `${f.size} ${f.codec.toUpperCase()} 4 KiB`
  // A 64 MB file's matrix takes ~5 minutes of an idle 2-core machine: more than the default timeout when loaded.
  cases.push({ name: `recompress default, ${label}`, argv: ['recompress', smallFile(f)], small: f, timeoutS: Math.max(timeoutS, 3600) })
  cases.push({
    name: `recompress default: sst_dump --command=recompress, ${label} (reference)`,
    cmd: '/usr/bin/sst_dump',
    argv: [`--file=${smallFile(f)}`, '--command=recompress'],
    small: f,
    reference: true,
  })
}

const selected = only.length ? cases.filter((c) => only.some((o) => c.name.startsWith(o))) : cases
for (const c of [...selected]) if (c.needs && !selected.some((s) => s.name === c.needs)) selected.unshift(cases.find((s) => s.name === c.needs))

/** A real database for advise: db_bench fillrandom, snappy, 8 MiB files (a temp dir, then renamed: never half a database). */
function generateDb(dir) {
  const tmp = `${dir}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(dirname(dir), { recursive: true })
  process.stderr.write(`generating ${dir} with db_bench (~0.3 GB, a minute or two)...\n`)
  const r = spawnSync(
    '/usr/bin/db_bench',
    [
      `--db=${tmp}`,
      '--benchmarks=fillrandom',
      '--num=1500000',
      '--value_size=200',
      '--compression_type=snappy',
      '--compression_ratio=0.5',
      '--target_file_size_base=8388608',
      '--write_buffer_size=8388608',
      '--seed=20261203',
      '--threads=1',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (r.status !== 0) throw new Error(`db_bench failed (exit ${r.status})`)
  renameSync(tmp, dir)
}

/** A 4 KiB-block file of db_bench 7.8.3 (fillrandom, then one compaction into one table), into a temp dir then renamed. */
function generateSmallFile(f, path) {
  const tmp = `${path}.db.tmp`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(dirname(path), { recursive: true })
  process.stderr.write(`generating ${path} with db_bench (${f.entries} entries)...\n`)
  const r = spawnSync(
    '/usr/bin/db_bench',
    [
      '--benchmarks=fillrandom,compact',
      `--db=${tmp}`,
      `--num=${f.entries}`,
      '--value_size=200',
      `--compression_type=${f.codec}`,
      '--block_size=4096',
      '--seed=1',
      '--target_file_size_base=4294967296',
      '--write_buffer_size=67108864',
      '--disable_wal=1',
      '--threads=1',
      '--statistics=0',
      '--histogram=0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 },
  )
  if (r.status !== 0) throw new Error(`db_bench failed (exit ${r.status}): ${String(r.stderr).trim().split('\n').pop()}`)
  const tables = readdirSync(tmp)
    .filter((n) => n.endsWith('.sst'))
    .map((n) => join(tmp, n))
  if (tables.length !== 1) throw new Error(`db_bench left ${tables.length} tables in ${tmp}, expected one`)
  renameSync(tables[0], path)
  rmSync(tmp, { recursive: true, force: true })
}

/** One run under GNU time: wall seconds, CPU seconds (user + sys, all threads), peak RSS MB, exit status. */
function measure(argv, cmd = RUN_JS, limitS = timeoutS) {
  const t0 = performance.now()
  // bin/run.cjs itself, as a user runs it: its shebang's malloc and V8 settings apply (`node bin/run.cjs` would drop them).
  const r = spawnSync(GNU_TIME, ['-f', '__TIME__ %U %S %M', cmd, ...argv], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: limitS * 1000,
    maxBuffer: 1 << 24,
  })
  const wall = (performance.now() - t0) / 1000
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '')
  const stderr = (r.stderr ?? '').replace(/__TIME__.*\n?/, '').trim()
  return {
    wallSeconds: wall,
    cpuSeconds: m ? Number(m[1]) + Number(m[2]) : null,
    peakRssMB: m ? Number(m[3]) / 1024 : null,
    status: r.error ? `timeout after ${limitS} s` : r.status,
    stderr: stderr.split('\n')[0] ?? '',
  }
}

const rows = []
try {
  for (const c of selected) {
    if (c.small && !existsSync(smallFile(c.small))) generateSmallFile(c.small, smallFile(c.small))
    process.stderr.write(`${c.name} ...`)
    const r = measure(c.argv, c.cmd, c.timeoutS)
    // 0 ok, 1 a finding (check-size may find a change): both measured; anything else is a failure to run.
    const ran = r.status === 0 || r.status === 1
    const pass = ran && r.peakRssMB !== null && (c.reference || r.peakRssMB <= TARGET_MB)
    const subject = c.small
      ? smallFile(c.small)
      : c.subject === 'none'
        ? null
        : c.subject === 'db'
          ? db
          : c.subject === 'many'
            ? manyFiles
            : c.subject === 'mid'
              ? midFile
              : file
    rows.push({ command: c.name, subject, reference: c.reference === true, ...r, pass })
    process.stderr.write(` ${r.wallSeconds.toFixed(2)} s, ${r.peakRssMB?.toFixed(0) ?? '-'} MB${ran ? '' : ` (exit ${r.status}: ${r.stderr})`}\n`)
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

const failed = rows.filter((r) => !r.pass)
if (flag('json')) {
  console.log(JSON.stringify({ file, db: existsSync(db) ? db : null, targetMB: TARGET_MB, rows }, null, 2))
} else {
  const w = Math.max(...rows.map((r) => r.command.length))
  const commit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
  console.log(`commit ${commit}, ${new Date().toISOString().slice(0, 10)}`)
  if (rows.some((r) => r.subject === file)) console.log(`file: ${file}`)
  if (rows.some((r) => r.subject === midFile)) console.log(`16 MB file: ${midFile}`)
  if (existsSync(db)) console.log(`database (advise): ${db}`)
  console.log(`${'command'.padEnd(w)}  ${'wall s'.padStart(7)}  ${'CPU s'.padStart(7)}  ${'peak RSS'.padStart(9)}  vs ${TARGET_MB} MB`)
  for (const r of rows) {
    const verdict = !r.pass ? (r.status === 0 || r.status === 1 ? 'FAIL' : `FAIL (exit ${r.status})`) : r.reference ? '-' : 'PASS'
    console.log(
      `${r.command.padEnd(w)}  ${r.wallSeconds.toFixed(2).padStart(7)}  ${(r.cpuSeconds?.toFixed(2) ?? '-').padStart(7)}  ${`${r.peakRssMB?.toFixed(0) ?? '-'} MB`.padStart(9)}  ${verdict}`,
    )
  }
  console.log(
    failed.length
      ? `${failed.length} of ${rows.length} over ${TARGET_MB} MB or not run: ${failed.map((r) => r.command).join(', ')}`
      : `all ${rows.length} within ${TARGET_MB} MB`,
  )
}
if (flag('strict') && failed.length) process.exit(1)

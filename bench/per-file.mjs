#!/usr/bin/env node
// Benchmark (not a test): the per-file read commands on the files most databases are made of,
// against the real sst_dump 7.8.3 in the same run, interleaved round by round: 8 MB, 64 MB and
// 1 GB SST files of LZ4, ZSTD and Snappy with 4 KiB and 16 KiB blocks, written by the real
// db_bench 7.8.3 (fillseq, then a full compaction into one file: deterministic keys and values).
// A bare `node -e 0` runs in the same rounds; each ratio is counted after node's start-up, by
// wall time and by CPU time (user + system of every thread, from wait4: steadier on a busy machine):
//
//   ratio = sst_dump's time / (sstkit's time - node -e 0's time)     (>= 1: sstkit keeps up)
//
// props has its own target: within 20 ms of node's start-up (sstkit - node -e 0 <= 0.020 s).
//
//   node bench/per-file.mjs [--quick] [--runs N] [--sizes 8MB,64MB,1GB] [--codecs lz4,zstd,snappy]
//                           [--blocks 4,16] [--only verify,scan,...] [--cli RUN_JS] [--baseline RUN_JS] [--json] [--regen]
//
// --quick: 8 MB and 64 MB only. Files are generated on first use into bench/data/per-file/
// (gitignored; the 1 GB ones take a few minutes each). Run `npm run build` first. Each run goes
// through bench/rusage.c (compiled on first use into bench/data/rusage) for its CPU time.
// recompress: one setting (zstd 3, no dictionary, 16 KiB blocks as sst_dump 7.8.3 cuts them)
// against `sst_dump --command=recompress` of that setting; sstkit with its default jobs.

import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))

// NODE_EXTRA_CA_CERTS makes every node start parse that CA bundle (~50 ms on a 2-core machine): the
// runs go without it, sstkit's and a bare node's alike, so that start-up numbers compare between machines.
const caCertsUnset = process.env.NODE_EXTRA_CA_CERTS !== undefined
delete process.env.NODE_EXTRA_CA_CERTS
const ROOT = resolve(HERE, '..')
const DATA = join(HERE, 'data', 'per-file')
const DB_BENCH = '/usr/bin/db_bench'
const SST_DUMP = '/usr/bin/sst_dump'
const PROPS_MARGIN_S = 0.02

const SIZES = { '8MB': 8e6, '64MB': 64e6, '1GB': 1e9 }
/** Bytes per entry db_bench's 16-byte keys and 100-byte values (compression ratio 0.5) take in each codec, measured. */
const BYTES_PER_ENTRY = { lz4: 64, snappy: 64, zstd: 53 }

/** Each row: sstkit's command line and the sst_dump command line it is set against (FILE: the file). */
const COMMANDS = [
  { key: 'verify', name: 'verify', sstkit: ['verify', 'FILE'], sstDump: ['--file=FILE', '--command=check', '--verify_checksum'] },
  { key: 'scan', name: 'scan', sstkit: ['scan', 'FILE'], sstDump: ['--file=FILE', '--command=scan'] },
  { key: 'scan-hex', name: 'scan --hex', sstkit: ['scan', '--hex', 'FILE'], sstDump: ['--file=FILE', '--command=scan', '--output_hex'] },
  { key: 'sst-dump-scan', name: 'sst-dump scan', sstkit: ['sst-dump', '--file=FILE', '--command=scan'], sstDump: ['--file=FILE', '--command=scan'] },
  {
    key: 'sst-dump-check',
    name: 'sst-dump check',
    sstkit: ['sst-dump', '--file=FILE', '--command=check', '--verify_checksum'],
    sstDump: ['--file=FILE', '--command=check', '--verify_checksum'],
  },
  { key: 'props', name: 'props', sstkit: ['props', 'FILE'], sstDump: ['--file=FILE', '--show_properties'] },
  {
    key: 'recompress',
    name: 'recompress zstd 3',
    sstkit: ['recompress', 'FILE', '--types', 'zstd', '--levels', '3', '--dict', 'none', '--checksum', 'off', '--block-size', '16384'],
    sstDump: ['--file=FILE', '--command=recompress', '--compression_types=kZSTD', '--compression_level_from=3', '--compression_level_to=3'],
  },
]

function usage(code) {
  const text = `usage: node bench/per-file.mjs [options]

  --quick         8 MB and 64 MB files only (same as --sizes 8MB,64MB)
  --runs N        interleaved rounds per file (median reported; default 5, 3 for 1 GB files)
  --sizes LIST    of 8MB,64MB,1GB (default all)
  --codecs LIST   of lz4,zstd,snappy (default all)
  --blocks LIST   block sizes in KiB, of 4,16 (default both)
  --only LIST     command rows: ${COMMANDS.map((c) => c.key).join(',')}
  --cli RUN_JS    time another sstkit build (its bin/run.cjs)
  --baseline RUN_JS  also time this build (an earlier commit's bin/run.cjs or bin/run.js) in the same rounds
  --json          the results as JSON on stdout (progress on stderr)
  --regen         write the files again
  -h, --help      this text`
  ;(code ? process.stderr : process.stdout).write(`${text}\n`)
  process.exit(code)
}

function parseArgs(argv) {
  const o = {
    runs: null,
    sizes: Object.keys(SIZES),
    codecs: ['lz4', 'zstd', 'snappy'],
    blocks: [4, 16],
    only: null,
    cli: join(ROOT, 'bin', 'run.cjs'),
    baseline: null,
    json: false,
    regen: false,
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      if (i + 1 >= argv.length) usage(2)
      return argv[++i]
    }
    if (a === '--quick') o.sizes = ['8MB', '64MB']
    else if (a === '--runs') o.runs = Number(val())
    else if (a === '--sizes') o.sizes = val().split(',')
    else if (a === '--codecs') o.codecs = val().split(',')
    else if (a === '--blocks') o.blocks = val().split(',').map(Number)
    else if (a === '--only') o.only = val().split(',')
    else if (a === '--cli') o.cli = resolve(val())
    else if (a === '--baseline') o.baseline = resolve(val())
    else if (a === '--json') o.json = true
    else if (a === '--regen') o.regen = true
    else if (a === '-h' || a === '--help') usage(0)
    else usage(2)
  }
  if (o.runs !== null && (!Number.isInteger(o.runs) || o.runs < 1)) usage(2)
  if (o.sizes.some((s) => !(s in SIZES)) || o.codecs.some((c) => !(c in BYTES_PER_ENTRY)) || o.blocks.some((b) => b !== 4 && b !== 16)) usage(2)
  if (o.only?.some((n) => !COMMANDS.some((c) => c.key === n))) usage(2)
  return o
}

/**
 * The file of `codec`, `blockKiB` and nominal `size`: db_bench's fillseq into a fresh database
 * (no automatic compactions), then one full compaction writes a single table; moved into
 * DATA (never half a file there).
 */
function ensureFile(codec, blockKiB, size, regen) {
  const path = join(DATA, `${codec}-${blockKiB}k-${size}.sst`)
  if (existsSync(path) && !regen) return path
  if (!existsSync(DB_BENCH)) throw new Error(`${DB_BENCH}: no such file (apt-get install rocksdb-tools)`)
  mkdirSync(DATA, { recursive: true })
  const db = join(DATA, `.db-${codec}-${blockKiB}k-${size}.tmp`)
  rmSync(db, { recursive: true, force: true })
  const num = Math.round(SIZES[size] / BYTES_PER_ENTRY[codec])
  process.stderr.write(`writing ${path} with db_bench (${num} entries)...\n`)
  const r = spawnSync(
    DB_BENCH,
    [
      '--benchmarks=fillseq,compact',
      `--db=${db}`,
      `--num=${num}`,
      '--key_size=16',
      '--value_size=100',
      '--compression_ratio=0.5',
      `--compression_type=${codec}`,
      `--block_size=${blockKiB * 1024}`,
      '--target_file_size_base=4294967296',
      '--write_buffer_size=67108864',
      '--disable_auto_compactions=1',
      '--disable_wal=1',
      '--threads=1',
      '--max_background_jobs=1',
      '--seed=1',
      '--statistics=0',
      '--histogram=0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 },
  )
  if (r.status !== 0) throw new Error(`db_bench failed (exit ${r.status}): ${String(r.stderr).trim().split('\n').pop()}`)
  const tables = readdirSync(db).filter((n) => n.endsWith('.sst'))
  if (tables.length !== 1) throw new Error(`db_bench left ${tables.length} tables in ${db}, expected one`)
  renameSync(join(db, tables[0]), path)
  rmSync(db, { recursive: true, force: true })
  return path
}

const RUSAGE_SOURCE = join(HERE, 'rusage.c')
const RUSAGE = join(HERE, 'data', 'rusage')

/** bench/rusage.c, compiled when missing or older than its source. */
function rusageRunner() {
  if (!existsSync(RUSAGE) || statSync(RUSAGE).mtimeMs < statSync(RUSAGE_SOURCE).mtimeMs) {
    mkdirSync(dirname(RUSAGE), { recursive: true })
    execFileSync(process.env.CC || 'cc', ['-O2', '-o', `${RUSAGE}.tmp`, RUSAGE_SOURCE])
    renameSync(`${RUSAGE}.tmp`, RUSAGE)
  }
  return RUSAGE
}

/** Wall and CPU seconds of one run (output to /dev/null); throws when it fails. */
function time(cmd, args) {
  const r = spawnSync(rusageRunner(), [cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 24 })
  const lines = String(r.stderr).trim().split('\n')
  const [wall, cpu, , status] = lines.pop().split(' ').map(Number)
  if (r.status !== 0 || status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${status}: ${lines[0] ?? ''}`)
  return { wall, cpu }
}

/** A ratio as printed: props has its own target (its time after start-up); past 100 the start-up's noise is all there is. */
function ratioText(command, ratio) {
  if (command === 'props' || ratio === null) return '-'
  return ratio >= 100 ? '>100' : ratio.toFixed(2)
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/**
 * What the first write to a fresh anonymous page costs on this machine, µs (the median of three
 * 64 MiB buffers, one byte written per 4 KiB page): a run's fresh buffers cost that per page (10.9 µs
 * on the virtual machine of bench/README.md's figures, 7f26b72, 2026-12-07), which weighs on the short runs.
 */
function freshPageMicros() {
  const bytes = 64 << 20
  const each = []
  for (let k = 0; k < 3; k++) {
    const b = new Uint8Array(bytes)
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < bytes; i += 4096) b[i] = 1
    each.push(Number(process.hrtime.bigint() - t0) / 1e3 / (bytes / 4096))
  }
  return median(each)
}

const o = parseArgs(process.argv.slice(2))
const pageMicros = freshPageMicros()
const commands = o.only ? COMMANDS.filter((c) => o.only.includes(c.key)) : COMMANDS
const commit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
const started = new Date()
const loadBefore = loadavg()[0]
const results = []
for (const size of o.sizes)
  for (const codec of o.codecs)
    for (const blockKiB of o.blocks) {
      const file = ensureFile(codec, blockKiB, size, o.regen)
      const runs = o.runs ?? (size === '1GB' ? 3 : 5)
      const sub = (args) => args.map((a) => a.replace('FILE', file))
      const times = { node: [], rows: commands.map(() => ({ sstkit: [], sstDump: [], baseline: [] })) }
      const wall = (xs) => median(xs.map((x) => x.wall))
      const cpu = (xs) => median(xs.map((x) => x.cpu))
      process.stderr.write(`${codec} ${blockKiB} KiB ${size}: ${runs} rounds `)
      for (let r = 0; r < runs; r++) {
        // One round: node, then each command and its sst_dump counterpart in turn.
        times.node.push(time(process.execPath, ['-e', '0']))
        commands.forEach((c, i) => {
          times.rows[i].sstkit.push(time(process.execPath, [o.cli, ...sub(c.sstkit)]))
          times.rows[i].sstDump.push(time(SST_DUMP, sub(c.sstDump)))
          if (o.baseline) times.rows[i].baseline.push(time(process.execPath, [o.baseline, ...sub(c.sstkit)]))
        })
        process.stderr.write('.')
      }
      process.stderr.write('\n')
      const node = wall(times.node)
      const nodeCpu = cpu(times.node)
      const rows = commands.map((c, i) => {
        const t = times.rows[i]
        const sstkit = wall(t.sstkit)
        const sstDump = wall(t.sstDump)
        const after = sstkit - node
        const ratio = sstDump / Math.max(after, 1e-3)
        const cpuAfter = cpu(t.sstkit) - nodeCpu
        const cpuRatio = cpu(t.sstDump) / Math.max(cpuAfter, 1e-3)
        const met = c.key === 'props' ? after <= PROPS_MARGIN_S : ratio >= 1
        const cpuMet = c.key === 'props' ? cpuAfter <= PROPS_MARGIN_S : cpuRatio >= 1
        const baseline = o.baseline ? wall(t.baseline) : null
        const baselineRatio = baseline === null ? null : sstDump / Math.max(baseline - node, 1e-3)
        const baselineCpuRatio = o.baseline ? cpu(t.sstDump) / Math.max(cpu(t.baseline) - nodeCpu, 1e-3) : null
        return {
          command: c.name,
          sstkit,
          sstDump,
          afterStartup: after,
          ratio,
          met,
          cpu: { sstkit: cpu(t.sstkit), sstDump: cpu(t.sstDump), afterStartup: cpuAfter, ratio: cpuRatio, met: cpuMet },
          baseline,
          baselineRatio,
          baselineCpuRatio,
        }
      })
      results.push({ codec, blockKiB, size, bytes: statSync(file).size, file, runs, node, nodeCpu, rows })
    }
const loadAfter = loadavg()[0]

if (o.json) {
  console.log(
    JSON.stringify(
      { commit, date: started.toISOString(), loadAverage: [loadBefore, loadAfter], freshPageMicros: pageMicros, cli: o.cli, baseline: o.baseline, results },
      null,
      2,
    ),
  )
} else {
  console.log(
    `commit ${commit}, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  )
  console.log(`cli ${o.cli}; medians of interleaved rounds; after = sstkit - node -e 0; ratio = sst_dump / after (>= 1: met)`)
  if (caCertsUnset) console.log('NODE_EXTRA_CA_CERTS unset for the runs')
  console.log(`a fresh page's first write here: ${pageMicros.toFixed(2)} µs (every run's new buffers pay it per 4 KiB)`)
  console.log('by wall time, then by CPU time (user + system, all threads); props: met when after <= 0.020 s\n')
  if (o.baseline) console.log(`baseline ${o.baseline}, in the same rounds: its time and ratio in the last two columns`)
  const head = [
    'file',
    'command',
    'sstkit s',
    'node s',
    'after s',
    'sst_dump s',
    'ratio',
    'met',
    'cpu after s',
    'cpu sst_dump s',
    'cpu ratio',
    'cpu met',
    ...(o.baseline ? ['before s', 'before ratio', 'before cpu ratio'] : []),
  ]
  const lines = [head]
  for (const f of results)
    for (const r of f.rows)
      lines.push([
        `${f.codec} ${f.blockKiB}K ${(f.bytes / 1e6).toFixed(0)} MB`,
        r.command,
        r.sstkit.toFixed(3),
        f.node.toFixed(3),
        r.afterStartup.toFixed(3),
        r.sstDump.toFixed(3),
        ratioText(r.command, r.ratio),
        r.met ? 'yes' : 'NO',
        r.cpu.afterStartup.toFixed(3),
        r.cpu.sstDump.toFixed(3),
        ratioText(r.command, r.cpu.ratio),
        r.cpu.met ? 'yes' : 'NO',
        ...(o.baseline ? [r.baseline.toFixed(3), ratioText(r.command, r.baselineRatio), ratioText(r.command, r.baselineCpuRatio)] : []),
      ])
  const widths = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)))
  for (const l of lines) console.log(l.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
  const all = results.flatMap((f) => f.rows)
  console.log(`\n${all.filter((r) => r.met).length} of ${all.length} rows met by wall time, ${all.filter((r) => r.cpu.met).length} by CPU time`)
}

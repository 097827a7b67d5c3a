#!/usr/bin/env node
// Benchmark: `sstkit sst-dump` (the drop-in) against the real sst_dump on every
// command it emulates, each pair measured interleaved in the same run (round i
// runs each command once, in turn), with ratios. Start-up-bound rows (a small
// file, --show_properties, identify, verify without checksums, short ranged
// scans) also time a bare `node -e 0`: the floor no Node.js program goes under. A benchmark, not a test: it prints numbers and
// exits 0 unless a command fails.
//
//   node bench/sst-dump.mjs [--runs N] [--json] [--only NAME[,NAME]] [--file BIG.sst] [--mid MID.sst] [--cli RUN_JS]
//
// The files are reached through symbolic links in ~/.cache/sstkit-bench/sst-dump/
// (raw writes <name>_dump.txt beside the file it reads; bench/data is shared).
// See bench/README.md.

import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { cpus, homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const SST_DUMP = '/usr/bin/sst_dump'
const GNU_TIME = '/usr/bin/time'
const WORK = join(homedir(), '.cache', 'sstkit-bench', 'sst-dump')

function usage(code) {
  const text = `usage: node bench/sst-dump.mjs [options]

  --runs N      timed runs per command (median reported; default 5)
  --json        the results as JSON on stdout (progress goes to stderr)
  --only LIST   comma-separated row names (see the table's first column)
  --file PATH   the large SST (default bench/data/inspect-200mb.sst)
  --mid PATH    the SST for raw and recompress, whose outputs are large or slow
                (default bench/data/layout-25k.sst)
  --cli RUN_JS  time another sstkit build (path to its bin/run.cjs)
  -h, --help    this text`
  ;(code ? process.stderr : process.stdout).write(text + '\n')
  process.exit(code)
}

function parseArgs(argv) {
  const o = { runs: 5, json: false, only: null, file: join(HERE, 'data', 'inspect-200mb.sst'), mid: join(HERE, 'data', 'layout-25k.sst'), cli: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      if (i + 1 >= argv.length) usage(2)
      return argv[++i]
    }
    if (a === '--runs') o.runs = Number(val())
    else if (a === '--json') o.json = true
    else if (a === '--only') o.only = val().split(',')
    else if (a === '--file') o.file = resolve(val())
    else if (a === '--mid') o.mid = resolve(val())
    else if (a === '--cli') o.cli = resolve(val())
    else if (a === '-h' || a === '--help') usage(0)
    else usage(2)
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) usage(2)
  return o
}

const log = (m) => process.stderr.write(m + '\n')

/** A link to `file` in WORK (raw's _dump.txt lands there). */
function linked(file) {
  if (!existsSync(file)) throw new Error(`${file}: no such file`)
  mkdirSync(WORK, { recursive: true })
  const link = join(WORK, basename(file))
  rmSync(link, { force: true })
  symlinkSync(file, link)
  return link
}

/** One run with stdout to /dev/null: wall seconds around the spawn, peak RSS from GNU time. */
function runOnce(argv, devnull) {
  const rssFile = `/tmp/sstkit-bench-sd-time.${process.pid}`
  const useTime = existsSync(GNU_TIME)
  const cmd = useTime ? GNU_TIME : argv[0]
  const args = useTime ? ['-o', rssFile, '-f', '%M %U %S', ...argv] : argv.slice(1)
  const t0 = performance.now()
  const r = spawnSync(cmd, args, { cwd: WORK, stdio: ['ignore', devnull, 'pipe'], maxBuffer: 64 << 20 })
  const seconds = (performance.now() - t0) / 1000
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${String(r.stderr).trim().slice(0, 500)}`)
  let rssMB = null
  let cpuSeconds = null
  if (useTime) {
    const [kb, user, sys] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number)
    rmSync(rssFile, { force: true })
    rssMB = kb / 1024
    cpuSeconds = user + sys
  }
  return { seconds, rssMB, cpuSeconds, stderr: String(r.stderr).trim() }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Each argv `runs` times, interleaved, after one untimed warm-up each (page cache). */
function measureInterleaved(list, runs, devnull) {
  const warm = list.map((argv) => runOnce(argv, devnull))
  const times = list.map(() => [])
  const cpu = list.map(() => [])
  const rss = list.map(() => [])
  for (let i = 0; i < runs; i++) {
    for (const [k, argv] of list.entries()) {
      const r = runOnce(argv, devnull)
      times[k].push(r.seconds)
      if (r.cpuSeconds !== null) cpu[k].push(r.cpuSeconds)
      if (r.rssMB !== null) rss[k].push(r.rssMB)
    }
  }
  return list.map((_argv, k) => ({
    medianSeconds: median(times[k]),
    seconds: times[k],
    medianCpuSeconds: cpu[k].length ? median(cpu[k]) : null,
    peakRssMB: rss[k].length ? Math.max(...rss[k]) : null,
    stderr: warm[k].stderr || undefined,
  }))
}

async function main() {
  const o = parseArgs(process.argv.slice(2))
  if (!existsSync(SST_DUMP)) throw new Error(`${SST_DUMP} not found (apt-get install -y rocksdb-tools)`)
  const runJs = o.cli ?? join(ROOT, 'bin', 'run.cjs')
  if (!existsSync(join(dirname(runJs), '..', 'dist', 'commands', 'sst-dump.js')))
    throw new Error(`no built sst-dump command beside ${runJs}: run npm run build`)
  const big = linked(o.file)
  const mid = linked(o.mid)
  const small = linked(join(ROOT, 'examples', 'sample.sst'))
  const on = (f) => `--file=${f}`
  const rows = [
    // whole-file reads of the large file
    { name: 'scan', file: big, args: ['--command=scan'] },
    { name: 'scan-hex', file: big, args: ['--command=scan', '--output_hex'] },
    { name: 'check', file: big, args: ['--command=check'] },
    { name: 'check-cs', file: big, args: ['--command=check', '--verify_checksum'] },
    // without --verify_checksum sst_dump only reads the data blocks: about node -e 0's time
    { name: 'verify', file: big, args: ['--command=verify'], floor: true },
    // ranged scans: a --from past the last key (the seek alone), one mid-file with 100k entries, a peek
    { name: 'scan-from', file: big, args: ['--command=scan', '--from=user:000500000000', '--read_num=100000'], floor: true },
    { name: 'scan-from-mid', file: big, args: ['--command=scan', '--from=user:000000065000', '--read_num=100000'] },
    { name: 'scan-head', file: big, args: ['--command=scan', '--read_num=10'], floor: true },
    { name: 'props', file: big, args: ['--show_properties', '--command=none'], floor: true },
    { name: 'identify', file: big, args: ['--command=identify'], floor: true },
    // outputs too large (raw) or runs too slow (recompress) for the large file
    { name: 'raw', file: mid, args: ['--command=raw'] },
    { name: 'recompress', file: mid, args: ['--command=recompress'] },
    // start-up bound
    { name: 'small-scan', file: small, args: ['--command=scan'], floor: true },
    { name: 'small-props', file: small, args: ['--show_properties', '--command=none'], floor: true },
  ].filter((r) => !o.only || o.only.includes(r.name))

  const devnull = openSync('/dev/null', 'w')
  const results = []
  try {
    for (const r of rows) {
      const argv = [on(r.file), ...r.args]
      const list = [[runJs, 'sst-dump', ...argv], [SST_DUMP, ...argv], ...(r.floor ? [[process.execPath, '-e', '0']] : [])]
      log(`timing ${r.name}: sst-dump ${r.args.join(' ')} on ${basename(r.file)} (${o.runs} runs + 1 warm-up) ...`)
      const [a, b, floor = null] = measureInterleaved(list, o.runs, devnull)
      if (a.stderr) log(`  sstkit stderr: ${a.stderr.slice(0, 300)}`)
      if (b.stderr) log(`  sst_dump stderr: ${b.stderr.slice(0, 300)}`)
      results.push({ name: r.name, file: basename(r.file), args: r.args, sstkit: a, sstDump: b, nodeFloor: floor, ratio: b.medianSeconds / a.medianSeconds })
    }
  } finally {
    closeSync(devnull)
    rmSync(join(WORK, `${basename(mid, '.sst')}_dump.txt`), { force: true })
  }

  if (o.json) {
    const report = { date: new Date().toISOString(), cpus: cpus().length, node: process.version, runs: o.runs, cli: runJs, results }
    process.stdout.write(JSON.stringify(report, null, 2) + '\n')
    return
  }
  const fmt = (s) => (s === null || s === undefined ? '-' : s.toFixed(3))
  const w = [13, 44, 9, 10, 7, 9, 8, 8, 7, 9, 9]
  const line = (cells) => cells.map((c, i) => (i > 1 ? String(c).padStart(w[i]) : String(c).padEnd(w[i]))).join('  ')
  const out = [
    `files     ${[big, mid, small].map((f) => `${basename(f)} (${(statSync(f).size / 1e6).toFixed(1)} MB)`).join(', ')}`,
    `cli       ${runJs}; ${o.runs} runs per command, interleaved (median; peak RSS = max over runs)`,
    '',
    line(['row', 'flags (file)', 'sstkit s', 'sst_dump s', 'ratio', 'node -e 0', 'CPU s', 'sd CPU s', 'CPU x', 'sstkit MB', 'sd MB']),
    line(w.map((n) => '-'.repeat(n))),
  ]
  for (const r of results) {
    out.push(
      line([
        r.name,
        `${r.args.join(' ')} (${r.file})`.slice(0, w[1]),
        fmt(r.sstkit.medianSeconds),
        fmt(r.sstDump.medianSeconds),
        r.ratio.toFixed(2),
        r.nodeFloor ? fmt(r.nodeFloor.medianSeconds) : '-',
        fmt(r.sstkit.medianCpuSeconds),
        fmt(r.sstDump.medianCpuSeconds),
        r.sstkit.medianCpuSeconds && r.sstDump.medianCpuSeconds !== null ? (r.sstDump.medianCpuSeconds / r.sstkit.medianCpuSeconds).toFixed(2) : '-',
        r.sstkit.peakRssMB === null ? '-' : r.sstkit.peakRssMB.toFixed(0),
        r.sstDump.peakRssMB === null ? '-' : r.sstDump.peakRssMB.toFixed(0),
      ]),
    )
  }
  out.push('')
  out.push('ratio = sst_dump / sstkit wall (>= 1: the drop-in is no slower); CPU = user + sys (GNU time), CPU x = sst_dump / sstkit CPU;')
  out.push('node -e 0 = a bare Node.js start in the same rounds')
  const slower = results.filter((r) => r.ratio < 1)
  out.push(slower.length ? `slower than sst_dump: ${slower.map((r) => `${r.name} ${r.ratio.toFixed(2)}`).join(', ')}` : 'no slower than sst_dump on any row')
  for (const r of results.filter((r) => r.nodeFloor && r.ratio < 1)) {
    const f = r.nodeFloor.medianSeconds
    out.push(
      `  ${r.name}: node -e 0 alone is ${(f / r.sstDump.medianSeconds).toFixed(1)}x sst_dump's whole run; sstkit is ${(r.sstkit.medianSeconds / f).toFixed(2)}x node -e 0`,
    )
  }
  process.stdout.write(out.join('\n') + '\n')
}

main().catch((e) => {
  process.stderr.write(`sst-dump bench: ${e.message}\n`)
  process.exit(1)
})

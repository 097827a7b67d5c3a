#!/usr/bin/env node
// Benchmark: sstkit's read-side commands against the real RocksDB sst_dump on
// one large (>= 200 MB) snappy SST. This is a benchmark, not a test: it prints
// numbers and says whether the targets are met; it exits 0 either way unless a
// command fails (non-zero exit) or its setup is impossible.
//
//   node bench/inspect.mjs [--runs N] [--json] [--regenerate] [--file PATH] [--only NAME[,NAME]] [--cli RUN_JS] [--baseline RUN_JS]
//
// See bench/README.md.

import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateSst } from './gen-sst.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const DEFAULT_FILE = join(HERE, 'data', 'inspect-200mb.sst')
const SST_DUMP = '/usr/bin/sst_dump'
const GNU_TIME = '/usr/bin/time'

const TARGETS = {
  propsSeconds: 0.3,
  rssMB: 150,
}

function usage(code) {
  const text = `usage: node bench/inspect.mjs [options]

  --runs N        timed runs per command (median reported; default 5)
  --json          print the results as JSON on stdout (progress goes to stderr)
  --regenerate    rebuild the data file with ldb even if it exists
  --file PATH     benchmark this SST instead of ${DEFAULT_FILE.replace(ROOT + '/', '')}
                  (never regenerated; must end in .sst for sst_dump)
  --only LIST     comma-separated subset of: startup,props,verify,verify-1,scan,scan-1,scan-hex,
                  sd-scan,sd-scan-hex,sd-check,sd-props,layout-summary
  --no-build      do not rebuild dist/ even if it is older than src/
  --cli RUN_JS    time another sstkit build (path to its bin/run.cjs), e.g. a
                  copy of an older commit, for before/after comparisons
                  (implies --no-build)
  --baseline RUN_JS  also time another sstkit build on every sstkit command,
                  interleaved in the same rounds (before/after on a noisy machine)
  -h, --help      this text`
  ;(code ? process.stderr : process.stdout).write(text + '\n')
  process.exit(code)
}

function parseArgs(argv) {
  const o = { runs: 5, json: false, regenerate: false, file: null, only: null, build: true, cli: null, baseline: null }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      if (i + 1 >= argv.length) usage(2)
      return argv[++i]
    }
    if (a === '--runs') o.runs = Number(val())
    else if (a.startsWith('--runs=')) o.runs = Number(a.slice(7))
    else if (a === '--json') o.json = true
    else if (a === '--regenerate') o.regenerate = true
    else if (a === '--file') o.file = val()
    else if (a === '--only') o.only = val().split(',')
    else if (a === '--no-build') o.build = false
    else if (a === '--cli') {
      o.cli = resolve(val())
      o.build = false
    } else if (a === '--baseline') o.baseline = resolve(val())
    else if (a === '-h' || a === '--help') usage(0)
    else {
      process.stderr.write(`inspect: unknown argument ${a}\n`)
      usage(2)
    }
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) {
    process.stderr.write('inspect: --runs must be a positive integer\n')
    process.exit(2)
  }
  return o
}

const log = (...a) => process.stderr.write(a.join(' ') + '\n')

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Newest mtime under a directory (recursive), ms. */
function newestMtime(dir) {
  let newest = 0
  const walk = (d) => {
    for (const name of readdirSyncSafe(d)) {
      const p = join(d, name)
      const st = statSync(p)
      if (st.isDirectory()) walk(p)
      else newest = Math.max(newest, st.mtimeMs)
    }
  }
  walk(dir)
  return newest
}
function readdirSyncSafe(d) {
  try {
    return readdirSync(d)
  } catch {
    return []
  }
}
/** Rebuild dist/ when src/ is newer (or dist/ missing). */
function ensureBuilt(build) {
  const dist = join(ROOT, 'dist', 'commands')
  const stale = !existsSync(dist) || newestMtime(join(ROOT, 'src')) > newestMtime(join(ROOT, 'dist'))
  if (!stale) return
  if (!build) {
    log('warning: dist/ looks older than src/ (run npm run build); measuring it anyway (--no-build)')
    return
  }
  log('dist/ is missing or older than src/: running npm run build ...')
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] })
  if (r.status !== 0) throw new Error('npm run build failed')
}

/**
 * Run argv once with stdout to /dev/null. Wall time measured around the spawn
 * in Node; peak RSS (max resident set, KB) and CPU (user + system, every
 * thread) from GNU time. On a shared machine CPU is the steadier number: wall
 * time includes waiting for a core.
 */
function runOnce(argv, devnull) {
  const rssFile = `/tmp/sstkit-bench-time.${process.pid}`
  const useTime = existsSync(GNU_TIME)
  const cmd = useTime ? GNU_TIME : argv[0]
  const args = useTime ? ['-o', rssFile, '-f', '%M %U %S', ...argv] : argv.slice(1)
  const t0 = performance.now()
  const r = spawnSync(cmd, args, { stdio: ['ignore', devnull, 'pipe'], maxBuffer: 64 * 1024 * 1024 })
  const seconds = (performance.now() - t0) / 1000
  if (r.error) throw r.error
  if (r.status !== 0) {
    throw new Error(`${argv.join(' ')} exited ${r.status}: ${String(r.stderr).trim().slice(0, 2000)}`)
  }
  let rssMB = null
  let cpuSeconds = null
  if (useTime) {
    const [kb, user, sys] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number)
    rmSync(rssFile, { force: true })
    rssMB = kb / 1024
    cpuSeconds = user + sys
  }
  // sst_dump exits 0 even on corruption: a stderr message means the run is not comparable.
  const stderr = String(r.stderr).trim()
  return { seconds, rssMB, cpuSeconds, stderr }
}

/**
 * Time each argv of `list` `runs` times, interleaved (round i runs every argv once, in turn),
 * so that this machine's drift over minutes hits sstkit and sst_dump alike.
 */
function measureInterleaved(list, runs, devnull) {
  // one untimed warm-up run each: page cache
  const warm = list.map((argv) => runOnce(argv, devnull))
  const times = list.map(() => [])
  const rss = list.map(() => [])
  const cpu = list.map(() => [])
  for (let i = 0; i < runs; i++) {
    for (const [k, argv] of list.entries()) {
      const r = runOnce(argv, devnull)
      times[k].push(r.seconds)
      if (r.rssMB !== null) rss[k].push(r.rssMB)
      if (r.cpuSeconds !== null) cpu[k].push(r.cpuSeconds)
    }
  }
  return list.map((argv, k) => ({
    argv,
    medianSeconds: median(times[k]),
    minSeconds: Math.min(...times[k]),
    maxSeconds: Math.max(...times[k]),
    seconds: times[k],
    peakRssMB: rss[k].length ? Math.max(...rss[k]) : null,
    medianCpuSeconds: cpu[k].length ? median(cpu[k]) : null,
    stderr: warm[k].stderr || undefined,
  }))
}

function sstDumpFacts(file) {
  const r = spawnSync(SST_DUMP, [`--file=${file}`, '--show_properties', '--command=none'], { encoding: 'utf8', maxBuffer: 16 << 20 })
  if (r.status !== 0) throw new Error(`sst_dump cannot read ${file}: ${r.stderr}`)
  const num = (re) => {
    const m = r.stdout.match(re)
    return m ? Number(m[1]) : null
  }
  const str = (re) => r.stdout.match(re)?.[1]?.trim() ?? null
  return {
    entries: num(/# entries: (\d+)/),
    dataBlocks: num(/# data blocks: (\d+)/),
    rawKeyBytes: num(/raw key size: (\d+)/),
    rawValueBytes: num(/raw value size: (\d+)/),
    dataBlockBytes: num(/data block size: (\d+)/),
    compression: str(/SST file compression algo: (.*)/),
  }
}

const fmtS = (s) => (s === null || s === undefined ? '-' : s.toFixed(3))
const fmtMB = (m) => (m === null || m === undefined ? '-' : m.toFixed(0))

function pad(s, n, right = false) {
  s = String(s)
  return right ? s.padStart(n) : s.padEnd(n)
}

/** What verify's native kernel can do in the build behind `runJs` (its public dist/reader.js), in words. */
async function kernelOf(runJs) {
  try {
    const mod = await import(join(dirname(runJs), '..', 'dist', 'reader.js'))
    const a = mod.nativeVerifyAbilities()
    if (!a) return 'none: verify uses its WebAssembly path'
    return `native (dist/native/verify-kernel.so: ${Object.entries(a)
      .filter(([, on]) => on)
      .map(([k]) => k)
      .join(', ')})`
  } catch {
    return 'none in this build'
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2))
  if (!existsSync(SST_DUMP)) throw new Error(`${SST_DUMP} not found (apt-get install -y rocksdb-tools)`)
  if (!existsSync(GNU_TIME)) log(`warning: ${GNU_TIME} not found (apt-get install -y time): peak RSS will not be reported`)

  let generation = null
  const file = resolve(o.file ?? DEFAULT_FILE)
  if (o.file) {
    if (!existsSync(file)) throw new Error(`${file}: no such file`)
  } else if (o.regenerate || !existsSync(file)) {
    generation = await generateSst(file, { log })
  }
  if (!o.cli) ensureBuilt(o.build)
  const runJs = o.cli ?? RUN_JS
  if (!existsSync(runJs)) throw new Error(`${runJs}: no such file`)

  const size = statSync(file).size
  const facts = sstDumpFacts(file)
  log(`file: ${file} (${(size / 1e6).toFixed(1)} MB, ${facts.entries} entries, ${facts.dataBlocks} data blocks, ${facts.compression})`)

  // Run the binary as users do (its shebang sets the V8 flags sstkit starts with).
  const sstkit = (...a) => [runJs, ...a]
  const sstdump = (...a) => [SST_DUMP, `--file=${file}`, ...a]
  const pairs = [
    { name: 'startup', label: 'sstkit --version (start-up)', sstkit: sstkit('--version'), sstDump: null },
    {
      name: 'props',
      label: 'props',
      sstkit: sstkit('props', file),
      sstDump: sstdump('--show_properties', '--command=none'),
    },
    {
      // check reads, checksums and decompresses every block and iterates every entry, as verify does
      name: 'verify',
      label: 'verify (vs check --verify_checksum)',
      sstkit: sstkit('verify', file),
      sstDump: sstdump('--command=check', '--verify_checksum'),
    },
    { name: 'verify-1', label: 'verify --jobs 1', sstkit: sstkit('verify', file, '--jobs', '1'), sstDump: null },
    { name: 'scan', label: 'scan', sstkit: sstkit('scan', file), sstDump: sstdump('--command=scan') },
    {
      name: 'scan-hex',
      label: 'scan --hex',
      sstkit: sstkit('scan', file, '--hex'),
      sstDump: sstdump('--command=scan', '--output_hex'),
    },
    { name: 'scan-1', label: 'scan --jobs 1', sstkit: sstkit('scan', file, '--jobs', '1'), sstDump: null },
    // sst-dump mode: the same flags as sst_dump, a drop-in
    { name: 'sd-scan', label: 'sst-dump --command=scan', sstkit: sstkit('sst-dump', `--file=${file}`, '--command=scan'), sstDump: sstdump('--command=scan') },
    {
      name: 'sd-scan-hex',
      label: 'sst-dump scan --output_hex',
      sstkit: sstkit('sst-dump', `--file=${file}`, '--command=scan', '--output_hex'),
      sstDump: sstdump('--command=scan', '--output_hex'),
    },
    {
      name: 'sd-check',
      label: 'sst-dump check --verify_checksum',
      sstkit: sstkit('sst-dump', `--file=${file}`, '--command=check', '--verify_checksum'),
      sstDump: sstdump('--command=check', '--verify_checksum'),
    },
    {
      name: 'sd-props',
      label: 'sst-dump --show_properties',
      sstkit: sstkit('sst-dump', `--file=${file}`, '--show_properties', '--command=none'),
      sstDump: sstdump('--show_properties', '--command=none'),
    },
    { name: 'layout-summary', label: 'layout --summary', sstkit: sstkit('layout', file, '--summary'), sstDump: null },
  ].filter((p) => !o.only || o.only.includes(p.name))

  const devnull = openSync('/dev/null', 'w')
  const results = []
  try {
    for (const p of pairs) {
      log(`timing ${p.label} (${o.runs} runs + 1 warm-up) ...`)
      const base = o.baseline ? [o.baseline, ...p.sstkit.slice(1)] : null
      const list = [p.sstkit, ...(p.sstDump ? [p.sstDump] : []), ...(base ? [base] : [])]
      const m = measureInterleaved(list, o.runs, devnull)
      const a = m[0]
      const b = p.sstDump ? m[1] : null
      const before = base ? m.at(-1) : null
      if (a.stderr) log(`  sstkit stderr: ${a.stderr.slice(0, 300)}`)
      if (b?.stderr) log(`  sst_dump stderr: ${b.stderr.slice(0, 300)}`)
      results.push({
        name: p.name,
        label: p.label,
        sstkit: a,
        sstDump: b,
        baseline: before,
        ratio: b ? b.medianSeconds / a.medianSeconds : null,
        cpuRatio: b && a.medianCpuSeconds ? b.medianCpuSeconds / a.medianCpuSeconds : null,
      })
    }
  } finally {
    closeSync(devnull)
  }

  const by = Object.fromEntries(results.map((r) => [r.name, r]))
  const checks = []
  const check = (name, ok, detail) => checks.push({ target: name, met: ok, detail })
  if (by.scan?.sstDump) check('scan at least as fast as sst_dump', by.scan.ratio >= 1, `ratio ${by.scan.ratio.toFixed(2)}`)
  if (by['scan-hex']?.sstDump)
    check('scan --hex at least as fast as sst_dump --output_hex', by['scan-hex'].ratio >= 1, `ratio ${by['scan-hex'].ratio.toFixed(2)}`)
  if (by.verify?.sstDump) check('verify at least as fast as sst_dump check', by.verify.ratio >= 1, `ratio ${by.verify.ratio.toFixed(2)}`)
  for (const r of results.filter((r) => r.name.startsWith('sd-') && r.sstDump)) {
    check(`${r.label} no slower than sst_dump`, r.ratio >= 1, `ratio ${r.ratio.toFixed(2)}`)
  }
  if (by.props)
    check(`props under ${TARGETS.propsSeconds} s wall`, by.props.sstkit.medianSeconds < TARGETS.propsSeconds, `${fmtS(by.props.sstkit.medianSeconds)} s`)
  const rssValues = results.map((r) => r.sstkit.peakRssMB).filter((x) => x !== null)
  if (rssValues.length) {
    const worst = Math.max(...rssValues)
    const worstName = results.find((r) => r.sstkit.peakRssMB === worst).label
    check(`sstkit peak RSS under ${TARGETS.rssMB} MB`, worst < TARGETS.rssMB, `max ${fmtMB(worst)} MB (${worstName})`)
  }

  const report = {
    date: new Date().toISOString(),
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version, platform: `${process.platform}-${process.arch}` },
    runs: o.runs,
    cli: runJs,
    baseline: o.baseline,
    file: { path: file, bytes: size, ...facts },
    generation: generation ? { seconds: generation.seconds } : null,
    results: results.map((r) => ({
      name: r.name,
      label: r.label,
      sstkit: strip(r.sstkit),
      sstDump: r.sstDump ? strip(r.sstDump) : null,
      baseline: r.baseline ? strip(r.baseline) : null,
      ratio: r.ratio,
      cpuRatio: r.cpuRatio,
    })),
    targets: checks,
  }

  if (o.json) {
    process.stdout.write(JSON.stringify(report, null, 2) + '\n')
    return
  }
  const w = [34, 10, 10, 8, 10, 10, 8, 11, 11, ...(o.baseline ? [10, 10] : [])]
  const line = (cells) => cells.map((c, i) => pad(c, w[i], i > 0)).join('  ')
  const out = []
  out.push(`file      ${file}`)
  out.push(`size      ${size} bytes (${(size / 1e6).toFixed(1)} MB), ${facts.entries} entries, ${facts.dataBlocks} data blocks, ${facts.compression}`)
  if (generation) out.push(`generated in ${generation.seconds.toFixed(1)} s`)
  out.push(`cli       ${runJs}`)
  out.push(`kernel    ${await kernelOf(runJs)}`)
  out.push(`runs      ${o.runs} per command (median; peak RSS = max over runs)`)
  out.push('')
  if (o.baseline) out.push(`baseline  ${o.baseline} (interleaved with the same runs)`)
  out.push(
    line([
      'command',
      'sstkit s',
      'sst_dump s',
      'ratio',
      'sstkit cpu',
      'sst_dump cpu',
      'cpu ratio',
      'sstkit MB',
      'sst_dump MB',
      ...(o.baseline ? ['before s', 'before cpu'] : []),
    ]),
  )
  out.push(line(w.map((n) => '-'.repeat(n))))
  for (const r of results) {
    out.push(
      line([
        r.label,
        fmtS(r.sstkit.medianSeconds),
        r.sstDump ? fmtS(r.sstDump.medianSeconds) : '-',
        r.ratio !== null ? r.ratio.toFixed(2) : '-',
        fmtS(r.sstkit.medianCpuSeconds),
        r.sstDump ? fmtS(r.sstDump.medianCpuSeconds) : '-',
        r.cpuRatio !== null ? r.cpuRatio.toFixed(2) : '-',
        fmtMB(r.sstkit.peakRssMB),
        r.sstDump ? fmtMB(r.sstDump.peakRssMB) : '-',
        ...(o.baseline ? [fmtS(r.baseline.medianSeconds), fmtS(r.baseline.medianCpuSeconds)] : []),
      ]),
    )
  }
  out.push('')
  out.push('ratio = sst_dump / sstkit (> 1: sstkit faster); cpu = user + system seconds of every thread (median)')
  out.push('')
  out.push('targets:')
  for (const c of checks) out.push(`  [${c.met ? 'met' : 'NOT met'}] ${c.target} (${c.detail})`)
  process.stdout.write(out.join('\n') + '\n')
}

function strip(m) {
  return {
    argv: m.argv.map((a) => a.replace(ROOT + '/', '')),
    medianSeconds: m.medianSeconds,
    minSeconds: m.minSeconds,
    maxSeconds: m.maxSeconds,
    seconds: m.seconds,
    peakRssMB: m.peakRssMB,
    medianCpuSeconds: m.medianCpuSeconds,
  }
}

main().catch((e) => {
  process.stderr.write(`inspect: ${e.message}\n`)
  process.exit(1)
})

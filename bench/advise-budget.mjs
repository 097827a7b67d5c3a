#!/usr/bin/env node
// Benchmark (not a test): `sstkit advise` against its own promises, each measured from the
// process's start to its end (GNU time):
//   budget  wall <= --time-budget + 10% on a ~0.65 GB, ~48-file database written by db_bench
//           (fillrandom, 16 MiB target files, LZ4), at 5 s, 10 s and 60 s;
//   small   a database under 10 MB answers in <= 2 s wall with default flags: every committed
//           fixture database (test/fixtures/db*, examples/db, the databases of test/fixtures/found);
//   cfs     peak RSS <= 150 MB on a database of 21 column families written by db_bench
//           (--num_column_families=21);
//   bs      what block size costs a small database: CPU seconds of default flags against
//           --block-size none on examples/db and test/fixtures/db-medium, --rounds R (default 5)
//           interleaved, medians; with --compare RUN_JS another build's in the same rounds.
//           Not run by default (no target: a measurement).
// Peak RSS <= 150 MB is checked everywhere.
//
//   node bench/advise-budget.mjs [--only budget,small,cfs,bs] [--time-budget T ...] [--rounds R] [--compare RUN_JS] [--regen] [--json] [--strict]
//
// Databases are generated on first use into bench/data/ (gitignored): a few minutes each.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const GNU_TIME = '/usr/bin/time'
const DB_BENCH = '/usr/bin/db_bench'
const TARGETS = { budgetSlack: 0.1, smallSeconds: 2, smallBytes: 10 << 20, rssMB: 150 }

const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const all = (name) => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]] : []))
const flag = (name) => args.includes(`--${name}`)
if (flag('help') || flag('h')) {
  console.log(
    'usage: node bench/advise-budget.mjs [--only budget,small,cfs,bs] [--time-budget T ...] [--rounds R] [--compare RUN_JS] [--regen] [--json] [--strict]',
  )
  process.exit(0)
}
const only = new Set((opt('only', 'budget,small,cfs') ?? '').split(','))
const budgets = all('time-budget').length ? all('time-budget') : ['5s', '10s', '60s']

const DATABASES = {
  budget: {
    dir: join(HERE, 'data', 'advise-budget'),
    what: '~0.65 GB, ~48 files, L0-L1',
    args: ['--num=4000000', '--value_size=400', '--target_file_size_base=16777216', '--write_buffer_size=16777216'],
  },
  cfs: {
    dir: join(HERE, 'data', 'advise-21cf'),
    what: '21 column families, ~0.3 GB',
    args: ['--num_column_families=21', '--num=2000000', '--value_size=200', '--target_file_size_base=4194304', '--write_buffer_size=4194304'],
  },
}

/** db_bench's fillrandom into a temp dir, then renamed: never half a database. */
function generate({ dir, what, args: extra }) {
  if (!existsSync(DB_BENCH)) throw new Error(`${DB_BENCH}: no such file (apt-get install rocksdb-tools)`)
  const tmp = `${dir}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(dirname(dir), { recursive: true })
  process.stderr.write(`generating ${dir} with db_bench (${what}, a few minutes)...\n`)
  const r = spawnSync(
    DB_BENCH,
    [
      '--benchmarks=fillrandom',
      `--db=${tmp}`,
      ...extra,
      '--compression_type=lz4',
      '--compression_ratio=0.5',
      '--max_background_jobs=1',
      '--seed=1',
      '--statistics=0',
      '--histogram=0',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (r.status !== 0) throw new Error(`db_bench failed (exit ${r.status})`)
  rmSync(dir, { recursive: true, force: true })
  renameSync(tmp, dir)
}

function database(name) {
  const d = DATABASES[name]
  if (flag('regen') || !existsSync(join(d.dir, 'CURRENT'))) generate(d)
  return d.dir
}

function liveBytes(dir) {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.sst'))
    .reduce((a, n) => a + statSync(join(dir, n)).size, 0)
}

/** One advise run under GNU time: wall from the process's start to its end, CPU, peak RSS. */
function run(db, extra, runJs = RUN_JS) {
  const argv = ['advise', db, '--json', ...extra]
  const t0 = performance.now()
  const r = spawnSync(GNU_TIME, ['-f', '__TIME__ %U %S %M', runJs, ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 })
  const wall = (performance.now() - t0) / 1000
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '')
  if (r.status !== 0 && r.status !== 1) throw new Error(`advise ${db} exited ${r.status}: ${(r.stderr ?? '').split('\n')[0]}`)
  // A finding with nothing to advise on (a MANIFEST cut short): one line, and under --json a document without advice.
  const advice = r.stdout.trim() ? JSON.parse(r.stdout) : { timeBudgetSec: null, columnFamilies: [] }
  const levels = (advice.columnFamilies ?? []).flatMap((cf) =>
    cf.levels.map((l) => ({ where: `${cf.name} L${l.level}`, blocks: l.sample.blocks, stopped: l.sample.stopped })),
  )
  return {
    wallSeconds: wall,
    cpuSeconds: m ? Number(m[1]) + Number(m[2]) : null,
    peakRssMB: m ? Number(m[3]) / 1024 : null,
    budgetSeconds: advice.timeBudgetSec ?? null,
    levels: levels.length,
    notSampled: levels.filter((l) => l.stopped === 'not-sampled').map((l) => l.where),
  }
}

const commit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
const out = { commit, date: new Date().toISOString(), targets: TARGETS, budget: [], small: [], cfs: [], bs: [] }
const lines = []
const say = (s) => lines.push(s)
const mb = (x) => (x === null ? '?' : `${x.toFixed(0)} MB`)

if (only.has('budget')) {
  const db = database('budget')
  say(`budget: ${db} (${(liveBytes(db) / 2 ** 20).toFixed(0)} MiB of live SSTs)`)
  for (const b of budgets) {
    process.stderr.write(`advise --time-budget ${b} ...`)
    const r = run(db, ['--time-budget', b])
    const ratio = r.wallSeconds / r.budgetSeconds
    const pass = ratio <= 1 + TARGETS.budgetSlack && r.peakRssMB <= TARGETS.rssMB
    out.budget.push({ budget: b, ...r, ratio, pass })
    process.stderr.write(` ${r.wallSeconds.toFixed(1)} s\n`)
    say(
      `  --time-budget ${b.padEnd(4)} wall ${r.wallSeconds.toFixed(2)} s  wall/budget ${ratio.toFixed(2)} (≤ ${(1 + TARGETS.budgetSlack).toFixed(2)}: ${pass ? 'PASS' : 'FAIL'})  CPU ${r.cpuSeconds?.toFixed(1)} s  peak ${mb(r.peakRssMB)}  not sampled: ${r.notSampled.length ? r.notSampled.join(', ') : 'none'}`,
    )
  }
}

if (only.has('small')) {
  const found = join(ROOT, 'test/fixtures/found')
  const dirs = [
    join(ROOT, 'examples/db'),
    ...readdirSync(join(ROOT, 'test/fixtures'))
      .filter((n) => n.startsWith('db'))
      .map((n) => join(ROOT, 'test/fixtures', n)),
    ...readdirSync(found).map((n) => join(found, n)),
  ].filter((d) => existsSync(join(d, 'CURRENT')) && liveBytes(d) < TARGETS.smallBytes)
  say(`small: every committed fixture database under 10 MB, default flags, ≤ ${TARGETS.smallSeconds} s wall`)
  for (const db of dirs) {
    process.stderr.write(`advise ${db} ...`)
    const r = run(db, [])
    const pass = r.wallSeconds <= TARGETS.smallSeconds && r.peakRssMB <= TARGETS.rssMB
    out.small.push({ db, bytes: liveBytes(db), ...r, pass })
    process.stderr.write(` ${r.wallSeconds.toFixed(1)} s\n`)
    say(
      `  ${db.slice(ROOT.length + 1).padEnd(36)} ${(liveBytes(db) / 1e6).toFixed(2).padStart(6)} MB  wall ${r.wallSeconds.toFixed(2)} s (${pass ? 'PASS' : 'FAIL'})  CPU ${r.cpuSeconds?.toFixed(1)} s  peak ${mb(r.peakRssMB)}  ${r.levels} levels, not sampled: ${r.notSampled.length}`,
    )
  }
}

if (only.has('cfs')) {
  const db = database('cfs')
  say(`cfs: ${db} (${(liveBytes(db) / 2 ** 20).toFixed(0)} MiB of live SSTs), default flags`)
  process.stderr.write('advise (21 column families) ...')
  const r = run(db, [])
  const pass = r.peakRssMB <= TARGETS.rssMB && r.wallSeconds / r.budgetSeconds <= 1 + TARGETS.budgetSlack
  out.cfs.push({ db, ...r, pass })
  process.stderr.write(` ${r.wallSeconds.toFixed(1)} s\n`)
  say(
    `  peak ${mb(r.peakRssMB)} (≤ ${TARGETS.rssMB}: ${r.peakRssMB <= TARGETS.rssMB ? 'PASS' : 'FAIL'})  wall ${r.wallSeconds.toFixed(1)} s of ${r.budgetSeconds} s  CPU ${r.cpuSeconds?.toFixed(1)} s  ${r.levels} levels, not sampled: ${r.notSampled.length}`,
  )
}

if (only.has('bs')) {
  const rounds = Number(opt('rounds', '5'))
  const compare = opt('compare', null)
  // Each build named by its checkout's commit (the other's: --compare's bin/run.js, two directories up).
  const commitOf = (runJs) => spawnSync('git', ['-C', dirname(dirname(resolve(runJs))), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
  const builds = [{ name: commit, runJs: RUN_JS }, ...(compare ? [{ name: commitOf(compare) || compare, runJs: resolve(compare) }] : [])]
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  say(`bs: CPU seconds with block size (default flags) and with --block-size none, ${rounds} rounds interleaved, medians`)
  for (const db of [join(ROOT, 'examples/db'), join(ROOT, 'test/fixtures/db-medium')]) {
    const cpu = builds.map(() => ({ on: [], none: [] }))
    for (let k = 0; k < rounds; k++) {
      process.stderr.write(`advise ${db} round ${k + 1} ...\n`)
      for (const [i, b] of builds.entries()) {
        cpu[i].on.push(run(db, [], b.runJs).cpuSeconds)
        cpu[i].none.push(run(db, ['--block-size', 'none'], b.runJs).cpuSeconds)
      }
    }
    for (const [i, b] of builds.entries()) {
      const on = median(cpu[i].on)
      const none = median(cpu[i].none)
      out.bs.push({ db, build: b.name, rounds, cpuSeconds: { blockSize: on, none }, ratio: on / none, runs: cpu[i] })
      say(
        `  ${db.slice(ROOT.length + 1).padEnd(26)} ${b.name.padEnd(12)} block size ${on.toFixed(2)} s, none ${none.toFixed(2)} s: ${(on / none).toFixed(2)}x (+${(on - none).toFixed(2)} s)  [${cpu[i].on.map((x) => x.toFixed(2)).join(' ')} / ${cpu[i].none.map((x) => x.toFixed(2)).join(' ')}]`,
      )
    }
  }
}

const pass = [...out.budget, ...out.small, ...out.cfs].every((r) => r.pass)
if (flag('json')) console.log(JSON.stringify({ ...out, pass }, null, 2))
else {
  console.log(`commit ${commit}, ${out.date.slice(0, 16).replace('T', ' ')} UTC, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`)
  for (const l of lines) console.log(l)
}
if (flag('strict') && !pass) process.exit(1)

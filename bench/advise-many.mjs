#!/usr/bin/env node
// Benchmark (not a test): `sstkit advise` on a database of >= 3,000 live files written by real
// RocksDB (db_bench 7.8.3, filluniquerandom, 256 KiB target files, LZ4), against its own time
// budget and the 150 MB memory target: wall time (start-up included) <= budget + 10%, peak RSS
// <= 150 MB, and every level that holds data sampled (or, if the budget could not reach it,
// reported "not sampled" with today's setting kept: a FAIL here).
//
//   node bench/advise-many.mjs [--db DIR | --flat-files N] [--regen] [--time-budget T ...] [--jobs N] [--rss-runs N] [--held] [--json] [--strict]
//
// The database (~0.8 GB, ~3,300 files in L0-L3) is generated on first use into
// bench/data/advise-many-files (gitignored), a few minutes. --time-budget may be given more than
// once (default: advise's own 60 s, then 10 s). --rss-runs N: then N runs of `advise DB` with
// default flags (text output), each followed by a bare `node -e 0`, both under GNU time: every
// run's peak RSS, their range and median against 150 MB and against node's in the same rounds (peak
// RSS varies from run to run with what the threads hold when it comes). --rss-runs alone: only those.
// --held: the heap advise holds once started (the database resolved and pinned, the first pass), per
// live file: with --flat-files, what more files cost.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const GNU_TIME = '/usr/bin/time'
const DB_BENCH = '/usr/bin/db_bench'
const TARGETS = { budgetSlack: 0.1, rssMB: 150, files: 3000 }

const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const all = (name) => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]] : []))
const flag = (name) => args.includes(`--${name}`)
if (flag('help') || flag('h')) {
  console.log(
    'usage: node bench/advise-many.mjs [--db DIR | --flat-files N] [--regen] [--time-budget T ...] [--jobs N] [--rss-runs N] [--held] [--json] [--strict]',
  )
  process.exit(0)
}
// --flat-files N: instead, a database of about N live files, all in L0 (one ~33 KB file per 64 KiB memtable flushed,
// compactions off; db_bench fillrandom of 1,000-byte values, ~65 entries a file): what advise holds per live file.
const flatFiles = Number(opt('flat-files', 0))
const db = resolve(opt('db', join(HERE, 'data', flatFiles > 0 ? `advise-flat-${flatFiles}` : 'advise-many-files')))
const rssRuns = Number(opt('rss-runs', 0))
const budgets = all('time-budget').length ? all('time-budget') : rssRuns > 0 || flag('held') ? [] : ['60s', '10s']
const jobs = opt('jobs', null)

/** The database: db_bench's filluniquerandom into many 256 KiB files (a temp dir, then renamed: never half a database). */
function generate() {
  if (!existsSync(DB_BENCH)) throw new Error(`${DB_BENCH}: no such file (apt-get install rocksdb-tools)`)
  const tmp = `${db}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(dirname(db), { recursive: true })
  process.stderr.write(`generating ${db} with db_bench (${flatFiles > 0 ? `~${flatFiles} files in L0, 8 min for 20,000 here` : '~0.8 GB, a few minutes'})...\n`)
  const flat = [
    '--benchmarks=fillrandom',
    `--db=${tmp}`,
    `--num=${flatFiles * 65}`,
    '--value_size=1000',
    '--compression_type=lz4',
    '--write_buffer_size=65536',
    '--disable_auto_compactions=true',
    '--level0_file_num_compaction_trigger=1000000',
    '--level0_slowdown_writes_trigger=1000000',
    '--level0_stop_writes_trigger=1000000',
    '--max_background_jobs=2',
    // db_bench keeps every table open by default: ~20,000 of them reach a 20,000-descriptor limit.
    '--open_files=1000',
    '--seed=1',
    '--statistics=0',
    '--histogram=0',
  ]
  const r = spawnSync(
    DB_BENCH,
    flatFiles > 0
      ? flat
      : [
          '--benchmarks=filluniquerandom',
          `--db=${tmp}`,
          '--num=3500000',
          '--value_size=400',
          '--compression_type=lz4',
          '--target_file_size_base=262144',
          '--max_bytes_for_level_base=4194304',
          '--write_buffer_size=1048576',
          '--max_background_jobs=1',
          '--seed=1',
          '--statistics=0',
          '--histogram=0',
        ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  if (r.status !== 0) throw new Error(`db_bench failed (exit ${r.status})`)
  rmSync(db, { recursive: true, force: true })
  renameSync(tmp, db)
}

if (flag('regen') || !existsSync(join(db, 'CURRENT'))) generate()
const sstFiles = readdirSync(db).filter((n) => n.endsWith('.sst')).length

function run(budget) {
  const argv = ['advise', db, '--json', '--time-budget', budget, ...(jobs ? ['--jobs', jobs] : [])]
  const t0 = performance.now()
  const r = spawnSync(GNU_TIME, ['-f', '__TIME__ %U %S %M', RUN_JS, ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 })
  const wall = (performance.now() - t0) / 1000
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '')
  if (r.status !== 0 && r.status !== 1) throw new Error(`advise exited ${r.status}: ${(r.stderr ?? '').split('\n')[0]}`)
  const advice = JSON.parse(r.stdout)
  const levels = advice.columnFamilies.flatMap((cf) =>
    cf.levels.map((l) => ({
      where: `${cf.name} L${l.level}`,
      files: l.files,
      filesRead: l.sample.filesRead,
      blocks: l.sample.blocks,
      stopped: l.sample.stopped,
      recommended: l.recommended.estimate.setting.label,
      halfWidth: (l.recommended.estimate.bytes.high - l.recommended.estimate.bytes.low) / 2 / l.recommended.estimate.bytes.estimate,
    })),
  )
  const budgetSec = advice.timeBudgetSec
  const rssMB = m ? Number(m[3]) / 1024 : null
  return {
    budget: budgetSec,
    wallSeconds: wall,
    cpuSeconds: m ? Number(m[1]) + Number(m[2]) : null,
    peakRssMB: rssMB,
    levels,
    withinBudget: wall <= budgetSec * (1 + TARGETS.budgetSlack),
    withinMemory: rssMB !== null && rssMB <= TARGETS.rssMB,
    everyLevelSampled: levels.every((l) => l.stopped !== 'not-sampled'),
  }
}

const commit = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
const results = []
for (const b of budgets) {
  process.stderr.write(`advise --time-budget ${b} ...`)
  const r = run(b)
  results.push(r)
  process.stderr.write(` ${r.wallSeconds.toFixed(1)} s, ${r.peakRssMB?.toFixed(0)} MB\n`)
}

/** Peak RSS (MB) of a command under GNU time; its exit must be 0 or 1. */
function peakRss(cmd, argv) {
  const r = spawnSync(GNU_TIME, ['-f', '__TIME__ %M', cmd, ...argv], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
  const m = /__TIME__ (\d+)/.exec(r.stderr ?? '')
  if ((r.status !== 0 && r.status !== 1) || !m) throw new Error(`${cmd} ${argv[0]} exited ${r.status}: ${(r.stderr ?? '').split('\n')[0]}`)
  return Number(m[1]) / 1024
}

/**
 * What advise holds for the run once it has started (`--held`): the JavaScript heap that resolving the
 * database (pinned) and the first pass leave, after full collections, in a node of its own (dist/).
 */
function heldAfterStart() {
  const code = `
const { resolveInputs } = await import(${JSON.stringify(new URL('../dist/advise/inputs.js', import.meta.url).href)})
const { readPopulation } = await import(${JSON.stringify(new URL('../dist/advise/population.js', import.meta.url).href)})
const { getHeapStatistics } = await import('node:v8')
const heap = () => { gc(); gc(); return getHeapStatistics().used_heap_size }
const before = heap()
const inputs = resolveInputs([${JSON.stringify(db)}], { pin: true })
const pop = readPopulation(inputs.groups, { dict: null, seed: 0, deadline: Number.POSITIVE_INFINITY, clock: () => performance.now(), filesPerLevel: 4 })
const held = heap() - before
const files = inputs.groups.reduce((a, g) => a + g.files.length, 0)
inputs.pin?.release()
console.log(JSON.stringify({ files, held, kept: pop.groups.length }))`
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`held after start: ${(r.stderr ?? '').split('\n')[0]}`)
  return JSON.parse(r.stdout)
}
const held = flag('held') ? heldAfterStart() : null

const rss = { advise: [], node: [] }
for (let i = 0; i < rssRuns; i++) {
  process.stderr.write(`advise with default flags, run ${i + 1} of ${rssRuns} ...`)
  rss.advise.push(peakRss(RUN_JS, ['advise', db]))
  rss.node.push(peakRss(process.execPath, ['-e', '0']))
  process.stderr.write(` ${rss.advise.at(-1).toFixed(0)} MB (node -e 0: ${rss.node.at(-1).toFixed(0)} MB)\n`)
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const rssSummary =
  rssRuns > 0
    ? {
        runs: rss.advise,
        nodeRuns: rss.node,
        min: Math.min(...rss.advise),
        median: median(rss.advise),
        max: Math.max(...rss.advise),
        nodeMedian: median(rss.node),
        withinMemory: Math.max(...rss.advise) <= TARGETS.rssMB,
      }
    : null

const pass = sstFiles >= TARGETS.files && results.every((r) => r.withinBudget && r.withinMemory && r.everyLevelSampled) && (rssSummary?.withinMemory ?? true)
if (flag('json'))
  console.log(JSON.stringify({ db, sstFiles, commit, date: new Date().toISOString(), targets: TARGETS, results, rss: rssSummary, held, pass }, null, 2))
else {
  console.log(`database: ${db} (${sstFiles} live SST files${sstFiles >= TARGETS.files ? '' : `, fewer than ${TARGETS.files}: regenerate with --regen`})`)
  console.log(`commit ${commit}, ${new Date().toISOString().slice(0, 10)}`)
  for (const r of results) {
    console.log(
      `\n--time-budget ${r.budget} s: wall ${r.wallSeconds.toFixed(1)} s (≤ ${(r.budget * (1 + TARGETS.budgetSlack)).toFixed(1)}: ${r.withinBudget ? 'PASS' : 'FAIL'}), CPU ${r.cpuSeconds?.toFixed(1)} s, peak RSS ${r.peakRssMB?.toFixed(0)} MB (≤ ${TARGETS.rssMB}: ${r.withinMemory ? 'PASS' : 'FAIL'}), every level sampled: ${r.everyLevelSampled ? 'PASS' : 'FAIL'}`,
    )
    for (const l of r.levels)
      console.log(
        `  ${l.where.padEnd(14)} ${String(l.filesRead).padStart(5)} of ${String(l.files).padEnd(5)} files  ${String(l.blocks).padStart(7)} blocks  ${l.stopped.padEnd(12)} → ${l.recommended} ±${(l.halfWidth * 100).toFixed(1)}%`,
      )
  }
}
if (!flag('json') && rssSummary) {
  const r = rssSummary
  console.log(
    `\nadvise with default flags, ${rssRuns} runs: peak RSS ${r.min.toFixed(0)}–${r.max.toFixed(0)} MB, median ${r.median.toFixed(0)} (≤ ${TARGETS.rssMB}: ${r.withinMemory ? 'PASS' : 'FAIL'}); node -e 0 in the same rounds: ${r.nodeMedian.toFixed(0)} MB, advise's peak above it ${(r.min - r.nodeMedian).toFixed(0)}–${(r.max - r.nodeMedian).toFixed(0)} MB`,
  )
  console.log(`  runs: ${r.runs.map((x) => x.toFixed(0)).join(', ')} MB`)
}
if (!flag('json') && held)
  console.log(
    `\nheld after the start (inputs pinned, first pass): ${(held.held / 1e6).toFixed(2)} MB of heap for ${held.files} live files, ${Math.round(held.held / held.files)} bytes a file`,
  )
if (flag('strict') && !pass) process.exit(1)

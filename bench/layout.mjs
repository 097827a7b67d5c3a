#!/usr/bin/env node
// Benchmark: `sstkit layout` (the full block table, --json and --format csv) on
// SSTs of many blocks, written by the real RocksDB `ldb` with a tiny block_size,
// against the same-run `sst_dump --show_properties` (the ratio base). Two file
// sizes, so a flat peak RSS shows as the same number for both: the layout
// streams its rows (memory independent of the number of blocks) and its time
// is linear in them. Target: 100k blocks in under 2 s.
//
//   node bench/layout.mjs [--runs N] [--regenerate]
//
// Runs are interleaved (each command once per round) so that a busy machine
// slows every command alike and the ratios stay meaningful. Prints a table;
// exits 0 unless a command fails.

import { spawnSync } from 'node:child_process'
import { existsSync, openSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateSst } from './gen-sst.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const RUN_JS = join(resolve(HERE, '..'), 'bin', 'run.cjs')
const SST_DUMP = '/usr/bin/sst_dump'
const GNU_TIME = '/usr/bin/time'
/** block_size 256 with 100-400-byte values: about one entry per block. */
const BLOCK_SIZE = 256
const FILES = [
  { name: 'layout-25k', entries: 25_000 },
  { name: 'layout-140k', entries: 140_000 },
]
const TARGET_SECONDS = 2
const TARGET_BLOCKS = 100_000

const args = process.argv.slice(2)
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 3
const regenerate = args.includes('--regenerate')
const log = (s) => process.stderr.write(`${s}\n`)

/** One run with stdout to /dev/null: wall seconds, and peak RSS in MB from GNU time. */
function runOnce(argv) {
  const rssFile = `/tmp/sstkit-bench-layout.${process.pid}`
  const devnull = openSync('/dev/null', 'w')
  const t0 = performance.now()
  const r = spawnSync(GNU_TIME, ['-o', rssFile, '-f', '%M', ...argv], { stdio: ['ignore', devnull, 'pipe'] })
  const seconds = (performance.now() - t0) / 1000
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`)
  const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop())
  rmSync(rssFile, { force: true })
  return { seconds, rssMB: kb / 1024 }
}

function blockCount(file) {
  const r = spawnSync(process.execPath, [RUN_JS, 'layout', file, '--summary', '--json'], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`layout --summary failed: ${r.stderr}`)
  return JSON.parse(r.stdout).blockCount
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

for (const tool of [SST_DUMP, GNU_TIME]) if (!existsSync(tool)) throw new Error(`${tool} is needed (apt-get install -y rocksdb-tools time)`)
const rows = []
for (const f of FILES) {
  const path = join(HERE, 'data', `${f.name}.sst`)
  if (regenerate || !existsSync(path)) await generateSst(path, { entries: f.entries, minBytes: 0, blockSize: BLOCK_SIZE, log })
  const blocks = blockCount(path)
  const commands = {
    'sst_dump --show_properties': [SST_DUMP, `--file=${path}`, '--show_properties'],
    layout: [process.execPath, RUN_JS, 'layout', path],
    'layout --json': [process.execPath, RUN_JS, 'layout', path, '--json'],
    'layout --format csv': [process.execPath, RUN_JS, 'layout', path, '--format', 'csv'],
  }
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]))
  for (const argv of Object.values(commands)) runOnce(argv) // warm the page cache
  for (let i = 0; i < runs; i++) for (const [k, argv] of Object.entries(commands)) samples[k].push(runOnce(argv))
  const base = median(samples['sst_dump --show_properties'].map((s) => s.seconds))
  for (const [k, s] of Object.entries(samples)) {
    const seconds = median(s.map((x) => x.seconds))
    rows.push({ file: f.name, blocks, command: k, seconds, ratio: seconds / base, rssMB: Math.max(...s.map((x) => x.rssMB)) })
  }
}

const pad = (s, n, right = false) => (right ? String(s).padStart(n) : String(s).padEnd(n))
console.log(
  `${pad('file', 12)} ${pad('blocks', 8, true)}  ${pad('command', 27)} ${pad('median s', 9, true)} ${pad('x sst_dump', 10, true)} ${pad('peak RSS', 9, true)}`,
)
for (const r of rows)
  console.log(
    `${pad(r.file, 12)} ${pad(r.blocks, 8, true)}  ${pad(r.command, 27)} ${pad(r.seconds.toFixed(2), 9, true)} ${pad(r.ratio.toFixed(1), 10, true)} ${pad(`${r.rssMB.toFixed(0)} MB`, 9, true)}`,
  )
const big = rows.filter((r) => r.blocks >= TARGET_BLOCKS && r.command.startsWith('layout'))
const slow = big.filter((r) => r.seconds >= TARGET_SECONDS)
console.log(
  big.length === 0
    ? `no file of ${TARGET_BLOCKS} blocks measured`
    : slow.length === 0
      ? `target met: every layout of ${big[0].blocks} blocks under ${TARGET_SECONDS} s (timings noisy on a shared machine)`
      : `target missed: ${slow.map((r) => `${r.command} ${r.seconds.toFixed(2)} s`).join(', ')} (timings noisy on a shared machine)`,
)

#!/usr/bin/env node
// Benchmark: time to the first screen of `sstkit browse` on a large SST, in a
// real terminal (tmux). This is a benchmark, not a test: it prints numbers and
// whether the 1 s target is met, and exits 0 either way unless it cannot run.
//
//   node bench/browse.mjs [--runs N] [--file PATH] [--json]
//
// The clock starts just before tmux starts the command in a new 120x40 pane and
// stops when capture-pane first shows the Overview's properties (polled every
// 10 ms). Also reported: when the screen is live (ink has loaded and replaced
// the first screen, painted before ink, whose status line says "starting…";
// keys typed before then are kept and handled then), and for scale how long `sstkit props` takes on
// the same file (node + oclif start-up, which no screen can beat).
//
// Data: bench/data/inspect-200mb.sst, which `node bench/inspect.mjs` generates
// (with ldb from rocksdb-tools) when it is missing. Needs `npm run build` and tmux.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const DEFAULT_FILE = join(HERE, 'data', 'inspect-200mb.sst')
const TARGET_SECONDS = 1

function args() {
  const a = process.argv.slice(2)
  const o = { runs: 5, file: DEFAULT_FILE, json: false }
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--runs') o.runs = Number(a[++i])
    else if (a[i] === '--file') o.file = resolve(a[++i])
    else if (a[i] === '--json') o.json = true
    else if (a[i] === '-h' || a[i] === '--help') {
      console.log('usage: node bench/browse.mjs [--runs N] [--file PATH] [--json]')
      process.exit(0)
    } else {
      console.error(`unknown argument ${a[i]}`)
      process.exit(2)
    }
  }
  return o
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function oneRun(file) {
  const dir = mkdtempSync(join(tmpdir(), 'sstkit-bench-browse-'))
  const sock = join(dir, 'tmux.sock')
  const tmux = (...args) => spawnSync('tmux', ['-S', sock, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 10_000 })
  const cmd = `env -u CI -u CONTINUOUS_INTEGRATION ${JSON.stringify(process.execPath)} ${JSON.stringify(RUN_JS)} browse ${JSON.stringify(file)}; echo SSTKIT_EXIT=$?; sleep 60`
  try {
    const t0 = performance.now()
    const r = tmux('new-session', '-d', '-s', 'b', '-x', '120', '-y', '40', cmd)
    if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`)
    let first = null
    let live = null
    const deadline = t0 + 30_000
    while (performance.now() < deadline && live === null) {
      const s = tmux('capture-pane', '-p', '-t', 'b').stdout
      const t = performance.now()
      if (first === null && s.includes('rocksdb.num.entries')) first = t - t0
      if (first !== null && !s.includes('starting… (keys work in a moment)')) live = t - t0
      if (s.includes('SSTKIT_EXIT=')) throw new Error(`browse exited early:\n${s}`)
      if (live === null) await sleep(10)
    }
    if (first === null) throw new Error('the overview did not appear within 30 s')
    tmux('send-keys', '-t', 'b', 'q')
    for (let i = 0; i < 200; i++) {
      if (tmux('capture-pane', '-p', '-t', 'b').stdout.includes('SSTKIT_EXIT=0')) break
      await sleep(25)
    }
    return { first, live }
  } finally {
    tmux('kill-server')
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  const o = args()
  if (!existsSync(o.file)) {
    console.error(`${o.file} does not exist. Generate it with \`node bench/inspect.mjs\` (needs ldb: apt-get install rocksdb-tools), or pass --file PATH.`)
    process.exit(2)
  }
  if (!existsSync(join(ROOT, 'dist/commands/browse.js'))) {
    console.error('dist/ has no browse command: run `npm run build` first')
    process.exit(2)
  }
  if (spawnSync('tmux', ['-V']).status !== 0) {
    console.error('tmux is not installed')
    process.exit(2)
  }
  const size = statSync(o.file).size
  const log = o.json ? (s) => process.stderr.write(`${s}\n`) : (s) => console.log(s)
  log(`sstkit browse: time to first screen, ${o.file.replace(ROOT + '/', '')} (${(size / 2 ** 20).toFixed(0)} MiB), ${o.runs} runs in tmux 120x40`)

  const props = []
  for (let i = 0; i < Math.max(3, Math.min(o.runs, 5)); i++) {
    const t0 = performance.now()
    const r = spawnSync(process.execPath, [RUN_JS, 'props', o.file], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`props failed: ${r.stderr}`)
    props.push(performance.now() - t0)
  }
  const runs = []
  for (let i = 0; i < o.runs; i++) {
    const r = await oneRun(o.file)
    runs.push(r)
    log(`  run ${i + 1}: first screen ${r.first.toFixed(0)} ms, live ${r.live === null ? '?' : r.live.toFixed(0)} ms`)
  }
  const first = median(runs.map((r) => r.first))
  const live = median(runs.filter((r) => r.live !== null).map((r) => r.live))
  const result = {
    file: o.file,
    fileBytes: size,
    runs: o.runs,
    firstScreenMs: Math.round(first),
    firstScreenMinMs: Math.round(Math.min(...runs.map((r) => r.first))),
    liveMs: Math.round(live),
    propsCommandMs: Math.round(median(props)),
    targetMs: TARGET_SECONDS * 1000,
    met: first < TARGET_SECONDS * 1000,
  }
  if (o.json) console.log(JSON.stringify(result, null, 2))
  else {
    log('')
    log(
      `first screen (median):  ${result.firstScreenMs} ms   (min ${result.firstScreenMinMs} ms)   target < ${TARGET_SECONDS * 1000} ms: ${result.met ? 'met' : 'NOT met'}`,
    )
    log(`live (ink loaded):      ${result.liveMs} ms`)
    log(`for scale, \`sstkit props\` on the same file: ${result.propsCommandMs} ms (node + oclif start-up and reading the footer)`)
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exit(1)
})

#!/usr/bin/env node
// Benchmark: sstkit's start-up against a bare `node -e 0`, measured interleaved in one run
// (round r runs every command once, in turn), so that a machine's drift hits all alike.
// Wall time around the spawn; CPU (user + sys) from GNU time when present. A benchmark, not a
// test: it prints numbers and says whether the targets are met, and exits 0 either way.
//
//   node bench/startup.mjs [--runs N] [--json] [--cli RUN_JS]... [--file SST]
//
// See bench/README.md ("Start-up").

import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))

// NODE_EXTRA_CA_CERTS makes every node start parse that CA bundle (~50 ms on a 2-core machine): the
// runs go without it, sstkit's and a bare node's alike, so that start-up numbers compare between machines.
const caCertsUnset = process.env.NODE_EXTRA_CA_CERTS !== undefined
delete process.env.NODE_EXTRA_CA_CERTS
const ROOT = resolve(HERE, '..')
const GNU_TIME = '/usr/bin/time'
const TARGETS = { version: 1.5, props: 2 }

function parseArgs(argv) {
  const o = { runs: 21, json: false, clis: [], file: join(ROOT, 'examples', 'sample.sst') }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => argv[++i] ?? fail(`${a} needs a value`)
    if (a === '--runs') o.runs = Number(val())
    else if (a === '--json') o.json = true
    else if (a === '--cli') o.clis.push(resolve(val()))
    else if (a === '--file') o.file = resolve(val())
    else if (a === '-h' || a === '--help') {
      process.stdout.write('usage: node bench/startup.mjs [--runs N] [--json] [--cli RUN_JS]... [--file SST]\n')
      process.exit(0)
    } else fail(`unknown argument ${a}`)
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) fail('--runs must be a positive integer')
  if (o.clis.length === 0) o.clis.push(join(ROOT, 'bin', 'run.cjs'))
  return o
}

function fail(message) {
  process.stderr.write(`startup: ${message}\n`)
  process.exit(2)
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** One run: wall ms, CPU ms (null without GNU time). */
function runOnce(argv) {
  const out = `/tmp/sstkit-startup-time.${process.pid}`
  const timed = existsSync(GNU_TIME)
  const t0 = performance.now()
  const r = timed
    ? spawnSync(GNU_TIME, ['-o', out, '-f', '%U %S', ...argv], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] })
  const wall = performance.now() - t0
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`)
  let cpu = null
  if (timed) {
    const [u, s] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number)
    rmSync(out, { force: true })
    cpu = (u + s) * 1000
  }
  return { wall, cpu }
}

function main() {
  const o = parseArgs(process.argv.slice(2))
  const node = process.execPath
  const commands = [{ name: 'node -e 0', argv: [node, '-e', '0'] }]
  for (const cli of o.clis) {
    const tag = o.clis.length > 1 ? ` [${cli.replace(`${ROOT}/`, '')}]` : ''
    // As users run it: the shebang's V8 flags included.
    commands.push({ name: `sstkit --version${tag}`, kind: 'version', argv: [cli, '--version'] })
    commands.push({ name: `sstkit props ${o.file.replace(`${ROOT}/`, '')}${tag}`, kind: 'props', argv: [cli, 'props', o.file] })
    // Not targets: props' JSON, and a command that starts through oclif (props' plain command
    // lines do not: src/entry/props-main.ts).
    commands.push({ name: `sstkit props --json${tag}`, kind: 'info', argv: [cli, 'props', '--json', o.file] })
    commands.push({ name: `sstkit layout --summary${tag}`, kind: 'info', argv: [cli, 'layout', '--summary', o.file] })
    // The same through a plain `node`: without the shebang's V8 flag, which makes Node compile
    // its built-in modules without their code cache (what that flag costs at start-up).
    commands.push({ name: `node RUN_JS props (no shebang flags)${tag}`, kind: 'info', argv: [node, cli, 'props', o.file] })
    // recompress's start with the codec kernel (one setting) and with ZDICT (a finalized dictionary).
    commands.push({
      name: `sstkit recompress zstd 3${tag}`,
      kind: 'info',
      argv: [cli, 'recompress', o.file, '--types', 'zstd', '--levels', '3', '--dict', 'none'],
    })
    commands.push({
      name: `sstkit recompress zstd 3 finalize${tag}`,
      kind: 'info',
      argv: [cli, 'recompress', o.file, '--types', 'zstd', '--levels', '3', '--dict', 'finalize'],
    })
  }
  for (const c of commands) runOnce(c.argv) // warm-up: page cache
  const samples = commands.map(() => ({ wall: [], cpu: [] }))
  for (let r = 0; r < o.runs; r++) {
    for (const [i, c] of commands.entries()) {
      const s = runOnce(c.argv)
      samples[i].wall.push(s.wall)
      if (s.cpu !== null) samples[i].cpu.push(s.cpu)
    }
  }
  const base = median(samples[0].wall)
  const results = commands.map((c, i) => {
    const wall = median(samples[i].wall)
    const cpu = samples[i].cpu.length ? median(samples[i].cpu) : null
    return { name: c.name, kind: c.kind ?? 'node', wallMs: wall, cpuMs: cpu, ratio: wall / base }
  })
  const checks = results
    .filter((r) => r.kind in TARGETS)
    .map((r) => ({ target: `${r.name} <= ${TARGETS[r.kind]}x node -e 0`, met: r.ratio <= TARGETS[r.kind], ratio: r.ratio }))
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs: o.runs, results, targets: checks }, null, 2)}\n`)
    return
  }
  const lines = [`${o.runs} interleaved rounds, medians (CPU = user + sys; GNU time's resolution is 10 ms)`, '']
  if (caCertsUnset) lines.splice(1, 0, 'NODE_EXTRA_CA_CERTS unset for the runs')
  lines.push(`${'command'.padEnd(60)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(7)} ${'x node'.padStart(7)}`)
  for (const r of results) {
    lines.push(
      `${r.name.padEnd(60)} ${r.wallMs.toFixed(1).padStart(8)} ${(r.cpuMs === null ? '-' : r.cpuMs.toFixed(0)).padStart(7)} ${r.ratio.toFixed(2).padStart(7)}`,
    )
  }
  lines.push('', 'targets:')
  for (const c of checks) lines.push(`  [${c.met ? 'met' : 'NOT met'}] ${c.target} (${c.ratio.toFixed(2)}x)`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

main()

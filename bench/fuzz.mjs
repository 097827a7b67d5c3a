#!/usr/bin/env node
// The fuzzer, on demand: thousands of mutants (test/fuzz/mutate.ts) of the real
// fixtures in test/fixtures/real, each checked against the properties of
// test/fuzz/checks.ts (the same mutants and checks test/fuzz runs a few hundred of).
// Library checks run in a worker thread, so a mutant that hangs is killed after
// --timeout-ms and reported; every --cli-every'th mutant also goes through the
// built CLI (a multi-file run with an intact file, its peak RSS measured).
//
//   node bench/fuzz.mjs [--seed S] [--count N] [--fixtures a,b] [--kinds k,l] [--cli-every K]
//                       [--timeout-ms T] [--replay FIXTURE:SEED] [--keep DIR] [--json]
//
// Prints a summary per mutation kind and every failing mutant as FIXTURE:SEED
// (rerun one with --replay). Exit 1 when any property failed. See bench/README.md.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const RUN_JS = join(ROOT, 'bin', 'run.cjs')
const REAL = join(ROOT, 'test', 'fixtures', 'real')
const SRC = join(ROOT, 'src') + sep

/**
 * The mutator and the checks are test code (test/fuzz/, not shipped in dist/): esbuild builds the
 * two modules into a temporary directory, their imports of src/ pointed at the built dist/, so the
 * fuzzer runs the code users run. Returns the directory holding mutate.js and checks.js.
 */
async function buildFuzzModules() {
  const { build } = await import('esbuild')
  const outdir = mkdtempSync(join(tmpdir(), 'sstkit-fuzz-modules-'))
  process.on('exit', () => rmSync(outdir, { recursive: true, force: true }))
  const toDist = {
    name: 'src-to-dist',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const path = resolve(args.resolveDir, args.path)
        if (!path.startsWith(SRC)) return undefined
        return { path: pathToFileURL(join(ROOT, 'dist', relative(SRC, path))).href, external: true }
      })
    },
  }
  await build({
    entryPoints: { mutate: join(ROOT, 'test', 'fuzz', 'mutate.ts'), checks: join(ROOT, 'test', 'fuzz', 'checks.ts') },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
    plugins: [toDist],
  })
  return outdir
}

function parseArgs(argv) {
  const o = { seed: 1, count: 2000, fixtures: null, kinds: null, cliEvery: 25, timeoutMs: 20_000, replay: null, keep: null, json: false }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`)
      return argv[++i]
    }
    if (a === '--seed') o.seed = int(next(), a)
    else if (a === '--count') o.count = int(next(), a)
    else if (a === '--fixtures') o.fixtures = next().split(',')
    else if (a === '--kinds') o.kinds = next().split(',')
    else if (a === '--cli-every') o.cliEvery = int(next(), a)
    else if (a === '--timeout-ms') o.timeoutMs = int(next(), a)
    else if (a === '--replay') o.replay = next()
    else if (a === '--keep') o.keep = next()
    else if (a === '--json') o.json = true
    else if (a === '--help' || a === '-h') usage(null)
    else usage(`unknown argument ${a}`)
  }
  return o
}

function int(s, flag) {
  const n = Number(s)
  if (!Number.isSafeInteger(n) || n < 0) usage(`${flag} takes a non-negative integer, not ${s}`)
  return n
}

function usage(error) {
  const text = `usage: node bench/fuzz.mjs [options]

  --seed S          first seed (default 1); mutant i uses seed S+i
  --count N         mutants (default 2000), spread round-robin over the fixtures
  --fixtures LIST   comma-separated fixture names (default: every one in test/fixtures/real)
  --kinds LIST      only these mutation kinds (default: all; see test/fuzz/mutate.ts)
  --cli-every K     every K'th mutant also through the CLI (default 25; 0 = never)
  --timeout-ms T    a mutant whose library checks take longer is a hang (default 20000)
  --replay F:S      run the one mutant of fixture F and seed S, print what it is, keep it
  --keep DIR        write every failing mutant to DIR as FIXTURE.SEED.sst
  --json            print the summary as JSON
`
  if (error) {
    process.stderr.write(`bench/fuzz.mjs: ${error}\n${text}`)
    process.exit(2)
  }
  process.stdout.write(text)
  process.exit(0)
}

/** In-process checks in a worker that can be killed when a mutant hangs. */
class Checker {
  constructor(modules) {
    this.modules = modules
    this.start()
  }
  start() {
    this.worker = new Worker(fileURLToPath(import.meta.url), { workerData: { modules: this.modules } })
    this.worker.unref()
  }
  check(file, outDir, timeoutMs) {
    return new Promise((resolvePromise) => {
      const worker = this.worker
      const finish = (r) => {
        clearTimeout(timer)
        worker.off('message', finish)
        worker.off('error', crashed)
        resolvePromise(r)
      }
      const crashed = (e) => {
        this.start()
        finish({ verify: 'threw', flagged: false, violations: [`worker crashed: ${e?.message ?? e}`], ms: 0 })
      }
      // The library checks bound themselves at timeoutMs; no answer well after that is a hang.
      const timer = setTimeout(() => {
        worker.terminate()
        this.start()
        finish({ verify: 'hang', flagged: false, violations: [`hang: no answer in ${timeoutMs} ms`], ms: timeoutMs })
      }, timeoutMs + 5000)
      worker.on('message', finish)
      worker.on('error', crashed)
      worker.postMessage({ file, outDir, timeLimitMs: timeoutMs })
    })
  }
  close() {
    return this.worker.terminate()
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2))
  const modules = await buildFuzzModules()
  const { mapTable, mutant, MUTATION_KINDS } = await import(pathToFileURL(join(modules, 'mutate.js')).href)
  const { spawnCli, cliViolations, CLI_CHECKS } = await import(pathToFileURL(join(modules, 'checks.js')).href)
  const kinds = o.kinds ?? MUTATION_KINDS
  for (const k of kinds) if (!MUTATION_KINDS.includes(k)) usage(`unknown mutation kind ${k} (one of ${MUTATION_KINDS.join(', ')})`)

  const manifest = JSON.parse(readFileSync(join(REAL, 'MANIFEST.json'), 'utf8'))
  let names = o.fixtures ?? manifest.map((f) => f.name)
  let jobs
  if (o.replay) {
    const [name, seed] = o.replay.split(':')
    names = [name]
    jobs = [{ name, seed: int(seed, '--replay') }]
  } else {
    jobs = Array.from({ length: o.count }, (_, i) => ({ name: names[i % names.length], seed: o.seed + i }))
  }
  const originals = new Map()
  for (const name of names) {
    const bytes = new Uint8Array(readFileSync(join(REAL, `${name}.sst`)))
    originals.set(name, { bytes, map: mapTable(bytes) })
  }

  const work = mkdtempSync(join(tmpdir(), 'sstkit-fuzz-'))
  const checker = new Checker(modules)
  const byKind = new Map()
  const failures = []
  let cliRuns = 0
  let peakRss = 0
  const t0 = performance.now()
  try {
    for (const [i, job] of jobs.entries()) {
      const { bytes, map } = originals.get(job.name)
      const m = mutant(bytes, map, job.seed, kinds)
      const file = join(work, `${job.name}.${job.seed}.sst`)
      writeFileSync(file, m.bytes)
      const outDir = join(work, `out-${job.seed}`)
      mkdirSync(outDir)
      const r = await checker.check(file, outDir, o.timeoutMs)
      const violations = [...r.violations]
      if (m.checksumCovered && !r.flagged && r.verify !== 'hang') violations.push('verify missed a checksum-covered change')
      if (o.cliEvery > 0 && (i + 1) % o.cliEvery === 0) {
        const cmd = CLI_CHECKS[cliRuns++ % CLI_CHECKS.length]
        const intact = join(REAL, `${job.name}.sst`)
        const files = cliRuns % 2 === 0 ? [file, intact] : [intact, file]
        const run = spawnCli(RUN_JS, [...cmd.args, ...files], o.timeoutMs + 10_000)
        peakRss = Math.max(peakRss, run.maxRssBytes ?? 0)
        for (const v of cliViolations(run, files, cmd.json)) violations.push(`CLI ${cmd.args.join(' ')}: ${v}`)
      }
      const k = byKind.get(m.kind) ?? { mutants: 0, flagged: 0, covered: 0, failed: 0, ms: 0 }
      k.mutants++
      if (r.flagged) k.flagged++
      if (m.checksumCovered) k.covered++
      k.ms += r.ms
      if (violations.length > 0) {
        k.failed++
        failures.push({ id: `${job.name}:${job.seed}`, kind: m.kind, what: m.what, violations })
        if (o.keep) {
          mkdirSync(o.keep, { recursive: true })
          writeFileSync(join(o.keep, basename(file)), m.bytes)
        }
      }
      byKind.set(m.kind, k)
      if (o.replay) {
        const kept = join(o.keep ?? process.cwd(), basename(file))
        writeFileSync(kept, m.bytes)
        process.stderr.write(`${job.name}:${job.seed}: ${m.kind}: ${m.what}; verify: ${r.verify}; written to ${kept}\n`)
      }
      rmSync(outDir, { recursive: true, force: true })
      rmSync(file, { force: true })
      if (!o.json && !o.replay && (i + 1) % 250 === 0) process.stderr.write(`  ${i + 1}/${jobs.length} mutants, ${failures.length} failing\n`)
    }
  } finally {
    await checker.close()
    rmSync(work, { recursive: true, force: true })
  }
  const seconds = (performance.now() - t0) / 1000
  const summary = {
    mutants: jobs.length,
    fixtures: names.length,
    seeds: o.replay ? o.replay : `${o.seed}..${o.seed + jobs.length - 1}`,
    cliRuns,
    cliPeakRssMiB: Math.round(peakRss / 2 ** 20),
    // The bench and its checking worker together: a reader that allocated what a corrupt length claims shows here.
    benchPeakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    seconds: Math.round(seconds * 10) / 10,
    kinds: Object.fromEntries([...byKind].sort()),
    failing: failures.length,
    failures,
  }
  if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
  else printSummary(summary)
  process.exitCode = failures.length > 0 ? 1 : 0
}

function printSummary(s) {
  const out = (line) => process.stdout.write(`${line}\n`)
  out(
    `sstkit fuzz: ${s.mutants} mutants of ${s.fixtures} real fixtures (seeds ${s.seeds}) in ${s.seconds} s; ${s.cliRuns} CLI runs, peak RSS ${s.cliPeakRssMiB} MiB`,
  )
  out('')
  out(`${'kind'.padEnd(18)}${'mutants'.padStart(8)}${'flagged'.padStart(9)}${'covered'.padStart(9)}${'failed'.padStart(8)}${'ms/mutant'.padStart(11)}`)
  for (const [kind, k] of Object.entries(s.kinds)) {
    const ms = (k.ms / k.mutants).toFixed(1)
    out(
      `${kind.padEnd(18)}${String(k.mutants).padStart(8)}${String(k.flagged).padStart(9)}${String(k.covered).padStart(9)}${String(k.failed).padStart(8)}${ms.padStart(11)}`,
    )
  }
  out('')
  out('flagged: verify reported the mutant; covered: a checksum-covered change (verify must flag every one)')
  if (s.failing === 0) {
    out('every property held for every mutant')
    return
  }
  out(`${s.failing} failing mutants (rerun one with --replay FIXTURE:SEED):`)
  for (const f of s.failures) {
    out(`  ${f.id} ${f.kind}: ${f.what}`)
    for (const v of f.violations) out(`      ${v}`)
  }
}

// Last, so that everything above is defined when main runs.
if (!isMainThread) {
  // Worker: the in-process checks of one mutant file at a time.
  const { runLibrary, runRewrite } = await import(pathToFileURL(join(workerData.modules, 'checks.js')).href)
  parentPort.on('message', ({ file, outDir, timeLimitMs }) => {
    const lib = runLibrary(file, timeLimitMs)
    const rewrite = runRewrite(file, outDir, lib.flagged)
    parentPort.postMessage({ ...lib, violations: [...lib.violations, ...rewrite] })
  })
} else {
  await main()
}

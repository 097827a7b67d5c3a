#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=2097152 node
// No V8 flag here: under any non-default V8 flag Node rejects its built-in code cache, and every
// thread compiles Node's internal modules from source (`--max-semi-space-size=1` cost ~10-15 ms of
// each start and ~0.06 s of CPU per worker thread). Young generations are bounded without one:
// workers by their Worker limits (src/util/worker-pool.ts), the main thread of the long commands
// at run time (keepYoungGenerationSmall, src/util/garbage.ts). Measured on commit 9058897, 2026-12-01.
// glibc's malloc thresholds are set here for every command (and by recompress itself when node is
// started otherwise): src/util/malloc.ts's MALLOC_MMAP_BYTES and MALLOC_TRIM_BYTES say why.
//
// Start-up (each step measured in bench/README.md, "Start-up"):
// - This file is CommonJS (package.json's bin): an ES module entry starts Node's ES module loader
//   first, ~6 ms of CPU of each run (bin/run.js, oclif's usual entry, is that and loads this).
// - `--version` needs nothing but package.json: it is answered before oclif loads, with
//   oclif's own answer (config.userAgent) byte for byte.
// - oclif checks package.json's `engines.node` with semver, 47 modules of the ~160 a command
//   loads: the same check is done here for the `>=X.Y[.Z]` form package.json uses.
// - Node >= 22.1 caches compiled modules on disk (module.enableCompileCache; absent in Node 20).
// - oclif, the commands and the init hook load from dist/bundle/ (scripts/bundle-cli.mjs): a
//   handful of ES modules instead of ~180 files.
// - `sst-dump` (sst_dump's own argument syntax) runs without oclif, and so do the plain
//   `props [--json] PATH...`, `verify [--jobs N] [--json] PATH...`, `scan [--hex] PATH...` and
//   recompress with its common flags (src/entry/props-main.ts, verify-main.ts, scan-main.ts and
//   recompress-main.ts say which command lines, and why they print what oclif would); oclif's
//   config, parser and code were ~50 ms of props' ~150, ~80 ms of verify's, ~75 ms of CPU of
//   scan's, ~0.1 s of recompress's.
// - A plain path's process ends as soon as its command is done (src/util/exit.ts: without waiting
//   for V8's background compilations and Node's teardown, ~15 ms of an 8 MB file's verify).
// - oclif gets package.json as read here, with the help plugin (whose only command is `help`)
//   only when the command line may need it: no search for package.json, no second read of it,
//   no plugin to find and read.
// Node's built-ins are required, not imported: importing node:fs as an ES module builds its
// export list, which loads fs streams.

/** This file's URL: paths below are relative to it, as an ES module's import.meta.url. */
const binUrl = require('node:url').pathToFileURL(__filename).href
const { existsSync, readFileSync } = require('node:fs')
const { arch, release } = require('node:os')
const { fileURLToPath } = require('node:url')
const nodeModule = require('node:module')

const pjson = JSON.parse(readFileSync(new URL('../package.json', binUrl), 'utf8'))

/** The one-line error for a command line naming no command (unknownCommandLine), once known. */
let unknownCommand = null

// The worker thread a command will start on a large file, started before the command loads (src/util/early-workers.ts).
// The commands' awaits, in CommonJS (no top-level await).
;(async () => {
  if (process.argv[2] === 'verify' && verifyWantsWorker(process.argv.slice(3))) await startWorkerEarly('_verify-worker.js')
  else if (process.argv[2] === 'sst-dump' && sstDumpWantsWorker(process.argv.slice(3))) await startWorkerEarly('_sst-dump-worker.js')

  if (process.argv[2] === '--version' && !/microsoft/i.test(release())) {
    // WSL is left to oclif, which names the platform "wsl" there.
    const cpu = arch() === 'ia32' ? 'x86' : arch()
    process.stdout.write(`${pjson.name}/${pjson.version} ${process.platform}-${cpu} node-${process.version}\n`)
  } else if (process.argv[2] === 'sst-dump') {
    // The drop-in parses sst_dump's own flags (src/sstdump): oclif has nothing to do, and scripts
    // call it once per file, so it starts without oclif (bench/sst-dump.mjs).
    checkEngine(pjson.engines?.node)
    const dropIn = loadPlainBundle('_sst-dump')
    process.exitCode = await dropIn.sstDumpMain(process.argv.slice(3), pjson.version)
    exitWhenSettled(dropIn)
  } else if ((unknownCommand = unknownCommandLine(process.argv.slice(2)))) {
    // oclif would say " ›   Error: command scna:x.sst not found" (its topic separator joins the words), exit 2.
    process.stderr.write(`sstkit: ${unknownCommand}\n`)
    process.exitCode = 2
  } else if (process.argv[2] === 'props' && (await runWithoutOclif('_props', 'propsMain'))) {
    // Done: `props [--json] PATH...` (src/entry/props-main.ts); any other props command line is oclif's.
  } else if (process.argv[2] === 'verify' && (await runWithoutOclif('_verify', 'verifyMain'))) {
    // Done: `verify [--jobs N] [--json] PATH...` (src/entry/verify-main.ts); any other is oclif's.
  } else if (process.argv[2] === 'scan' && (await runWithoutOclif('_scan', 'scanMain'))) {
    // Done: `scan [--hex] PATH...` (src/entry/scan-main.ts); any other is oclif's.
  } else if (process.argv[2] === 'recompress' && (await runWithoutOclif('_recompress', 'recompressMain'))) {
    // Done: paths with --types, --levels, --dict, --checksum, --block-size, --jobs, --format, --sort,
    // --wide, --bytes, --verify-compression, --json (src/entry/recompress-main.ts); any other is oclif's.
  } else {
    // advise's main thread keeps V8's first semi-spaces (src/util/garbage.ts keepYoungGenerationSmall)
    // from here, not from its command's start: loading oclif and the command had grown them to 4 MiB.
    // The code cache lost for what loads after costs a run of a minute's budget nothing measurable.
    // recompress sets it at its first batch: on an 8 MB file the lost cache was ~0.06 s of its CPU,
    // and its default matrix's peak RSS the same within 1.5 MB.
    if (process.argv[2] === 'advise') require('node:v8').setFlagsFromString('--semi-space-growth-factor=1')
    // --debug prints stack traces: through the bundle's source maps they name src/*.ts lines.
    if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true)
    checkEngine(pjson.engines?.node)
    nodeModule.enableCompileCache?.()
    const { execute } = await import('../dist/bundle/_oclif.js')
    const root = fileURLToPath(new URL('..', binUrl))
    await execute({ loadOptions: { root, pjson: forCommandLine(pjson, process.argv.slice(2)) } })
  }
})()
/** Start the worker dist/bundle/`file` now, before the command loads: a pool of the command adopts it. */
async function startWorkerEarly(file) {
  const { startEarlyWorker } = await import('../dist/bundle/_early-workers.js')
  startEarlyWorker(new URL(`../dist/bundle/${file}`, binUrl))
}

/** The bytes of the first of `paths` that is a file of at least `min` bytes, or 0; looks at a few only. */
function largeFile(paths, min) {
  const { statSync } = require('node:fs')
  for (const p of paths.slice(0, 8)) {
    try {
      const st = statSync(p)
      if (st.isFile() && st.size >= min) return st.size
    } catch {}
  }
  return 0
}

/** The file sizes from which verify and sst-dump's scan and check start a worker (their owners' constants, written by the build). */
function earlyWorkerSizes() {
  return JSON.parse(readFileSync(new URL('../dist/bundle/_early-worker-sizes.json', binUrl), 'utf8'))
}

/** Whether `verify ARGS` will likely start a worker: more than one core, no `--jobs 1`, a file of at least verify's worker size (its data blocks decide). */
function verifyWantsWorker(args) {
  if (require('node:os').availableParallelism() < 2) return false
  const jobs = args.findIndex((a) => a === '--jobs' || a === '-j')
  if ((jobs >= 0 && args[jobs + 1] === '1') || args.includes('--jobs=1')) return false
  return (
    largeFile(
      args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '--jobs' && args[i - 1] !== '-j'),
      earlyWorkerSizes().verify,
    ) > 0
  )
}

/**
 * Whether `sst-dump ARGS` will likely start a worker: a whole-file scan, or check (also no
 * --command: a read that prints nothing), of a file of at least the drop-in's parallel size for it.
 */
function sstDumpWantsWorker(args) {
  if (require('node:os').availableParallelism() < 2) return false
  const command = args.find((a) => a.startsWith('--command='))?.slice(10) ?? ''
  if ((command !== 'check' && command !== 'scan' && command !== '') || args.some((a) => /^--(from|to|prefix|read_num)=/.test(a))) return false
  return (
    largeFile(
      args.map((a) => (a.startsWith('--file=') ? a.slice(7) : a)).filter((a) => !a.startsWith('-')),
      command === 'scan' ? earlyWorkerSizes().sstDump : earlyWorkerSizes().sstDumpCheck,
    ) > 0
  )
}

/**
 * The exports of dist/bundle/`name`.cjs (a plain path's bundle: scripts/bundle-cli.mjs), compiled
 * with V8's cached data of it (`name`.cjs.cache, written by the build) where this Node accepts it:
 * Node 20 caches no compiled module, and compiling was most of props' time after node's start.
 * SSTKIT_WRITE_CODE_CACHE=1 (the build) writes the cache at exit, with what the run compiled.
 */
function loadPlainBundle(name) {
  const path = fileURLToPath(new URL(`../dist/bundle/${name}.cjs`, binUrl))
  let cachedData
  try {
    cachedData = readFileSync(`${path}.cache`)
  } catch {}
  const { Script } = require('node:vm')
  // CommonJS's own wrapper, on the first line: the bundle's line numbers stay its own.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(path, 'utf8')}\n})`
  const script = new Script(source, { filename: path, cachedData })
  const bundle = { exports: {} }
  script.runInThisContext()(bundle.exports, nodeModule.createRequire(path), bundle, path, fileURLToPath(new URL('../dist/bundle', binUrl)))
  if (process.env.SSTKIT_WRITE_CODE_CACHE === '1') {
    process.once('exit', () => {
      // A cache carries a hash of V8's flags and is rejected under others: recompress sets one while it
      // runs (src/util/garbage.ts keepYoungGenerationSmall), put back to V8's default before the cache is made.
      require('node:v8').setFlagsFromString('--semi-space-growth-factor=2')
      require('node:fs').writeFileSync(`${path}.cache`, script.createCachedData())
    })
  }
  return bundle.exports
}

/**
 * A command's plain path (`main` of dist/bundle/`name`.cjs: src/entry/*-main.ts; its exit code, or a
 * promise of it) when its command line allows; false: left to oclif.
 */
async function runWithoutOclif(name, main) {
  checkEngine(pjson.engines?.node)
  const bundle = loadPlainBundle(name)
  const code = bundle[main](process.argv.slice(3))
  if (code === null) return false
  process.exitCode = await code
  exitWhenSettled(bundle)
  return true
}

/**
 * End the process through the plain bundle's exitAtOnce (src/util/exit.ts) once the ticks the
 * command queued have run (a warning process.emitWarning prints on a later tick, say); not from
 * setImmediate, which lets V8 run a collection first.
 */
function exitWhenSettled(bundle) {
  process.nextTick(() => bundle.exitAtOnce(process.exitCode))
}

/**
 * The one-line error for a command line whose first word (or the word after `help`) names no
 * command, with the nearest command's name or, for a file's path, how to name a command first;
 * null when it names one (or is an option, or nothing). Only a miss reads the manifest.
 */
function unknownCommandLine(argv) {
  const at = argv[0] === 'help' ? 1 : 0
  const id = argv[at]
  if (id === undefined || id.startsWith('-') || (at === 0 && id === 'help')) return null
  if (/^[a-z][a-z0-9-]*$/.test(id) && existsSync(new URL(`../dist/bundle/${id}.js`, binUrl))) return null
  const ids = Object.keys(JSON.parse(readFileSync(new URL('../oclif.manifest.json', binUrl), 'utf8')).commands)
  if (ids.includes(id)) return null
  const near = ids.map((c) => [editDistance(id, c), c]).sort((a, b) => a[0] - b[0])[0]
  const hint = existsSync(id) ? ` (a file? name a command first, e.g. sstkit props ${id})` : near && near[0] <= 2 ? ` (did you mean "${near[1]}"?)` : ''
  return `unknown command "${id}"${hint}: sstkit --help lists the commands`
}

/** Levenshtein distance (command names are short). */
function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]
}

/**
 * Whether oclif may need @oclif/plugin-help for this command line: for its `help` command, the
 * command list of the root help (which names `help`), and suggestions for an unknown command.
 * Not when the first word names one of sstkit's commands and nothing asks for help.
 */
function mayNeedHelpPlugin(argv) {
  const [id] = argv
  if (!id || !/^[a-z][a-z0-9-]*$/.test(id) || !existsSync(new URL(`../dist/bundle/${id}.js`, binUrl))) return true
  return argv.some((a) => a === 'help' || a === '--help' || a === '-h')
}

/**
 * package.json as oclif needs it for this command line: without the help plugin when it cannot
 * be needed, and without the init hook (which only answers `sst-dump --help`) for any other
 * command: each is a module to load before the command starts.
 */
function forCommandLine(p, argv) {
  const oclif = { ...p.oclif }
  if (!mayNeedHelpPlugin(argv)) oclif.plugins = []
  if (argv[0] !== 'sst-dump' && oclif.hooks) {
    const { init, ...otherHooks } = oclif.hooks
    oclif.hooks = otherHooks
  }
  return { ...p, oclif }
}

/** oclif's engine warning, without semver, for a `>=X.Y[.Z]` range (any other form: oclif checks it). */
function checkEngine(range) {
  const min = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range ?? '')
  if (!min || process.env.OCLIF_DISABLE_ENGINE_WARNING) return
  process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'
  const have = process.versions.node.split('.').map(Number)
  const want = [Number(min[1]), Number(min[2]), Number(min[3] ?? 0)]
  const i = have.findIndex((v, k) => v !== want[k])
  if (i >= 0 && have[i] < want[i]) {
    process.emitWarning(`Node version must be ${range} to use this CLI. Current node version: ${process.versions.node}`)
  }
}

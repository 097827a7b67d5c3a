#!/usr/bin/env node
// Benchmark (not a test): `sstkit advise` on a real RocksDB database of >= 2 GB against the
// exhaustive `sstkit recompress` of the same live files. Prints, per (column family, level)
// and setting, the exhaustive bytes, advise's estimate and 95% interval, the error and whether
// the interval covers the exhaustive result; then the targets (issue 13): advise wall <= 60 s,
// every estimate within 1% of exhaustive and inside its own interval, peak RSS <= 150 MB.
//
//   node bench/advise.mjs [--quick] [--db DIR] [--regen] [--sstkit RUN_JS] [--seed N] [--json] [--strict]
//
// The database is generated on first use by bench/gen-db.cc (real RocksDB 7.8.3 through
// librocksdb-dev) into ${XDG_CACHE_HOME:-~/.cache}/sstkit-bench/advise-db (~2.4 GB; --quick: a ~300 MB
// one in advise-db-quick); the exhaustive results are cached per file next to it. See
// bench/README.md.

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { compareLevels, EXACT_TOLERANCE, levelRewriterBinary, measureLevels, rewriteLevels } from '../test/fixtures/level-rewriter.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const GNU_TIME = '/usr/bin/time'
const LDB = '/usr/bin/ldb'

const TARGETS = { wallSeconds: 60, relativeError: 0.01, rssMB: 150 }
/** The dictionary options advise uses; recompress must build the same dictionaries. */
const DICT_OPTIONS = { maxDictBytes: 16384, trainBytes: 100 * 16384, maxDictBufferBytes: 64 * 1024 * 1024 }
/** --quick: a database of ~300 MB instead of ~2.4 GB, in its own cache directory. */
const SIZES = {
  full: { scale: 1, name: 'advise-db' },
  quick: { scale: 0.11, name: 'advise-db-quick' },
}
/**
 * --exhaustive-only (no advise run) fills the cache for advise's default matrix, read from the
 * built sstkit (dist/decide/settings.js, its one owner); a normal run compares whatever advise's
 * JSON lists.
 */
async function defaultMatrix(runJs) {
  const settings = join(dirname(dirname(runJs)), 'dist', 'advise', 'settings.js')
  if (!existsSync(settings)) throw new Error(`${settings}: no such file (npm run build)`)
  const { defaultSettings } = await import(pathToFileURL(settings).href)
  return defaultSettings()
}

function usage(code) {
  const text = `usage: node bench/advise.mjs [options]

  --quick                   the ~300 MB database (own cache dir) instead of the ~2.4 GB one
  --db DIR                  the database directory (generated there if missing; default
                            \${XDG_CACHE_HOME:-~/.cache}/sstkit-bench/advise-db[-quick])
  --regen                   regenerate the database even if it exists
  --gen-seed N              the generator's seed (default 1; takes effect when it generates)
  --seed N                  passed to advise (default: advise's own default)
  --coverage-seeds LIST     also run advise with each of these seeds (e.g. 1,2,3,4) and print the
                            intervals' coverage pooled over every seed: the settings of one level
                            share their sample, so one run's pairs are not independent trials
  --sstkit RUN_JS           the sstkit to run (default: this checkout's bin/run.cjs)
  --time-budget T           passed to advise (default: advise's own default)
  --advise-jobs N           passed to advise as --jobs (default: advise's own default)
  --jobs N                  recompress worker threads for the exhaustive run (default 2)
  --max-exhaustive-level N  leave zstd levels above N out of the exhaustive comparison
                            (default: none, every setting advise evaluated is compared)
  --simulate "CF LEVEL"     also: every block of that level under its settings without a dictionary,
                            then advise's estimator over --sim-seeds seeds of advise's own block
                            draws at the share advise stopped at (--sim-rate to choose): coverage,
                            and the standardized errors' mean (bias) and spread (width), per setting
  --sim-seeds N             seeds for --simulate (default 1000)
  --sim-rate P              the sampling share for --simulate (0..1; default: advise's, per level)
  --advice FILE             compare a saved \`sstkit advise DB --json\` output (e.g. merged
                            shards) instead of running advise; wall time and RSS not measured
  --exhaustive-only         no advise run: fill the exhaustive cache for advise's default
                            matrix (dist/decide/settings.js's defaultSettings), up to the level cap
  --come-true               also apply the advice, level by level: advise writes the OPTIONS file
                            (--write-options), real RocksDB 7.8.3 (test/fixtures/level-rewriter.cc,
                            compiled on demand) opens a copy of the database with it and rewrites
                            every table file on its own level (CompactFiles to the same level), and
                            each level's data and dictionary bytes are set against the projection
                            of the setting advise recommended for it and its 95% interval (the copy
                            hard-links the table files: needs free disk for the rewritten ones)
  --come-true-full          the same advice applied by a full compaction instead (ldb
                            --try_load_options compact per column family: everything ends on the
                            bottommost level; checks the bottommost level's projection only, as a
                            full compaction drops what upper levels overwrite; needs one copy)
  --advised-options FILE    with --advice: the OPTIONS file that advise run wrote (default
                            DB.advised-OPTIONS, where the bench's own advise run writes it)
  --no-exhaustive           no exhaustive comparison (with --come-true: the advise run and the
                            advice applied by real RocksDB only)
  --no-build                do not rebuild dist/ even if it is older than src/
  --json                    print the results as JSON on stdout (progress goes to stderr)
  --strict                  exit 1 when a target is not met (default: exit 0 either way)
  -h, --help                this text`
  ;(code ? process.stderr : process.stdout).write(text + '\n')
  process.exit(code)
}

function parseArgs(argv) {
  const o = {
    quick: false,
    db: null,
    regen: false,
    genSeed: 1,
    seed: null,
    coverageSeeds: [],
    sstkit: null,
    timeBudget: null,
    adviseJobs: null,
    jobs: 2,
    maxExhaustiveLevel: null,
    exhaustiveOnly: false,
    advice: null,
    simulate: null,
    simSeeds: 1000,
    simRate: null,
    build: true,
    comeTrue: false,
    comeTrueFull: false,
    advisedOptions: null,
    noExhaustive: false,
    json: false,
    strict: false,
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const val = () => {
      if (i + 1 >= argv.length) usage(2)
      return argv[++i]
    }
    const int = (name, v) => {
      if (!/^-?\d+$/.test(v)) {
        process.stderr.write(`advise bench: ${name} takes an integer (got "${v}")\n`)
        process.exit(2)
      }
      return Number(v)
    }
    if (a === '--quick') o.quick = true
    else if (a === '--db') o.db = resolve(val())
    else if (a === '--regen') o.regen = true
    else if (a === '--gen-seed') o.genSeed = int(a, val())
    else if (a === '--seed') o.seed = int(a, val())
    else if (a === '--coverage-seeds')
      o.coverageSeeds = val()
        .split(',')
        .map((v) => int(a, v.trim()))
    else if (a === '--sstkit') {
      o.sstkit = resolve(val())
      o.build = false
    } else if (a === '--time-budget') o.timeBudget = val()
    else if (a === '--advise-jobs') o.adviseJobs = int(a, val())
    else if (a === '--jobs') o.jobs = int(a, val())
    else if (a === '--max-exhaustive-level') o.maxExhaustiveLevel = int(a, val())
    else if (a === '--exhaustive-only') o.exhaustiveOnly = true
    else if (a === '--advice') o.advice = resolve(val())
    else if (a === '--simulate') o.simulate = val()
    else if (a === '--sim-seeds') o.simSeeds = int(a, val())
    else if (a === '--sim-rate') o.simRate = Number(val())
    else if (a === '--no-build') o.build = false
    else if (a === '--come-true') o.comeTrue = true
    else if (a === '--come-true-full') o.comeTrueFull = true
    else if (a === '--advised-options') o.advisedOptions = resolve(val())
    else if (a === '--no-exhaustive') o.noExhaustive = true
    else if (a === '--json') o.json = true
    else if (a === '--strict') o.strict = true
    else if (a === '-h' || a === '--help') usage(0)
    else {
      process.stderr.write(`advise bench: unknown argument ${a}\n`)
      usage(2)
    }
  }
  return o
}

const log = (...a) => process.stderr.write(a.join(' ') + '\n')
const cacheRoot = () => join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'sstkit-bench')

// ---- the database ---------------------------------------------------------------------------

/** The generator binary, compiled once per version of gen-db.cc into the cache (never the repo). */
function generatorBinary() {
  const source = join(HERE, 'gen-db.cc')
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 12)
  const bin = join(cacheRoot(), `gen-db-${hash}`)
  if (existsSync(bin)) return { bin, hash }
  mkdirSync(cacheRoot(), { recursive: true })
  log(`compiling bench/gen-db.cc -> ${bin} ...`)
  const r = spawnSync('g++', ['-std=c++17', '-O2', source, '-o', `${bin}.tmp`, '-lrocksdb'], { stdio: ['ignore', 'inherit', 'inherit'] })
  if (r.status !== 0) throw new Error('compiling bench/gen-db.cc failed (needs g++ and librocksdb-dev: apt-get install -y g++ librocksdb-dev)')
  renameSync(`${bin}.tmp`, bin)
  return { bin, hash }
}

const layoutPath = (dir) => `${dir}.layout.json`

/** Generates the database when missing (or --regen): into DIR.tmp, renamed when complete. */
function ensureDatabase(o) {
  const size = o.quick ? SIZES.quick : SIZES.full
  const dir = o.db ?? join(cacheRoot(), size.name)
  if (!o.regen && existsSync(join(dir, 'CURRENT'))) {
    const recorded = existsSync(layoutPath(dir)) ? JSON.parse(readFileSync(layoutPath(dir), 'utf8')) : null
    if (recorded && (recorded.seed !== o.genSeed || recorded.scale !== size.scale)) {
      log(`warning: ${dir} was generated with seed ${recorded.seed}, scale ${recorded.scale}; using it as it is (--regen to rebuild)`)
    }
    return { dir, generation: null }
  }
  const { bin, hash } = generatorBinary()
  const tmp = `${dir}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(dirname(dir), { recursive: true })
  log(`generating ${dir} (scale ${size.scale}, seed ${o.genSeed}) with real RocksDB ...`)
  const t0 = performance.now()
  const r = spawnSync(bin, [tmp, '--scale', String(size.scale), '--seed', String(o.genSeed)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`gen-db failed (exit ${r.status})`)
  const seconds = (performance.now() - t0) / 1000
  const layout = { ...JSON.parse(r.stdout), scale: size.scale, seed: o.genSeed, generator: hash }
  rmSync(dir, { recursive: true, force: true })
  rmSync(recompressCacheDir(dir), { recursive: true, force: true })
  renameSync(tmp, dir)
  writeFileSync(layoutPath(dir), JSON.stringify(layout, null, 1) + '\n')
  log(`generated in ${seconds.toFixed(1)} s`)
  return { dir, generation: { seconds } }
}

/**
 * The live files per column family and level. From the generator's record (RocksDB's own
 * GetLiveFilesMetaData) when it matches the files on disk, else from the real `ldb
 * list_live_files_metadata`, run on a hard-linked copy because ldb opens the DB read-write.
 */
function liveFiles(dir) {
  const withStat = (f) => {
    const path = join(dir, f.name)
    const st = statSync(path, { throwIfNoEntry: false })
    return st ? { ...f, path, size: st.size, mtimeMs: Math.round(st.mtimeMs) } : null
  }
  if (existsSync(layoutPath(dir))) {
    const recorded = JSON.parse(readFileSync(layoutPath(dir), 'utf8')).files
    const files = recorded.map(withStat)
    if (files.every((f, i) => f && f.size === recorded[i].size)) return sortFiles(files)
    log(`${layoutPath(dir)} does not match the files on disk: asking ldb`)
  }
  const copy = mkdtempSync(join(tmpdir(), 'sstkit-bench-ldb-'))
  try {
    for (const name of readdirSync(dir)) {
      if (name === 'LOCK') continue
      const from = join(dir, name)
      if (name.endsWith('.sst')) spawnSync('ln', [from, join(copy, name)])
      else writeFileSync(join(copy, name), readFileSync(from))
    }
    const r = spawnSync(LDB, [`--db=${copy}`, 'list_live_files_metadata', '--sort_by_filename'], { encoding: 'utf8', maxBuffer: 16 << 20 })
    if (r.status !== 0) throw new Error(`ldb list_live_files_metadata failed: ${r.stderr.trim()}`)
    const files = []
    for (const m of r.stdout.matchAll(/([^/\s]+\.sst) : level (\d+), column family '([^']*)'/g)) {
      files.push(withStat({ name: m[1], level: Number(m[2]), columnFamily: m[3] }))
    }
    if (files.length === 0 || files.some((f) => !f)) throw new Error(`ldb lists no usable live files for ${dir}`)
    return sortFiles(files)
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}

const sortFiles = (files) => files.sort((a, b) => a.columnFamily.localeCompare(b.columnFamily) || a.level - b.level || a.name.localeCompare(b.name))

// ---- settings -------------------------------------------------------------------------------

const keyOf = (s) => `${s.type}/${s.level ?? 'default'}/${s.dict}/${s.checksum ? 'on' : 'off'}`
const labelOf = (s) =>
  s.label ?? `${s.type}${s.level === null ? '' : ` ${s.level}`}${s.dict === 'none' ? '' : ` dict=${s.dict}`}${s.checksum ? ' +checksum' : ''}`

/** A level's evaluated settings: its matrix, plus today's setting when the matrix lacks it. */
function evaluated(level) {
  const keys = new Set(level.matrix.map((e) => keyOf(e.setting)))
  return level.today && !keys.has(keyOf(level.today.setting)) ? [...level.matrix, level.today] : level.matrix
}

/** The settings advise evaluated, once each, in first-seen matrix order. */
function adviseSettings(advice) {
  const seen = new Map()
  for (const cf of advice.columnFamilies)
    for (const l of cf.levels) for (const e of evaluated(l)) if (!seen.has(keyOf(e.setting))) seen.set(keyOf(e.setting), e.setting)
  return [...seen.values()]
}

const comparable = (s, o) => o.maxExhaustiveLevel === null || !(s.type === 'zstd' && s.level !== null && s.level > o.maxExhaustiveLevel)

// ---- the exhaustive recompress, cached per file -------------------------------------------

const recompressCacheDir = (dir) => `${dir}.recompress`

/**
 * The built modules whose code decides a setting's bytes: its codec's, the block framing's and, with a
 * dictionary, the dictionary builders'. A cached result records their hash and is recomputed when it
 * differs: LZ4 and Snappy once changed their output (to RocksDB's exact bytes) under a cache keyed by
 * the file alone, and every LZ4 comparison was then against sizes no sstkit produced any more.
 */
const CODEC_MODULES = {
  none: [],
  snappy: ['codec/snappy.js', 'codec/native.js'],
  lz4: ['codec/lz4.js', 'codec/native.js'],
  lz4hc: ['codec/lz4.js', 'codec/native.js'],
  zlib: ['codec/zlib.js', 'codec/native.js'],
  bzip2: ['codec/bzip2.js'],
  zstd: ['codec/zstd.js'],
}
const FRAMING_MODULES = ['codec/block-compressor.js', 'codec/compression.js']
const DICTIONARY_MODULES = ['recompress/dictionary.js', 'table/compression-dict.js', 'codec/zdict.js']

function codecFingerprints(runJs) {
  const dist = join(dirname(dirname(runJs)), 'dist')
  const hashOf = (modules) => {
    const h = createHash('sha256')
    for (const m of modules) h.update(m).update(readFileSync(join(dist, m)))
    return h.digest('hex').slice(0, 12)
  }
  const memo = new Map()
  return (s) => {
    const modules = [
      ...(CODEC_MODULES[s.type] ?? [`codec/${s.type}.js`]),
      ...(s.type === 'none' ? [] : FRAMING_MODULES),
      ...(s.dict === 'none' ? [] : DICTIONARY_MODULES),
    ]
    const k = modules.join()
    if (!memo.has(k)) memo.set(k, hashOf(modules))
    return memo.get(k)
  }
}

/**
 * recompress runs that cover `settings` exactly: recompress evaluates the cross product of its
 * flags, so settings are grouped by (type, checksum, level set) with their dictionary modes, and
 * the level-less codecs (none, snappy, lz4 at their defaults) share one run.
 */
function recompressRuns(settings) {
  const levelSets = new Map() // type/checksum/dict -> Set of levels
  for (const s of settings) {
    const k = `${s.type}/${s.checksum}/${s.dict}`
    if (!levelSets.has(k)) levelSets.set(k, { type: s.type, checksum: s.checksum, dict: s.dict, levels: new Set() })
    levelSets.get(k).levels.add(s.level === null ? 'default' : String(s.level))
  }
  const runs = new Map() // type/checksum/levels -> run
  for (const g of levelSets.values()) {
    const levels = [...g.levels].join(',')
    const k = `${g.type}/${g.checksum}/${levels}`
    if (!runs.has(k)) runs.set(k, { types: [g.type], checksum: g.checksum, levels, dicts: [] })
    runs.get(k).dicts.push(g.dict)
  }
  // zstd without --levels would mean its seven default levels, so only other codecs go level-less.
  const levelless = [...runs.values()].filter((r) => r.types[0] !== 'zstd' && r.levels === 'default' && !r.checksum && r.dicts.join() === 'none')
  const rest = [...runs.values()].filter((r) => !levelless.includes(r))
  const out = rest.map((r) => ['--types', r.types[0], '--levels', r.levels, '--dict', r.dicts.join(','), '--checksum', r.checksum ? 'on' : 'off'])
  if (levelless.length) out.push(['--types', levelless.map((r) => r.types[0]).join(','), '--dict', 'none', '--checksum', 'off'])
  return out
}

/**
 * Per live file, Map settingKey -> { dataBytes, dictBytes } for every setting (computing what the
 * cache lacks), plus the stored data bytes. Cache: one JSON per file, keyed by name, size, mtime
 * and the dictionary options; results accumulate across runs with different matrices, each with the
 * fingerprint of the code that computed it (codecFingerprints), and are recomputed when that changes.
 */
function exhaustive(runJs, files, settings, o) {
  const dir = recompressCacheDir(dirname(files[0].path))
  mkdirSync(dir, { recursive: true })
  const totalBytes = files.reduce((n, f) => n + f.size, 0)
  const t0 = performance.now()
  let computedSeconds = 0
  let doneBytes = 0
  const out = new Map()
  const fingerprint = codecFingerprints(runJs)
  for (const [i, f] of files.entries()) {
    const dictTag = `${DICT_OPTIONS.maxDictBytes}-${DICT_OPTIONS.trainBytes}-${DICT_OPTIONS.maxDictBufferBytes}`
    const cacheFile = join(dir, `${f.name}-${f.size}-${f.mtimeMs}-dict${dictTag}.json`)
    const cache = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : { file: f.name, stored: null, results: {} }
    const missing = settings.filter((s) => cache.results[keyOf(s)]?.codec !== fingerprint(s))
    for (const runArgs of recompressRuns(missing)) {
      const args = [
        'recompress',
        f.path,
        '--json',
        '--jobs',
        String(o.jobs),
        '--max-dict-bytes',
        String(DICT_OPTIONS.maxDictBytes),
        '--train-bytes',
        String(DICT_OPTIONS.trainBytes),
        '--max-dict-buffer-bytes',
        String(DICT_OPTIONS.maxDictBufferBytes),
        ...runArgs,
      ]
      const t = performance.now()
      const r = spawnSync(runJs, args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
      if (r.status !== 0) throw new Error(`sstkit ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.trim().slice(0, 500)}`)
      const report = JSON.parse(r.stdout)
      computedSeconds += (performance.now() - t) / 1000
      cache.stored = {
        dataBytes: report.stored.dataBytes,
        dictBytes: report.stored.dictBytes,
        blocks: report.stored.blocks,
        uncompressedBytes: report.stored.uncompressedBytes,
      }
      for (const res of report.results) {
        if (res.autoSkip !== null) continue
        cache.results[keyOf(res)] = {
          codec: fingerprint(res),
          dataBytes: res.dataBytes,
          dictBytes: res.dictBytes,
          uncompressedBytes: res.uncompressedBytes,
          blocksRejected: res.blocksRejected,
        }
      }
      writeFileSync(cacheFile, JSON.stringify(cache) + '\n')
    }
    doneBytes += f.size
    if (missing.length) {
      const elapsed = (performance.now() - t0) / 1000
      log(
        `exhaustive: ${i + 1}/${files.length} ${f.columnFamily} L${f.level} ${f.name} (${(f.size / 1e6).toFixed(0)} MB): ${missing.length} settings; ${elapsed.toFixed(0)} s so far, ~${((elapsed / doneBytes) * (totalBytes - doneBytes)).toFixed(0)} s to go`,
      )
    }
    for (const s of settings) if (cache.results[keyOf(s)]?.codec !== fingerprint(s)) throw new Error(`recompress did not evaluate ${labelOf(s)} for ${f.name}`)
    out.set(f.name, cache)
  }
  return { perFile: out, computedSeconds }
}

// ---- advise ---------------------------------------------------------------------------------

/** One run of `sstkit advise DB --json`: wall time (around the spawn), peak RSS (GNU time %M). */
function runAdvise(runJs, dir, o) {
  const args = ['advise', dir, '--json']
  if (o.timeBudget) args.push('--time-budget', o.timeBudget)
  if (o.seed !== null) args.push('--seed', String(o.seed))
  if (o.adviseJobs) args.push('--jobs', String(o.adviseJobs))
  if (o.comeTrue || o.comeTrueFull) args.push('--write-options', `${dir}.advised-OPTIONS`)
  const rssFile = join(tmpdir(), `sstkit-bench-advise-time.${process.pid}`)
  const useTime = existsSync(GNU_TIME)
  if (!useTime) log(`warning: ${GNU_TIME} not found (apt-get install -y time): peak RSS will not be measured`)
  // The binary itself, as users run it: its shebang sets the V8 flags sstkit starts with.
  const [cmd, argv] = useTime ? [GNU_TIME, ['-o', rssFile, '-f', '%e %M', runJs, ...args]] : [runJs, args]
  log(`running sstkit ${args.join(' ')} ...`)
  const t0 = performance.now()
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] })
  const wallSeconds = (performance.now() - t0) / 1000
  if (r.error) throw r.error
  // 0: ok, 1: a finding (advice still printed); anything else is a failure.
  if (r.status !== 0 && r.status !== 1) throw new Error(`sstkit ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().slice(0, 1000)}`)
  let peakRssMB = null
  if (useTime) {
    const line = readFileSync(rssFile, 'utf8').trim().split('\n').pop()
    rmSync(rssFile, { force: true })
    peakRssMB = Number(line.split(' ')[1]) / 1024
  }
  let advice
  try {
    advice = JSON.parse(r.stdout)
  } catch {
    throw new Error(`sstkit ${args.join(' ')} printed no JSON (exit ${r.status}): ${r.stderr.trim().slice(0, 1000)}`)
  }
  if (advice.error || !Array.isArray(advice.columnFamilies)) {
    throw new Error(`sstkit ${args.join(' ')} failed (exit ${r.status}): ${advice.error?.message ?? 'no columnFamilies in its JSON'}`)
  }
  return { advice, wallSeconds, peakRssMB, exitCode: r.status, stderr: r.stderr.trim(), argv: args }
}

/**
 * --come-true-full: the advice applied by real RocksDB's full compaction. A copy of the database (a real copy: RocksDB
 * opening it may write), the advised OPTIONS file as its newest, `ldb --try_load_options compact`
 * per column family (a full compaction: every byte rewritten to the bottommost level under
 * bottommost_compression), then per column family the data and dictionary bytes of its table files
 * against the projection of the bottommost level's recommended setting summed over every level
 * (intervals combined as independent), as advise's matrix gives them.
 */
async function comeTrueFull(runJs, dir, advice, optionsFile) {
  if (!existsSync(optionsFile)) throw new Error(`--come-true-full: no ${optionsFile} (the OPTIONS file advise wrote)`)
  warnUnflushedWal(await unflushedWal(runJs, dir))
  const dist = join(dirname(dirname(runJs)), 'dist')
  const { openTable } = await import(pathToFileURL(join(dist, 'table/reader.js')).href)
  const copyRoot = mkdtempSync(join(dirname(dir), '.sstkit-bench-come-true-'))
  const copy = join(copyRoot, 'db')
  try {
    log(`come-true: copying ${dir} ...`)
    const cp = spawnSync('cp', ['-r', dir, copy], { stdio: 'inherit' })
    if (cp.status !== 0) throw new Error('cp failed')
    // A database created with error_if_exists=true keeps it in its OPTIONS files: an open of the copy needs false.
    writeFileSync(join(copy, 'OPTIONS-999999'), readFileSync(optionsFile, 'utf8').replace('error_if_exists=true', 'error_if_exists=false'))
    const t0 = performance.now()
    for (const cf of advice.columnFamilies) {
      log(`come-true: ldb compact ${cf.name} ...`)
      const r = spawnSync(LDB, [`--db=${copy}`, '--try_load_options', ...(cf.name === 'default' ? [] : [`--column_family=${cf.name}`]), 'compact'], {
        encoding: 'utf8',
      })
      if (r.status !== 0) throw new Error(`ldb compact ${cf.name} failed: ${(r.stdout + r.stderr).trim().slice(0, 500)}`)
    }
    const compactSeconds = (performance.now() - t0) / 1000
    const written = new Map()
    for (const name of readdirSync(copy).filter((n) => n.endsWith('.sst'))) {
      const t = openTable(join(copy, name))
      try {
        const cf = String(t.properties.known.get('rocksdb.column.family.name'))
        const dict = t.dictionary()?.length ?? 0
        written.set(cf, (written.get(cf) ?? 0) + Number(t.properties.known.get('rocksdb.data.size')) + (dict > 0 ? dict + 5 : 0))
      } finally {
        t.close()
      }
    }
    const rows = advice.columnFamilies.map((cf) => {
      const levels = cf.levels.filter((l) => l.dataBlocks > 0)
      const bottom = levels.find((l) => l.bottommost) ?? levels[levels.length - 1]
      const label = bottom.recommended.estimate.setting.label
      let estimate = 0
      let variance = 0
      let missing = 0
      for (const l of levels) {
        const m = l.matrix.find((e) => e.setting.label === label) ?? (l.today?.setting.label === label ? l.today : null)
        if (!m) {
          missing++
          continue
        }
        estimate += m.bytes.estimate
        const half = (m.bytes.high - m.bytes.low) / 2 / 1.959964
        variance += half * half
      }
      const half = 1.959964 * Math.sqrt(variance)
      const real = written.get(cf.name) ?? 0
      // A full compaction drops what upper levels overwrite: where they hold overwrites of the bottommost's keys,
      // what it writes is the bottommost level's data under the setting.
      const own = bottom.matrix.find((e) => e.setting.label === label) ?? (bottom.today?.setting.label === label ? bottom.today : null)
      const bottomOnly = own ? { estimate: own.bytes.estimate, low: own.bytes.low, high: own.bytes.high, error: real / own.bytes.estimate - 1 } : null
      return {
        bottomOnly,
        columnFamily: cf.name,
        setting: label,
        written: real,
        projected: { estimate, low: estimate - half, high: estimate + half },
        error: real / estimate - 1,
        inside: real >= estimate - half && real <= estimate + half,
        levelsWithoutIt: missing,
      }
    })
    return { mode: 'full', compactSeconds, rows }
  } finally {
    rmSync(copyRoot, { recursive: true, force: true })
  }
}

/**
 * The WAL files that hold writes no column family has flushed: a live `NNNNNN.log` at or past the
 * smallest log number the MANIFEST keeps for a column family, and not empty. RocksDB replays them
 * into L0 when it opens the copy, so L0 then holds more than advise saw; the come-true says so.
 */
async function unflushedWal(runJs, dir) {
  const dist = join(dirname(dirname(runJs)), 'dist')
  const { openDatabase } = await import(pathToFileURL(join(dist, 'db/database.js')).href)
  const db = openDatabase(dir)
  const keep = Math.min(...db.columnFamilies.map((cf) => cf.logNumber))
  const wal = []
  for (const name of readdirSync(dir)) {
    const m = /^(\d+)\.log$/.exec(name)
    if (!m || Number(m[1]) < keep) continue
    const size = statSync(join(dir, name)).size
    if (size > 0) wal.push({ name, size })
  }
  return wal
}

function warnUnflushedWal(wal) {
  if (wal.length === 0) return
  const bytes = wal.reduce((a, w) => a + w.size, 0)
  log(
    `come-true: WARNING the WAL holds unflushed writes (${wal.map((w) => w.name).join(', ')}, ${bytes} bytes): RocksDB replays them into L0 when it opens the copy, so L0 is compared with more data than advise saw (flush the database first for an exact L0)`,
  )
}

/**
 * --come-true: the advice applied by real RocksDB level by level. A copy of the database (table files
 * hard-linked: RocksDB never changes one, and deletes only the copy's links; everything else copied,
 * as RocksDB writes a new MANIFEST, OPTIONS and LOG), every table file rewritten on its own level
 * under the advised OPTIONS file (test/fixtures/level-rewriter.cc), then per level the data and
 * dictionary bytes RocksDB wrote against the projection of the setting advise recommended for it.
 */
async function comeTrueLevels(runJs, dir, advice, optionsFile) {
  if (!existsSync(optionsFile)) throw new Error(`--come-true: no ${optionsFile} (the OPTIONS file advise wrote)`)
  warnUnflushedWal(await unflushedWal(runJs, dir))
  const dist = join(dirname(dirname(runJs)), 'dist')
  const { openTable } = await import(pathToFileURL(join(dist, 'table/reader.js')).href)
  levelRewriterBinary()
  const copyRoot = mkdtempSync(join(dirname(dir), '.sstkit-bench-come-true-'))
  const copy = join(copyRoot, 'db')
  try {
    mkdirSync(copy)
    for (const name of readdirSync(dir)) {
      if (name === 'LOCK') continue
      if (name.endsWith('.sst')) linkSync(join(dir, name), join(copy, name))
      else copyFileSync(join(dir, name), join(copy, name))
    }
    log('come-true: rewriting every level in place with real RocksDB ...')
    const t0 = performance.now()
    const rewritten = rewriteLevels(copy, optionsFile)
    const rewriteSeconds = (performance.now() - t0) / 1000
    const rows = compareLevels(advice, measureLevels(copy, rewritten, openTable))
    return { mode: 'levels', rewriteSeconds, rows }
  } finally {
    rmSync(copyRoot, { recursive: true, force: true })
  }
}

function comeTrueLevelLines(c) {
  const out = [
    `come-true per level (every table file rewritten on its own level by RocksDB 7.8.3 under the advised OPTIONS file, ${c.rewriteSeconds.toFixed(0)} s);`,
    `  bytes: data blocks and dictionary blocks with their trailers, what a level's projection counts (exact interval: ±${(100 * EXACT_TOLERANCE).toFixed(2)}%)`,
  ]
  const w = [18, 26, 9, 14, 29, 14, 9, 8]
  const row = (cells) => cells.map((c, i) => (i < 2 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join(' ')
  out.push(row(['  level', 'setting', 'files', 'projected', '95% interval', 'RocksDB', 'dev.', 'inside']))
  for (const r of c.rows) {
    const files = r.files ? `${r.files.before}>${r.files.after}` : '-'
    if (!r.projected || r.written === null) {
      out.push(row([`  ${r.columnFamily} L${r.level}`, r.setting ?? '-', files, '-', 'no projection', r.written ?? '-', '', 'NO']))
      continue
    }
    const interval = `[${r.projected.low.toFixed(0)}, ${r.projected.high.toFixed(0)}]`
    out.push(
      row([
        `  ${r.columnFamily} L${r.level}`,
        r.setting,
        files,
        r.projected.estimate.toFixed(0),
        interval,
        r.written,
        pct(r.deviation),
        r.inside ? 'yes' : 'NO',
      ]),
    )
  }
  const inside = c.rows.filter((r) => r.inside).length
  out.push(`  ${inside} of ${c.rows.length} levels inside`)
  return out
}

function comeTrueLines(c) {
  if (c.mode === 'levels') return comeTrueLevelLines(c)
  const out = [`come-true (ldb --try_load_options compact with the advised OPTIONS file, ${c.compactSeconds.toFixed(0)} s):`]
  for (const r of c.rows)
    out.push(
      `  ${r.columnFamily.padEnd(10)} ${r.setting.padEnd(24)} written ${r.written} B, projected ${r.projected.estimate.toFixed(0)} B [${r.projected.low.toFixed(0)}, ${r.projected.high.toFixed(0)}] (${pct(r.error)}, ${r.inside ? 'inside' : 'OUTSIDE'} the interval${r.levelsWithoutIt ? `; ${r.levelsWithoutIt} level(s) did not evaluate it` : ''})`,
    )
  for (const r of c.rows)
    if (r.bottomOnly)
      out.push(
        `  ${r.columnFamily.padEnd(10)} the bottommost level alone: projected ${r.bottomOnly.estimate.toFixed(0)} B [${r.bottomOnly.low.toFixed(0)}, ${r.bottomOnly.high.toFixed(0)}] (${pct(r.bottomOnly.error)})`,
      )
  out.push('  (a full compaction also drops overwritten keys and re-cuts files and their dictionaries: the projection assumes the same blocks;')
  out.push("  where the upper levels hold overwrites of the bottommost level's keys, what it writes is the bottommost level alone)")
  return out
}

/** --come-true / --come-true-full: the advice applied by real RocksDB (with --advice: the OPTIONS file that run wrote). */
async function applied(runJs, dir, advice, o) {
  const optionsFile = o.advisedOptions ?? `${dir}.advised-OPTIONS`
  if (o.advice && !o.advisedOptions && (o.comeTrue || o.comeTrueFull))
    log(`come-true: applying ${optionsFile}, assumed to be what the saved advice's run wrote (--advised-options to name it)`)
  return {
    levels: o.comeTrue ? await comeTrueLevels(runJs, dir, advice, optionsFile) : null,
    full: o.comeTrueFull ? await comeTrueFull(runJs, dir, advice, optionsFile) : null,
  }
}

/** --advice FILE: an advice printed earlier; nothing timed. */
function savedAdvice(file) {
  const advice = JSON.parse(readFileSync(file, 'utf8'))
  if (!Array.isArray(advice.columnFamilies)) throw new Error(`${file}: not the JSON of sstkit advise (no columnFamilies)`)
  return { advice, wallSeconds: null, peakRssMB: null, exitCode: null, stderr: '', argv: ['(saved)', file] }
}

// ---- comparison -----------------------------------------------------------------------------

/** Per (column family, level): advise's level, its files, and per setting exhaustive vs estimate. */
function compare(advice, files, perFile, o) {
  const levels = []
  for (const cf of advice.columnFamilies) {
    for (const l of cf.levels) {
      // advise's own file list when its JSON has one, else the live files RocksDB lists.
      const mine = Array.isArray(l.filePaths)
        ? files.filter((f) => l.filePaths.some((p) => p === f.path || p.endsWith(`/${f.name}`)))
        : files.filter((f) => f.columnFamily === cf.name && f.level === l.level)
      const storedData = mine.reduce((n, f) => n + perFile.get(f.name).stored.dataBytes, 0)
      const rows = evaluated(l).map((e) => {
        if (!comparable(e.setting, o)) return { setting: labelOf(e.setting), key: keyOf(e.setting), compared: false, estimate: e.bytes }
        const exhaustiveBytes = mine.reduce((n, f) => {
          const r = perFile.get(f.name).results[keyOf(e.setting)]
          return n + r.dataBytes + r.dictBytes
        }, 0)
        // null: advise made no estimate for this level (e.g. its time budget ran out first).
        if (e.bytes.estimate === null)
          return {
            setting: labelOf(e.setting),
            key: keyOf(e.setting),
            compared: true,
            exhaustive: exhaustiveBytes,
            estimate: e.bytes,
            error: null,
            inside: false,
          }
        const error = exhaustiveBytes > 0 ? e.bytes.estimate / exhaustiveBytes - 1 : 0
        return {
          setting: labelOf(e.setting),
          key: keyOf(e.setting),
          compared: true,
          exhaustive: exhaustiveBytes,
          estimate: e.bytes,
          error,
          z: standardError(e.bytes, exhaustiveBytes),
          inside: exhaustiveBytes >= e.bytes.low && exhaustiveBytes <= e.bytes.high,
        }
      })
      // Today's setting recompressed must give back the bytes real RocksDB wrote: a check of the oracle itself.
      const todayKey = l.today ? keyOf(l.today.setting) : null
      const todayRow = rows.find((r) => r.key === todayKey && r.compared)
      // (A cache from before the stored dictionary bytes were recorded leaves the check out.)
      const storedDicts = mine.map((f) => perFile.get(f.name).stored.dictBytes)
      const storedBytes = storedDicts.some((d) => d === undefined) ? null : storedData + storedDicts.reduce((a, b) => a + b, 0)
      levels.push({
        columnFamily: cf.name,
        level: l.level,
        files: mine.length,
        fileBytes: mine.reduce((n, f) => n + f.size, 0),
        storedDataBytes: storedData,
        todayCheck:
          todayRow && storedBytes !== null
            ? { setting: todayRow.setting, exhaustive: todayRow.exhaustive, stored: storedBytes, error: todayRow.exhaustive / storedBytes - 1 }
            : null,
        advise: {
          files: l.files,
          fileBytes: l.fileBytes,
          dataBytes: l.dataBytes,
          sample: l.sample,
          recommended: l.recommended?.estimate?.setting?.label ?? null,
        },
        rows,
      })
    }
  }
  return levels
}

/**
 * The error in units of the interval's standard error (half-width / 1.96), null for an exact
 * (zero-width) interval. Pooled over levels and seeds, an unbiased estimator with a right
 * interval gives mean 0 and spread 1: a mean away from 0 is a bias, a spread above 1 too narrow
 * an interval.
 */
function standardError(interval, truth) {
  const se = (interval.high - interval.low) / 2 / 1.959964
  return se > 0 && Number.isFinite(se) ? (interval.estimate - truth) / se : null
}

/** Mean and standard deviation of the standardized errors of these rows. */
function zSummary(rows) {
  const z = rows.map((r) => r.z).filter((x) => x !== null && x !== undefined)
  if (z.length < 2) return null
  const mean = z.reduce((a, b) => a + b, 0) / z.length
  const sd = Math.sqrt(z.reduce((a, b) => a + (b - mean) ** 2, 0) / (z.length - 1))
  return { count: z.length, mean, sd }
}

function targets(run, levels, o) {
  const rows = levels.flatMap((l) => l.rows.filter((r) => r.compared).map((r) => ({ ...r, where: `${l.columnFamily} L${l.level}` })))
  const estimated = rows.filter((r) => r.error !== null)
  const missing = rows.length - estimated.length
  const worst = estimated.reduce((w, r) => (!w || Math.abs(r.error) > Math.abs(w.error) ? r : w), null)
  const outside = rows.filter((r) => !r.inside)
  const shapeMismatch = levels.filter((l) => l.advise.files !== l.files || l.advise.fileBytes !== l.fileBytes || l.advise.dataBytes !== l.storedDataBytes)
  return [
    {
      target: `advise wall time <= ${TARGETS.wallSeconds} s`,
      pass: run.wallSeconds !== null && run.wallSeconds <= TARGETS.wallSeconds,
      detail: run.wallSeconds === null ? 'not measured (--advice)' : `${run.wallSeconds.toFixed(1)} s`,
    },
    {
      target: `every per-level estimate within ${TARGETS.relativeError * 100}% of exhaustive`,
      pass: rows.length > 0 && missing === 0 && Math.abs(worst.error) <= TARGETS.relativeError,
      detail: [
        worst
          ? `worst ${pct(worst.error)} at ${worst.where} ${worst.setting}; ${estimated.filter((r) => Math.abs(r.error) > TARGETS.relativeError).length} of ${rows.length} beyond 1%`
          : 'nothing estimated',
        missing ? `${missing} of ${rows.length} without an estimate` : null,
      ]
        .filter(Boolean)
        .join('; '),
    },
    {
      target: "every exhaustive result inside its estimate's interval",
      pass: rows.length > 0 && outside.length === 0,
      detail: `${rows.length - outside.length} of ${rows.length} inside${outside.length ? `; e.g. ${outside[0].where} ${outside[0].setting}` : ''}`,
    },
    {
      target: `advise peak RSS <= ${TARGETS.rssMB} MB`,
      pass: run.peakRssMB !== null && run.peakRssMB <= TARGETS.rssMB,
      detail: run.peakRssMB === null ? `not measured (${o.advice ? '--advice' : 'no GNU time'})` : `${run.peakRssMB.toFixed(0)} MB`,
    },
    {
      target: 'advise sees the live files RocksDB lists (files, bytes, stored data bytes per level)',
      pass: shapeMismatch.length === 0,
      detail: shapeMismatch.length
        ? shapeMismatch
            .map(
              (l) =>
                `${l.columnFamily} L${l.level}: advise ${l.advise.files} files ${l.advise.fileBytes} B data ${l.advise.dataBytes} B, RocksDB ${l.files} files ${l.fileBytes} B data ${l.storedDataBytes} B`,
            )
            .join('; ')
        : 'all levels match',
    },
  ]
}

// ---- coverage over seeds --------------------------------------------------------------------

/**
 * --coverage-seeds: advise again with each seed, compared with the same exhaustive results. Per
 * seed and pooled: the pairs (level, setting) whose interval holds the exhaustive result, and the
 * levels where every setting's does (a level's settings share one sample, so they miss together).
 */
function coverageOverSeeds(runJs, dir, files, perFile, o, firstLevels) {
  if (o.coverageSeeds.length === 0) return null
  const tally = (levels) => {
    // Only estimates count: a level the time budget left unsampled has no interval to cover anything.
    const estimated = levels.filter((l) => l.rows.some((r) => r.compared && r.error !== null))
    const rows = estimated.flatMap((l) => l.rows.filter((r) => r.compared && r.error !== null))
    return {
      pairs: rows.length,
      inside: rows.filter((r) => r.inside).length,
      levels: estimated.length,
      unestimated: levels.length - estimated.length,
      levelsAllInside: estimated.filter((l) => l.rows.every((r) => !r.compared || r.error === null || r.inside)).length,
      exact: rows.filter((r) => r.estimate.low === r.estimate.high).length,
      zRows: rows,
      missed: estimated.filter((l) => l.rows.some((r) => r.compared && r.error !== null && !r.inside)).map((l) => `${l.columnFamily} L${l.level}`),
    }
  }
  const perSeed = [{ seed: o.seed ?? 0, ...tally(firstLevels) }]
  for (const seed of o.coverageSeeds) {
    const run = runAdvise(runJs, dir, { ...o, seed })
    perSeed.push({ seed, wallSeconds: run.wallSeconds, ...tally(compare(run.advice, files, perFile, o)) })
  }
  const sum = (k) => perSeed.reduce((a, x) => a + x[k], 0)
  const z = zSummary(perSeed.flatMap((s) => s.zRows))
  for (const s of perSeed) {
    s.z = zSummary(s.zRows)
    delete s.zRows
  }
  return { perSeed, pairs: sum('pairs'), inside: sum('inside'), exact: sum('exact'), levels: sum('levels'), levelsAllInside: sum('levelsAllInside'), z }
}

function coverageLines(c) {
  const out = ['interval coverage over seeds (95% intervals):']
  for (const s of c.perSeed)
    out.push(
      `  seed ${String(s.seed).padStart(3)}: ${s.inside} of ${s.pairs} pairs inside, ${s.levelsAllInside} of ${s.levels} levels wholly inside${s.missed.length ? ` (missed: ${s.missed.join(', ')})` : ''}${s.unestimated ? `; ${s.unestimated} level(s) without an estimate` : ''}`,
    )
  out.push(
    `  pooled:   ${c.inside} of ${c.pairs} pairs (${((100 * c.inside) / c.pairs).toFixed(1)}%; ${c.exact} exact), ${c.levelsAllInside} of ${c.levels} levels (${((100 * c.levelsAllInside) / c.levels).toFixed(1)}%)`,
  )
  if (c.z)
    out.push(
      `  standardized errors (error / standard error, ${c.z.count} inexact pairs): mean ${c.z.mean.toFixed(2)}, sd ${c.z.sd.toFixed(2)} (unbiased and calibrated: 0 and 1)`,
    )
  return out
}

// ---- simulation over seeds on one level -----------------------------------------------------

/**
 * --simulate: the estimator's calibration on one level of this database, without running advise
 * again. Every data block is compressed once under each of the level's settings without a
 * dictionary (a dictionary would need each file's own, and its blocks compress like the others'
 * once it is built), with sstkit's own modules from dist/; then for each seed, advise's own draws
 * (sampling.js) pick the blocks at the given share, the certainty stratum (each file's last block)
 * is counted exactly, and advise's estimator (estimate.js) gives the estimate and interval, set
 * against the level's true total.
 */
async function simulateLevel(runJs, files, advice, o) {
  const [cf, levelText] = o.simulate.trim().split(/\s+/)
  const level = Number(String(levelText).replace(/^L/i, ''))
  const dist = join(dirname(dirname(runJs)), 'dist')
  const load = (m) => import(pathToFileURL(join(dist, m)).href)
  const [{ openTable }, { BlockCompressor, attemptsCompression, keepsCompressed }, { defaultFormatVersion }, settingsMod, sampling, estimate, population] =
    await Promise.all(
      [
        'table/reader.js',
        'codec/block-compressor.js',
        'rewrite/rewrite.js',
        'decide/settings.js',
        'advise/sampling.js',
        'decide/estimate.js',
        'advise/population.js',
      ].map(load),
    )
  const lvl = advice.columnFamilies.find((c) => c.name === cf)?.levels.find((l) => l.level === level)
  if (!lvl) throw new Error(`--simulate: advise's JSON has no ${cf} L${level}`)
  const settings = evaluated(lvl)
    .map((e) => e.setting)
    .filter((x) => x.dict === 'none')
  const rate = o.simRate ?? lvl.sample.share
  const perKb = advice.evaluation.maxCompressedBytesPerKb
  const mine = files.filter((f) => f.columnFamily === cf && f.level === level)
  log(`simulate ${cf} L${level}: ${mine.length} files, ${settings.length} settings, share ${(100 * rate).toFixed(2)}%, ${o.simSeeds} seeds ...`)
  const blocks = [] // { key, offset, certain, s, c[] }
  for (const f of mine) {
    const number = Number(f.name.replace(/\.sst$/, ''))
    const described = population.describeFile(f.path, number, null)
    const certain = new Set(described.certain)
    const table = openTable(f.path)
    try {
      const fv = defaultFormatVersion(table.formatVersion)
      const codecs = settings.map((x) =>
        x.type === 'none' ? null : new BlockCompressor({ compressionType: settingsMod.typeByte(x), level: x.level, zstdChecksum: x.checksum }, fv),
      )
      for (const ref of table.dataBlocks()) {
        const raw = table.readDataBlock(ref.handle)
        const c = codecs.map((codec) => {
          if (!codec || !attemptsCompression(raw.length, perKb)) return raw.length + 5
          const framed = codec.compress(raw).length
          return keepsCompressed(framed, raw.length, perKb) ? framed + 5 : raw.length + 5
        })
        blocks.push({ key: described.key, offset: ref.handle.offset, certain: certain.has(ref.handle.offset), s: ref.handle.size + 5, c })
      }
    } finally {
      table.close()
    }
  }
  const N = blocks.length
  const S = blocks.reduce((a, b) => a + b.s, 0)
  const truth = settings.map((_, k) => blocks.reduce((a, b) => a + b.c[k], 0))
  const perSetting = settings.map(() => ({ inside: 0, z: [] }))
  for (let seed = 0; seed < o.simSeeds; seed++) {
    const sums = settings.map(() => estimate.emptySums())
    for (const b of blocks) {
      if (!b.certain && !(sampling.blockDraw(seed, b.key, b.offset) < rate)) continue
      const add = b.certain ? estimate.addCertainBlock : estimate.addBlock
      for (let k = 0; k < settings.length; k++) add(sums[k], b.c[k], b.s, 0, false)
    }
    settings.forEach((_, k) => {
      const e = estimate.regressionEstimate(sums[k], S, N, rate)
      if (e.low <= truth[k] && truth[k] <= e.high) perSetting[k].inside++
      const z = standardError(e, truth[k])
      if (z !== null) perSetting[k].z.push({ z })
    })
  }
  return {
    columnFamily: cf,
    level,
    blocks: N,
    rate,
    seeds: o.simSeeds,
    settings: settings.map((x, k) => ({ setting: labelOf(x), truth: truth[k], coverage: perSetting[k].inside / o.simSeeds, z: zSummary(perSetting[k].z) })),
  }
}

function simulationLines(sim) {
  const out = [
    `simulation: ${sim.columnFamily} L${sim.level}, ${sim.blocks} blocks, share ${(100 * sim.rate).toFixed(2)}%, ${sim.seeds} seeds of advise's draws (95% intervals):`,
  ]
  for (const x of sim.settings)
    out.push(
      `  ${x.setting.padEnd(20)} coverage ${(100 * x.coverage).toFixed(1).padStart(5)}%  standardized error mean ${x.z ? x.z.mean.toFixed(2).padStart(5) : '    -'}, sd ${x.z ? x.z.sd.toFixed(2) : '-'}`,
    )
  return out
}

// ---- printing -------------------------------------------------------------------------------

const pct = (x) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(2)}%`
const mb = (b) => (b / 1e6).toFixed(1)

function shapeLines(files) {
  const out = []
  const groups = new Map()
  for (const f of files) {
    const k = `${f.columnFamily} L${f.level}`
    const g = groups.get(k) ?? { files: 0, bytes: 0 }
    g.files++
    g.bytes += f.size
    groups.set(k, g)
  }
  for (const [k, g] of groups) out.push(`  ${k.padEnd(12)} ${String(g.files).padStart(3)} files ${mb(g.bytes).padStart(9)} MB`)
  out.push(`  ${'total'.padEnd(12)} ${String(files.length).padStart(3)} files ${mb(files.reduce((n, f) => n + f.size, 0)).padStart(9)} MB`)
  return out
}

function levelLines(l) {
  const out = []
  const s = l.advise.sample
  const sampled = s ? `${s.blocks} blocks (share ${(100 * s.share).toFixed(2)}%), stopped: ${s.stopped}` : '?'
  out.push(`${l.columnFamily} L${l.level}: ${l.files} files, ${mb(l.fileBytes)} MB; sampled ${sampled}; recommended ${l.advise.recommended ?? '?'}`)
  if (l.todayCheck)
    out.push(
      `  today's ${l.todayCheck.setting} recompressed: ${l.todayCheck.exhaustive} B against the ${l.todayCheck.stored} B real RocksDB wrote (${pct(l.todayCheck.error)})`,
    )
  const w = [28, 14, 14, 27, 9, 7]
  const row = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join(' ')
  out.push(row(['  setting', 'exhaustive', 'estimate', '95% interval', 'error', 'inside']))
  for (const r of l.rows) {
    if (r.estimate.estimate === null) {
      out.push(row([`  ${r.setting}`, r.exhaustive ?? '-', '-', 'no estimate', '', r.compared ? 'NO' : '']))
      continue
    }
    const interval = `[${r.estimate.low.toFixed(0)}, ${r.estimate.high.toFixed(0)}]`
    if (!r.compared) out.push(row([`  ${r.setting}`, '-', r.estimate.estimate.toFixed(0), interval, 'n/c', '']))
    else out.push(row([`  ${r.setting}`, r.exhaustive, r.estimate.estimate.toFixed(0), interval, pct(r.error), r.inside ? 'yes' : 'NO']))
  }
  return out
}

// ---- main -----------------------------------------------------------------------------------

function newestMtime(dir) {
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs)
  }
  return newest
}

/** Rebuild dist/ when src/ is newer (or dist/ missing), as bench/inspect.mjs does. */
function ensureBuilt(build) {
  const stale = !existsSync(join(ROOT, 'dist', 'commands')) || newestMtime(join(ROOT, 'src')) > newestMtime(join(ROOT, 'dist'))
  if (!stale) return
  if (!build) return log('warning: dist/ looks older than src/ (run npm run build); measuring it anyway (--no-build)')
  log('dist/ is missing or older than src/: running npm run build ...')
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] })
  if (r.status !== 0) throw new Error('npm run build failed')
}

async function main() {
  const o = parseArgs(process.argv.slice(2))
  const runJs = o.sstkit ?? join(ROOT, 'bin', 'run.cjs')
  if (!o.sstkit) ensureBuilt(o.build)
  if (!existsSync(runJs)) throw new Error(`${runJs}: no such file`)
  const { dir, generation } = ensureDatabase(o)
  const files = liveFiles(dir)
  const shape = shapeLines(files)
  log(`database ${dir}:\n${shape.join('\n')}`)

  if (o.exhaustiveOnly) {
    const settings = (await defaultMatrix(runJs)).filter((s) => comparable(s, o))
    const ex = exhaustive(runJs, files, settings, o)
    log(`exhaustive cache filled for ${settings.length} settings (${ex.computedSeconds.toFixed(0)} s computed this run)`)
    return 0
  }

  const run = o.advice ? savedAdvice(o.advice) : runAdvise(runJs, dir, o)
  // Kept so that `--advice` can compare it again (e.g. after changing the bench's printing).
  if (!o.advice) writeFileSync(`${dir}.last-advice.json`, JSON.stringify(run.advice) + '\n')
  const settings = adviseSettings(run.advice)
  const compared = settings.filter((s) => comparable(s, o))
  const left = settings.filter((s) => !comparable(s, o))
  log(
    `advise: ${run.wallSeconds === null ? 'saved' : `${run.wallSeconds.toFixed(1)} s`}, ${settings.length} settings; exhaustive over ${compared.length}${left.length ? ` (left out, zstd level > ${o.maxExhaustiveLevel}: ${left.map(labelOf).join(', ')})` : ''}`,
  )
  if (o.noExhaustive) {
    const cameTrue = await applied(runJs, dir, run.advice, o)
    const wall = run.wallSeconds === null ? '-' : run.wallSeconds.toFixed(1)
    const out = [
      `database  ${dir}`,
      ...shape,
      '',
      `advise    ${run.argv.join(' ')}: ${wall} s wall, peak RSS ${run.peakRssMB === null ? '-' : run.peakRssMB.toFixed(0)} MB, exit ${run.exitCode ?? '-'}`,
    ]
    for (const c of [cameTrue.levels, cameTrue.full]) if (c) out.push('', ...comeTrueLines(c))
    if (o.json)
      process.stdout.write(
        JSON.stringify({ date: new Date().toISOString(), advise: { wallSeconds: run.wallSeconds, peakRssMB: run.peakRssMB }, comeTrue: cameTrue }, null, 2) +
          '\n',
      )
    else process.stdout.write(out.join('\n') + '\n')
    return 0
  }
  const ex = exhaustive(runJs, files, compared, o)
  const levels = compare(run.advice, files, ex.perFile, o)
  const checks = targets(run, levels, o)

  const coverage = coverageOverSeeds(runJs, dir, files, ex.perFile, o, levels)
  const simulation = o.simulate ? await simulateLevel(runJs, files, run.advice, o) : null
  const cameTrue = await applied(runJs, dir, run.advice, o)

  const result = {
    date: new Date().toISOString(),
    database: { dir, bytes: files.reduce((n, f) => n + f.size, 0), files: files.length, generationSeconds: generation?.seconds ?? null },
    sstkit: runJs,
    advise: { argv: run.argv, wallSeconds: run.wallSeconds, peakRssMB: run.peakRssMB, exitCode: run.exitCode, elapsedSec: run.advice.elapsedSec },
    exhaustive: { settings: compared.map(labelOf), leftOut: left.map(labelOf), computedSeconds: ex.computedSeconds, jobs: o.jobs },
    levels,
    targets: checks,
    coverage,
    simulation,
    comeTrue: cameTrue,
  }
  if (o.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else {
    const out = [`database  ${dir}${generation ? ` (generated in ${generation.seconds.toFixed(1)} s)` : ''}`, ...shape, '']
    const wall = run.wallSeconds === null ? '-' : run.wallSeconds.toFixed(1)
    out.push(
      `advise    ${run.argv.join(' ')}: ${wall} s wall, peak RSS ${run.peakRssMB === null ? '-' : run.peakRssMB.toFixed(0)} MB, exit ${run.exitCode ?? '-'}, advise's own elapsedSec ${run.advice.elapsedSec?.toFixed?.(1) ?? '-'}`,
    )
    out.push(
      `exhaustive recompress over ${compared.length} settings${ex.computedSeconds ? ` (${ex.computedSeconds.toFixed(0)} s computed this run)` : ' (cached)'}${left.length ? `; not compared (n/c): ${left.map(labelOf).join(', ')}` : ''}`,
    )
    out.push('')
    for (const l of levels) out.push(...levelLines(l), '')
    out.push('targets:')
    for (const c of checks) out.push(`  [${c.pass ? 'PASS' : 'FAIL'}] ${c.target} (${c.detail})`)
    if (coverage) out.push('', ...coverageLines(coverage))
    if (simulation) out.push('', ...simulationLines(simulation))
    for (const c of [cameTrue.levels, cameTrue.full]) if (c) out.push('', ...comeTrueLines(c))
    process.stdout.write(out.join('\n') + '\n')
  }
  return o.strict && checks.some((c) => !c.pass) ? 1 : 0
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (e) => {
    process.stderr.write(`advise bench: ${e.message}\n`)
    process.exitCode = 1
  },
)

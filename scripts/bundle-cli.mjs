// Bundle the CLI: oclif's core, every command and the init hook, from tsc's dist/ into a few
// ES modules in dist/bundle/, so that a command starts by compiling a handful of files instead
// of ~180 CommonJS and ES modules (bench/README.md, "Start-up": each step and its numbers).
// Run by `npm run build` after tsc; `oclif.commands` and `oclif.hooks` in package.json point here,
// and bin/run.cjs imports oclif's execute from dist/bundle/_oclif.js.
//
//   node scripts/bundle-cli.mjs            (META=FILE also writes esbuild's metafile to FILE)
//
// - Code splitting: each command is an entry, and what several share (oclif, the table reader)
//   is one chunk, so there is one oclif and one copy of each sstkit module at run time.
// - dist/ itself stays as tsc wrote it: the library (`sstkit`, `sstkit/reader`) and the worker
//   threads load it unbundled (a worker is its own isolate: it shares no module with the bundle).
// - Every output file is flat in dist/bundle/, so a module's `import.meta.url` is always that
//   directory: `new URL('./worker.js', import.meta.url)` is rewritten to point back at dist/.
//   Any other use of import.meta than the ones known to survive bundling fails the build.
// - Native addons, ink/react, echarts and typescript stay external (loaded by Node when a command
//   needs them); WebAssembly is base64 in the code. What oclif and sstkit load but props-like
//   commands never use is a stand-in that loads the real module on first use (LAZY_* below).
// - `props [--json] PATH...`, `verify [--jobs N] [--json] PATH...`, `scan [--hex] PATH...`,
//   recompress's common command lines and the `sst-dump` drop-in, which bin/run.cjs runs without
//   oclif, are one file each (`_props.cjs`, `_verify.cjs`, `_scan.cjs`, `_recompress.cjs`,
//   `_sst-dump.cjs`: builds without splitting): they share no module with the commands.
// - Source maps chain to src/*.ts (esbuild reads tsc's); bin/run.cjs turns them on for --debug.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire, isBuiltin } from 'node:module'
import { build } from 'esbuild'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const out = join(dist, 'bundle')

/**
 * Left to Node at run time: native addons (a bundler cannot inline a .node file), and packages a
 * command loads only when it needs them (browse's UI, --report's charts; oclif's TypeScript support).
 */
const EXTERNAL = ['@node-rs/*', 'zstd-napi', 'zstd-napi/*', 'koffi', 'snappy', 'ink', 'react', 'react/*', 'echarts', 'typescript']

const OCLIF_ENTRY = 'sstkit-oclif-entry'

/**
 * Loaded on first use instead of when the bundle loads, through a stand-in (below):
 * - packages oclif requires when it loads but uses only for help, spinners, globbing (no
 *   manifest), config files or error rendering; the real one is required from oclif's own
 *   node_modules;
 * - Node built-ins that only some commands use (loading each costs its compile at start-up, ~2 ms
 *   each for these when measured under a V8 flag that took Node's code cache away; bin/run.cjs sets
 *   none now, so less).
 * Correct if one of them is used on a path not foreseen (it is then loaded as without a bundle);
 * it only saves their compile and load on the paths that do not.
 */
const LAZY_PACKAGES = [
  'semver',
  'tinyglobby',
  'ejs',
  'cli-spinners',
  'ansi-escapes',
  'wordwrap',
  'lilconfig',
  'clean-stack',
  'indent-string',
  'wrap-ansi',
  'string-width',
  'widest-line',
  'minimatch',
]
const LAZY_BUILTINS = ['node:zlib', 'node:worker_threads', 'node:child_process', 'node:readline', 'node:perf_hooks', 'node:crypto']
/** oclif's command sort (config/plugin.js) without ICU for plain ids: see its onLoad below. */
const LOCALE_FREE_SORT = '(a, b) => (/^[a-z-]*$/.test(a.id) && /^[a-z-]*$/.test(b.id) ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.id.localeCompare(b.id))'
const LAZY_NAMESPACE = 'sstkit-lazy'
const BUILTIN_NAMESPACE = 'sstkit-builtin'
const WSL_NAMESPACE = 'sstkit-wsl'
const buildRequire = createRequire(import.meta.url)
const oclifRequire = createRequire(buildRequire.resolve('@oclif/core/package.json'))

/**
 * A CommonJS stand-in for `name` with the real module's shape (function or object, __esModule
 * or not) that requires it the first time anything is read off it. For a built-in, its export
 * names are known here, so that an ES module importing it (esbuild copies the names into a
 * namespace of getters) does not load it either.
 */
function lazyStandIn(name) {
  const builtin = name.startsWith('node:')
  const real = builtin ? buildRequire(name) : oclifRequire(name)
  const shape = { callable: typeof real === 'function', esModule: real.__esModule === true, keys: builtin ? Object.keys(real) : null }
  const loader = builtin
    ? `require(${JSON.stringify(name)})`
    : `require('node:module').createRequire(require.resolve('@oclif/core/package.json'))(${JSON.stringify(name)})`
  return `const shape = ${JSON.stringify(shape)}
let real
const load = () => (real ??= ${loader})
const target = shape.callable ? () => {} : {}
const descriptor = (t, k) => {
  if (shape.keys) return shape.keys.includes(k) ? { configurable: true, enumerable: true, writable: true, value: undefined } : undefined
  const d = Reflect.getOwnPropertyDescriptor(load(), k)
  // A proxy may only report a non-configurable property that its target has too.
  if (d && !d.configurable && !Reflect.getOwnPropertyDescriptor(t, k)) Reflect.defineProperty(t, k, d)
  return d
}
module.exports = new Proxy(target, {
  get: (_, k) => (k === '__esModule' ? shape.esModule || undefined : Reflect.get(load(), k)),
  has: (_, k) => Reflect.has(load(), k),
  ownKeys: () => shape.keys ?? Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: descriptor,
  apply: (_, self, args) => Reflect.apply(load(), self, args),
  construct: (_, args) => Reflect.construct(load(), args),
})
`
}

const commands = readdirSync(join(dist, 'commands')).filter((f) => f.endsWith('.js'))
const entryPoints = [
  ...commands.map((f) => ({ in: join(dist, 'commands', f), out: f.replace(/\.js$/, '') })),
  { in: join(dist, 'sstdump', 'help-hook.js'), out: '_help-hook' },
  { in: OCLIF_ENTRY, out: '_oclif' },
]

/**
 * Worker threads the commands start, each bundled into one file of its own: a worker is a new
 * isolate that loads every module it imports again (~40 files of dist/ for these: 25-50 ms of
 * the worker's start against ~7 ms for one file; measured on commit 565c1a2, 2026-12-01). Every worker of
 * the commands is here: a URL the bundle rewrites to dist/ would load those files one by one.
 */
const WORKERS = [
  { in: join(dist, 'verify', 'worker.js'), out: '_verify-worker' },
  { in: join(dist, 'sstdump', 'worker.js'), out: '_sst-dump-worker' },
  { in: join(dist, 'scan', 'worker.js'), out: '_scan-worker' },
  { in: join(dist, 'recompress', 'worker.js'), out: '_recompress-worker' },
  { in: join(dist, 'advise', 'worker.js'), out: '_advise-worker' },
]

/**
 * `new URL('./x.js', import.meta.url)` as written in dist/a/b.js, pointed from dist/bundle/ at
 * dist/a/x.js, or at its bundle for a worker of WORKERS.
 */
function rewriteUrls(file, source) {
  const rewritten = source.replace(/new URL\((['"])(\.{1,2}\/[^'"]+)\1, import\.meta\.url\)/g, (_, q, rel) => {
    const worker = WORKERS.find((w) => w.in === resolve(dirname(file), rel))
    const target = worker ? `./${worker.out}.js` : relative(out, resolve(dirname(file), rel))
    return `new URL(${q}${target.startsWith('.') ? target : `./${target}`}${q}, import.meta.url)`
  })
  const rest = rewritten
    .replace(/new URL\((['"])[^'"]+\1, import\.meta\.url\)/g, '')
    .replace(/createRequire\(import\.meta\.url\)/g, '')
    .replace(/import\.meta\.url\.endsWith\(/g, '')
  if (rest.includes('import.meta')) throw new Error(`bundle-cli: ${relative(root, file)} uses import.meta in a way bundling would change`)
  return rewritten
}

const distModules = {
  name: 'sstkit-dist',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^${OCLIF_ENTRY}$`) }, () => ({ path: OCLIF_ENTRY, namespace: OCLIF_ENTRY }))
    // bin/run.cjs's entry: oclif's execute, from the same oclif chunk the commands use.
    b.onLoad({ filter: /.*/, namespace: OCLIF_ENTRY }, () => ({
      contents: "export { execute } from '@oclif/core'",
      resolveDir: root,
      loader: 'js',
    }))
    b.onResolve({ filter: new RegExp(`^(${LAZY_PACKAGES.join('|')})$`) }, (args) =>
      args.importer.includes('/node_modules/@oclif/core/') ? { path: args.path, namespace: LAZY_NAMESPACE } : undefined,
    )
    // The stand-in's own require of the built-in is Node's.
    b.onResolve({ filter: new RegExp(`^(${LAZY_BUILTINS.join('|')})$`) }, (args) =>
      args.namespace === LAZY_NAMESPACE ? { path: args.path, external: true } : { path: args.path, namespace: LAZY_NAMESPACE },
    )
    b.onLoad({ filter: /.*/, namespace: LAZY_NAMESPACE }, (args) => ({ contents: lazyStandIn(args.path), loader: 'js' }))
    // oclif asks wsl-utils only whether this is WSL (its platform name) and, on Windows, for
    // PowerShell's path; loading wsl-utils runs child_process and more. isWsl comes from is-wsl,
    // the package wsl-utils re-exports; the rest of wsl-utils loads when PowerShell is asked for.
    b.onResolve({ filter: /^wsl-utils$/ }, (args) =>
      args.importer.includes('/node_modules/@oclif/core/') ? { path: oclifRequire.resolve('wsl-utils'), namespace: WSL_NAMESPACE } : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: WSL_NAMESPACE }, (args) => ({
      contents: "export { default as isWsl } from 'is-wsl'\nexport const powerShellPath = async () => (await import('wsl-utils')).powerShellPath()",
      resolveDir: dirname(args.path),
      loader: 'js',
    }))
    // An ES module import of a built-in makes Node build the module's whole export list, reading
    // every lazy getter on it (node:process's `report`, node:util's parseArgs and MIMEType,
    // node:fs's streams...). Required as CommonJS, a built-in is only what it is. A CommonJS
    // bundle (the plain paths) requires its built-ins already: wrapped, each import of one was
    // copied into a namespace of getters at load (node:fs's ~100 names, six times over).
    const commonJs = b.initialOptions.format === 'cjs'
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
      !commonJs && args.kind === 'import-statement' && isBuiltin(args.path) ? { path: args.path, namespace: BUILTIN_NAMESPACE } : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: BUILTIN_NAMESPACE }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)})`, loader: 'js' }))
    // oclif sorts the commands with localeCompare, whose first call loads ICU's collation
    // (~8 ms); for ids of lower-case letters and hyphens, code-unit order is the same order
    // (compared for every pair of two-letter ids and 10^6 random ones), so only other ids
    // reach localeCompare.
    b.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      const sort = '.sort((a, b) => a.id.localeCompare(b.id))'
      if (!source.includes(sort)) throw new Error(`bundle-cli: ${args.path} no longer sorts commands as expected: see LOCALE_FREE_SORT`)
      return { contents: source.replace(sort, `.sort(${LOCALE_FREE_SORT})`), loader: 'js' }
    })
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(`${dist}/`)) return undefined
      const source = readFileSync(args.path, 'utf8')
      return { contents: source.includes('import.meta') ? rewriteUrls(args.path, source) : source, loader: 'js' }
    })
  },
}

rmSync(out, { recursive: true, force: true })
const options = {
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: '_chunk-[hash]',
  external: EXTERNAL,
  plugins: [distModules],
  // oclif and its dependencies are CommonJS: their require() of Node's built-ins needs a real require.
  banner: { js: "import { createRequire as __sstkitRequire } from 'node:module'\nconst require = __sstkitRequire(import.meta.url)" },
  sourcemap: 'linked',
  sourcesContent: false,
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: !!process.env.META,
}
const result = await build({ ...options, entryPoints, splitting: true })
// `props [--json] PATH...`, `verify [--jobs N] [--json] PATH...`, `scan [--hex] PATH...` and the drop-in without oclif
// (bin/run.cjs): one file each, sharing no chunk with the commands, since a module costs its
// resolution (~0.5 ms each) on top of its compile (the drop-in's 20 chunks and the modules its
// check and scan import: ~0.04 s of CPU of a 64 MB check).
// They are CommonJS (`.cjs`), which bin/run.cjs compiles as a vm.Script with V8's cached data of
// the code a run of it compiled (written below): Node 20 has no compile cache for modules, and
// compiling them was ~20 ms of CPU of props' ~30 after node's start (commit 3ce6428, 2026-12-06).
const plainOptions = {
  ...options,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  banner: { js: "const __sstkitMetaUrl = require('node:url').pathToFileURL(__filename).href" },
  define: { 'import.meta.url': '__sstkitMetaUrl' },
}
const props = await build({ ...plainOptions, entryPoints: [{ in: join(dist, 'entry', 'props-main.js'), out: '_props' }] })
const verify = await build({ ...plainOptions, entryPoints: [{ in: join(dist, 'entry', 'verify-main.js'), out: '_verify' }] })
const sstDump = await build({ ...plainOptions, entryPoints: [{ in: join(dist, 'sstdump', 'main.js'), out: '_sst-dump' }] })
const scan = await build({ ...plainOptions, entryPoints: [{ in: join(dist, 'entry', 'scan-main.js'), out: '_scan' }] })
const recompress = await build({ ...plainOptions, entryPoints: [{ in: join(dist, 'entry', 'recompress-main.js'), out: '_recompress' }] })
// bin/run.cjs's start of a worker before the command loads (src/util/early-workers.ts): it imports nothing else.
await build({ ...options, entryPoints: [{ in: join(dist, 'util', 'early-workers.js'), out: '_early-workers' }] })
// The sizes from which verify and the drop-in start a worker, for bin/run.cjs to start it before the
// command loads: read from their owners (src/verify/verify.ts, src/sstdump/sequential.ts), not copied.
const { WORKERS_FROM_BYTES } = await import(join(dist, 'verify', 'verify.js'))
const { PARALLEL_THRESHOLD, CHECK_PARALLEL_THRESHOLD } = await import(join(dist, 'sstdump', 'sequential.js'))
const sizes = { verify: WORKERS_FROM_BYTES, sstDump: PARALLEL_THRESHOLD, sstDumpCheck: CHECK_PARALLEL_THRESHOLD }
writeFileSync(join(out, '_early-worker-sizes.json'), `${JSON.stringify(sizes)}\n`)
// The workers: one file each, no splitting (a worker shares no module with the thread that starts it).
const workers = await build({ ...options, entryPoints: WORKERS })
// Each plain entry's code cache: what a run on the sample file compiled (bin/run.cjs writes it at
// exit under SSTKIT_WRITE_CODE_CACHE). A cache another Node rejects costs nothing but the compile.
const sample = join(root, 'examples', 'sample.sst')
for (const args of [
  ['props', sample],
  ['verify', sample],
  ['scan', sample],
  ['sst-dump', `--file=${sample}`, '--command=scan'],
  ['recompress', sample, '--levels', '3', '--dict', 'none,finalize', '--checksum', 'off'],
]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run.cjs'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SSTKIT_WRITE_CODE_CACHE: '1' },
  })
  if (r.status !== 0) throw new Error(`bundle-cli: \`sstkit ${args[0]}\` of the sample failed (exit ${r.status}): ${String(r.stderr).trim()}`)
}
if (process.env.META) writeFileSync(process.env.META, JSON.stringify(result.metafile))
if (process.env.META) writeFileSync(`${process.env.META}.workers.json`, JSON.stringify(workers.metafile))
if (process.env.META) writeFileSync(`${process.env.META}.props.json`, JSON.stringify(props.metafile))
if (process.env.META) writeFileSync(`${process.env.META}.verify.json`, JSON.stringify(verify.metafile))
if (process.env.META) writeFileSync(`${process.env.META}.sst-dump.json`, JSON.stringify(sstDump.metafile))
if (process.env.META) writeFileSync(`${process.env.META}.scan.json`, JSON.stringify(scan.metafile))
if (process.env.META) writeFileSync(`${process.env.META}.recompress.json`, JSON.stringify(recompress.metafile))

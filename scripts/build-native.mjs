// Compile native/*.c into dist/native/*.so, and native/addon/*.c into Node-API addons
// dist/native/*.node (against the running node's headers), with the system C compiler ($CC, else cc).
// Run by `npm run build`. Where no compiler works, sstkit still works: the code that
// loads a library (src/verify/native.ts) falls back to its WebAssembly path, so
// this says so in one line and exits 0. `--require` makes a failure an error (CI).
//
//   node scripts/build-native.mjs [--require]
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs'
import { dirname, join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const src = join(root, 'native')
const out = join(root, 'dist', 'native')
const require = process.argv.includes('--require')
const cc = process.env.CC || 'cc'
mkdirSync(out, { recursive: true })

// codec-kernel.c compresses zstd with zstd-napi's own zstd (its static library and headers), so that its bytes are
// the ones src/codec/zstd.ts gives; its symbols stay local to the kernel.
const zstdNapi = join(root, 'node_modules', 'zstd-napi')
const zstdArchive = join(zstdNapi, 'build', 'Release', 'zstd.a')
const extra = {
  'codec-kernel.c': existsSync(zstdArchive)
    ? { before: ['-I', join(zstdNapi, 'deps', 'zstd', 'lib')], after: [zstdArchive, '-Wl,--exclude-libs,ALL', '-lpthread'] }
    : { missing: `no ${zstdArchive.replace(`${dirname(zstdNapi)}/`, '')}` },
}
// Node-API's headers ship with node (<prefix>/include/node); the addon's napi_* symbols resolve
// against the node binary that loads it.
const nodeHeaders = join(dirname(process.execPath), '..', 'include', 'node')
const noHeaders = existsSync(join(nodeHeaders, 'node_api.h')) ? null : `no node_api.h in ${nodeHeaders}`
extra['addon/sstkit.c'] = noHeaders ? { missing: noHeaders } : { before: ['-I', nodeHeaders] }
// The codec kernel's addon: codec-kernel.c's zstd as above, and node's headers.
const kernel = extra['codec-kernel.c']
extra['addon/codec.c'] =
  noHeaders || kernel.missing ? { missing: noHeaders ?? kernel.missing } : { before: ['-I', nodeHeaders, ...kernel.before], after: kernel.after }
const sources = [
  ...readdirSync(src).filter((f) => f.endsWith('.c')),
  ...readdirSync(join(src, 'addon'))
    .filter((f) => f.endsWith('.c'))
    .map((f) => `addon/${f}`),
]
let failed = 0
for (const name of sources) {
  const from = join(src, name)
  // An addon is optional: without it the kernel loads through koffi (src/codec/addon.ts).
  const addon = name.startsWith('addon/')
  const to = join(out, name.replace(/^addon\//, '').replace(/\.c$/, addon ? '.node' : '.so'))
  // Into a temporary name, then renamed: a process loading the library never sees half a file.
  const tmp = `${to}.${process.pid}.tmp`
  const more = extra[name] ?? {}
  if (more.missing) {
    if (!addon) failed++
    console.error(`native/${name} not built (${more.missing}): ${addon ? 'the kernel loads through koffi' : 'sstkit uses its JavaScript path instead'}`)
    continue
  }
  const args = [
    '-O2',
    '-std=c11',
    '-D_GNU_SOURCE',
    '-Wall',
    '-Wextra',
    '-fPIC',
    '-shared',
    ...(more.before ?? []),
    '-o',
    tmp,
    from,
    ...(more.after ?? []),
    '-ldl',
  ]
  const r = spawnSync(cc, args, { encoding: 'utf8' })
  if (r.status === 0) {
    renameSync(tmp, to)
    console.log(`wrote ${to.replace(root, '')}`)
  } else {
    failed++
    const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n')[0]
    console.error(`native/${name} not built (${why}): ${addon ? 'the kernel loads through koffi' : 'sstkit uses its portable path instead'}`)
  }
}
process.exit(failed && require ? 1 : 0)

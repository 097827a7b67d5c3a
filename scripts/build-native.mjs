// Compile native/*.c into dist/native/*.so with the system C compiler ($CC, else cc).
// Run by `npm run build`. Where no compiler works, sstkit still works: the code that
// loads a library (src/verify/native.ts) falls back to its WebAssembly path, so
// this says so in one line and exits 0. `--require` makes a failure an error (CI).
//
//   node scripts/build-native.mjs [--require]
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const src = join(root, 'native')
const out = join(root, 'dist', 'native')
const require = process.argv.includes('--require')
const cc = process.env.CC || 'cc'
mkdirSync(out, { recursive: true })
let failed = 0
for (const name of readdirSync(src).filter((f) => f.endsWith('.c'))) {
  const from = join(src, name)
  const to = join(out, name.replace(/\.c$/, '.so'))
  // Into a temporary name, then renamed: a process loading the library never sees half a file.
  const tmp = `${to}.${process.pid}.tmp`
  const r = spawnSync(cc, ['-O2', '-std=c11', '-D_GNU_SOURCE', '-Wall', '-Wextra', '-fPIC', '-shared', '-o', tmp, from, '-ldl'], { encoding: 'utf8' })
  if (r.status === 0) {
    renameSync(tmp, to)
    console.log(`wrote ${to.replace(root, '')}`)
  } else {
    failed++
    const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n')[0]
    console.error(`native/${name} not built (${why}): sstkit uses its WebAssembly path instead`)
  }
}
process.exit(failed && require ? 1 : 0)

#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=1
// A small young generation (1 MiB semi-spaces instead of 16) keeps peak RSS of long scans
// well under 150 MB, scan worker threads included, with no measured slowdown; see bench/README.md.
//
// Start-up (each step measured in bench/README.md, "Start-up"):
// - `--version` needs nothing but package.json: it is answered before oclif loads, with
//   oclif's own answer (config.userAgent) byte for byte.
// - oclif checks package.json's `engines.node` with semver, 47 modules of the ~160 a command
//   loads: the same check is done here for the `>=X.Y[.Z]` form package.json uses.
// - Node >= 22.1 caches compiled modules on disk (module.enableCompileCache; absent in Node 20).
import { readFileSync } from 'node:fs'
import module from 'node:module'
import { arch, release } from 'node:os'

const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

if (process.argv[2] === '--version' && !/microsoft/i.test(release())) {
  // WSL is left to oclif, which names the platform "wsl" there.
  const cpu = arch() === 'ia32' ? 'x86' : arch()
  process.stdout.write(`${pjson.name}/${pjson.version} ${process.platform}-${cpu} node-${process.version}\n`)
} else {
  checkEngine(pjson.engines?.node)
  module.enableCompileCache?.()
  const { execute } = await import('@oclif/core')
  await execute({ dir: import.meta.url })
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

/** glibc malloc's thresholds as util/malloc.ts sets them, each in a process of its own. */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { MALLOC_MMAP_BYTES, MALLOC_TRIM_BYTES } from '../../src/util/malloc.js'
import { assertFreshBuild, ROOT } from '../helpers.js'

/**
 * The number `body` writes to stdout, run in a process of its own with `env`, after the built
 * util/malloc.js's calls and libc's malloc, free and mallinfo2 (through koffi) are in scope.
 */
function measureInProcess(body: string, env: NodeJS.ProcessEnv): number {
  const code = `import { createRequire } from 'node:module'
import { allocateInArenasBelow, fixMallocThresholds } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/util/malloc.js')).href)}
const koffi = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('koffi')
const libc = koffi.load('libc.so.6')
const malloc = libc.func('void *malloc(size_t)')
const free = libc.func('void free(void *)')
const Info = koffi.struct({ arena: 'size_t', ordblks: 'size_t', smblks: 'size_t', hblks: 'size_t', hblkhd: 'size_t', usmblks: 'size_t', fsmblks: 'size_t', uordblks: 'size_t', fordblks: 'size_t', keepcost: 'size_t' })
const mallinfo2 = libc.func('mallinfo2', Info, [])
${body}`
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env }))
}

/** This process's environment without the shebang's thresholds (glibc's own dynamic ones), and `extra`. */
function withoutShebangThresholds(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.MALLOC_MMAP_THRESHOLD_
  delete env.MALLOC_TRIM_THRESHOLD_
  return { ...env, ...extra }
}

describe('malloc thresholds', () => {
  it('fixMallocThresholds gives a block over its threshold pages of its own even after a larger one was freed (glibc would raise the threshold), through the addon and through koffi', () => {
    assertFreshBuild()
    // The bytes malloc mmapped for a 4 MiB block taken after a 16 MiB one was freed.
    const mapped = (fix: boolean, throughKoffi = false) =>
      measureInProcess(
        `if (${fix}) fixMallocThresholds()
free(malloc(16 << 20))
const before = mallinfo2().hblkhd
const p = malloc(4 << 20)
process.stdout.write(String(mallinfo2().hblkhd - before))
free(p)`,
        throughKoffi ? { ...process.env, SSTKIT_NO_ADDON: '1' } : process.env,
      )
    expect(mapped(false)).toBe(0)
    expect(mapped(true)).toBeGreaterThanOrEqual(4 << 20)
    expect(mapped(true, true)).toBeGreaterThanOrEqual(4 << 20)
  })

  it("fixMallocThresholds keeps up to MALLOC_TRIM_BYTES free at the arena's top (glibc would give back all over 128 KiB) and gives back beyond it", () => {
    assertFreshBuild()
    // The free bytes at the main arena's top (mallinfo2's keepcost) after `mib` MiB of 64 KiB blocks are freed.
    const keptAfterFreeing = (mib: number, fix: boolean) =>
      measureInProcess(
        `if (${fix}) fixMallocThresholds()
const blocks = []
for (let i = 0; i < ${mib} * 16; i++) blocks.push(malloc(64 << 10))
for (const p of blocks.reverse()) free(p)
process.stdout.write(String(mallinfo2().keepcost))`,
        withoutShebangThresholds(),
      )
    expect(keptAfterFreeing(1, false)).toBeLessThan(256 << 10)
    expect(keptAfterFreeing(1, true)).toBeGreaterThanOrEqual(768 << 10)
    expect(keptAfterFreeing(8, true)).toBeLessThan(MALLOC_TRIM_BYTES + (256 << 10))
  })

  it("bin/run.cjs's and bin/run.js's shebangs give glibc the thresholds fixMallocThresholds sets", () => {
    for (const bin of ['run.cjs', 'run.js']) {
      const shebang = readFileSync(join(ROOT, 'bin', bin), 'utf8').split('\n')[0]
      expect(shebang).toBe(`#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_BYTES} MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_BYTES} node`)
    }
  })

  it("allocateInArenasBelow raises a fixed mmap threshold (a 300 KiB block then comes from the arena) and leaves glibc's own policy alone", () => {
    assertFreshBuild()
    // Whether a 300 KiB block taken after allocateInArenasBelow(512 KiB) got pages of its own.
    const mapped = (env: Record<string, string>) =>
      measureInProcess(
        `allocateInArenasBelow(512 << 10)
const before = mallinfo2().hblks
const p = malloc(300 << 10)
process.stdout.write(String(mallinfo2().hblks - before))
free(p)`,
        withoutShebangThresholds(env),
      )
    expect(mapped({ MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_BYTES), MALLOC_TRIM_THRESHOLD_: String(MALLOC_TRIM_BYTES) })).toBe(0)
    // Not fixed: glibc maps the first such block (and raises its threshold once it is freed).
    expect(mapped({})).toBe(1)
  })
})

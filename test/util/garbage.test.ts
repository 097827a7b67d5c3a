/** collectGarbage frees dead ArrayBuffers now, which V8 alone would keep until 64 MiB of them piled up. */
import { setTimeout as sleep } from 'node:timers/promises'
import { runInNewContext } from 'node:vm'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { collectGarbage, collectHeapGarbage, collectYoungGarbage } from '../../src/util/garbage.js'
import { assertFreshBuild, ROOT } from '../helpers.js'

/**
 * 48 MiB of buffers (below V8's own 64 MiB trigger), kept alive over several
 * young-generation collections so that they move to the old generation, as a
 * worker's read windows and blocks do, then dropped.
 */
function makeOldGarbage(): number {
  const held: Uint8Array[] = []
  for (let i = 0; i < 48; i++) held.push(new Uint8Array(1 << 20))
  let churn: object[] = []
  for (let i = 0; i < 2_000_000; i++) {
    if (i % 1000 === 0) churn = []
    churn.push({ i })
  }
  return held.reduce((a, b) => a + b.length, churn.length)
}

/**
 * V8 frees dead buffers' memory on a background thread after the collection: wait for it (up to
 * 5 s: on a loaded machine that thread may not run for a second).
 */
async function buffersAfterSweep(): Promise<number> {
  for (let i = 0; i < 250; i++) {
    await sleep(20)
    if (process.memoryUsage().arrayBuffers < 16 << 20) break
  }
  return process.memoryUsage().arrayBuffers
}

describe('collectGarbage', () => {
  it('frees dead buffers above the threshold', async () => {
    collectGarbage(0)
    await buffersAfterSweep()
    const before = process.memoryUsage().arrayBuffers
    expect(makeOldGarbage()).toBeGreaterThanOrEqual(48 << 20)
    expect(process.memoryUsage().arrayBuffers).toBeGreaterThan(before + (40 << 20))
    expect(collectGarbage()).toBe(true)
    expect(await buffersAfterSweep()).toBeLessThan(before + (8 << 20))
  })

  it('does nothing below the threshold', () => {
    expect(collectGarbage(Number.MAX_SAFE_INTEGER)).toBe(false)
  })
})

/**
 * 24 MiB of 16 KiB buffers, held until the caller drops them all at once, as a codec's outputs per
 * block die (young when collected). Held, not dead as made: a scavenge of V8's own in between (a
 * loaded machine's test run met one) would free them before collectYoungGarbage looks.
 */
function makeYoungBuffers(): Uint8Array[] {
  const held: Uint8Array[] = []
  for (let i = 0; i < 1536; i++) held.push(new Uint8Array(16 << 10))
  return held
}

describe('collectYoungGarbage', () => {
  it('frees buffers that died young with a young-generation collection', async () => {
    collectGarbage(0)
    await buffersAfterSweep()
    // V8 takes the bytes a collection freed off its count of external memory only when this thread
    // finishes that collection's sweeping (at a later collection, or a buffer's allocation): the
    // 48 MiB the test above freed were still counted after they were freed, then came off the
    // 24 MiB made below (seen in loaded runs of the whole suite). A second collection finishes it.
    collectGarbage(-1)
    await buffersAfterSweep()
    const before = process.memoryUsage().arrayBuffers
    collectYoungGarbage(Number.MAX_SAFE_INTEGER) // a look, not a collection: it sees the live buffers
    const held = makeYoungBuffers()
    const grown = process.memoryUsage().arrayBuffers
    const made = held.reduce((a, b) => a + b.length, 0)
    held.length = 0
    // Nothing but the look's own few bytes allocated between the drop and the look: no collection of V8's own frees them first.
    const collected = collectYoungGarbage(4 << 20)
    expect(made).toBe(24 << 20)
    expect(grown).toBeGreaterThan(before + (16 << 20))
    expect(collected).toBe(true)
    expect(await buffersAfterSweep()).toBeLessThan(before + (8 << 20))
  })

  it('does nothing below the threshold', () => {
    expect(collectYoungGarbage(Number.MAX_SAFE_INTEGER)).toBe(false)
  })
})

describe('collectHeapGarbage', () => {
  it("collects once this thread's heap grew by the bar since its last collection, not before", () => {
    collectHeapGarbage(0)
    expect(collectHeapGarbage(Number.MAX_SAFE_INTEGER)).toBe(false)
    // ~40 MB of objects that live past a few scavenges (in the old generation), then die.
    let held: number[][] = []
    for (let i = 0; i < 400_000; i++) held.push([i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7])
    expect(held.length).toBe(400_000)
    held = []
    expect(collectHeapGarbage(16 << 20)).toBe(true)
    expect(collectHeapGarbage(16 << 20)).toBe(false)
  })
})

/**
 * The main thread's new space (both semi-spaces) after churn V8 would grow it for, in a process of
 * its own (V8's flags are the process's), from the build: `prelude` runs first, with garbage.js's
 * exports imported as `garbage`; `around` wraps the churn (a function of it), for a start to wait on.
 */
function newSpaceAfter(prelude: string, around = (churn: string) => churn): number {
  const code = `import * as garbage from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/util/garbage.js')).href)}
import { getHeapSpaceStatistics } from 'node:v8'
${prelude}
${around(CHURN)}`
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }))
}

/** Short-lived objects, some surviving a few scavenges; then the new space's size is printed. */
const CHURN = `let keep = []
for (let i = 0; i < 3e6; i++) { const o = { a: i, b: [i, i + 1] }; if (i % 50 === 0) keep.push(o); if (keep.length > 20000) keep = [] }
process.stdout.write(String(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size + keep.length * 0))`

describe('V8 flags', () => {
  it('collecting puts --expose-gc back: a flag left set would cost every later built-in its code cache', () => {
    expect(collectGarbage(-1)).toBe(true)
    expect(runInNewContext('typeof gc')).toBe(typeof (globalThis as { gc?: unknown }).gc)
  })

  it("keepYoungGenerationSmall keeps this thread's young generation at its initial 1 MiB semi-spaces (V8 would grow them to 16 MiB)", () => {
    assertFreshBuild()
    const newSpace = (keep: boolean) => newSpaceAfter(`if (${keep}) garbage.keepYoungGenerationSmall()`)
    expect(newSpace(false)).toBeGreaterThan(2 << 20)
    expect(newSpace(true)).toBeLessThanOrEqual(2 << 20)
  })

  it('keepYoungGenerationSmall({ deferred: true }) sets no flag until reapplyGrowthFactor, so what loads before keeps the code cache', () => {
    assertFreshBuild()
    // The flag hash V8 checks code caches against is the process's: a flag set changes it (a worker then compiles from source).
    const newSpace = (apply: boolean) =>
      newSpaceAfter(`garbage.keepYoungGenerationSmall({ deferred: true })
if (${apply}) garbage.reapplyGrowthFactor()`)
    expect(newSpace(false)).toBeGreaterThan(2 << 20)
    expect(newSpace(true)).toBeLessThanOrEqual(2 << 20)
  })

  it("a worker's start puts V8's flags back: reapplyGrowthFactor keeps the young generation small after it", () => {
    assertFreshBuild()
    const newSpace = (again: boolean) =>
      newSpaceAfter(
        `import { Worker } from 'node:worker_threads'
garbage.keepYoungGenerationSmall()
const w = new Worker('setTimeout(() => {}, 1000)', { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 2 } })`,
        (churn) => `w.once('online', () => {
if (${again}) garbage.reapplyGrowthFactor()
${churn}
w.terminate()
})`,
      )
    expect(newSpace(false)).toBeGreaterThan(2 << 20)
    expect(newSpace(true)).toBeLessThanOrEqual(2 << 20)
  })
})

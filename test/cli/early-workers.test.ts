/**
 * Workers bin/run.cjs starts before the command loads (src/util/early-workers.ts): a pool adopts
 * one and it works as one it started itself; one nobody adopts keeps no process alive.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type * as EarlyModule from '../../src/util/early-workers.js'
import type * as VerifyModule from '../../src/verify/verify.js'
import { assertFreshBuild, fixturePath, ROOT, sstkit } from '../helpers.js'

assertFreshBuild()
const dist = (p: string) => join(ROOT, 'dist', p)
const { startEarlyWorker, earlyWorkersWaiting, EARLY_WORKER_LIMITS } = (await import(dist('util/early-workers.js'))) as typeof EarlyModule
const { verifyFile } = (await import(dist('verify/verify.js'))) as typeof VerifyModule
const { DEFAULT_LIMITS } = (await import(dist('util/worker-pool.js'))) as typeof import('../../src/util/worker-pool.js')

const dir = mkdtempSync(join(tmpdir(), 'sstkit-early-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('early workers', () => {
  it('get the limits the pool gives its own', () => {
    expect(EARLY_WORKER_LIMITS).toEqual(DEFAULT_LIMITS)
  })

  it('a verify pool adopts the one started early, which then checks chunks as a worker it started would', () => {
    const file = fixturePath('fv5-snappy')
    const serial = verifyFile(file, { jobs: 1 })
    startEarlyWorker(new URL('file://' + dist('verify/worker.js')))
    expect(earlyWorkersWaiting()).toBe(1)
    const stats = { chunks: 0, chunksByWorkers: 0 }
    const parallel = verifyFile(file, { jobs: 2, chunkBytes: 300, parallelThreshold: 0, awaitWorkers: true, stats })
    expect(earlyWorkersWaiting()).toBe(0)
    expect(parallel).toEqual(serial)
    expect(stats.chunksByWorkers).toBeGreaterThan(0)
  })

  it('one nobody adopts does not keep the process alive: a large file that is no SST is reported at once', () => {
    const junk = join(dir, 'junk-70mb.sst')
    writeFileSync(junk, Buffer.alloc(70 << 20, 7))
    const started = Date.now()
    const r = sstkit(['verify', junk])
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/junk-70mb\.sst/)
    expect(Date.now() - started).toBeLessThan(5000)
    const d = sstkit(['sst-dump', `--file=${junk}`, '--command=check'])
    expect(d.status).not.toBe(0)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

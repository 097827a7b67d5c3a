/**
 * The worker pool (src/util/worker-pool.ts) with small worker scripts written
 * here; they load the built pool from dist/ (npm test builds first).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type * as PoolModule from '../../src/util/worker-pool.js'
import { assertFreshBuild, ROOT } from '../helpers.js'

assertFreshBuild()
const poolUrl = pathToFileURL(join(ROOT, 'dist/util/worker-pool.js')).href
const { WorkerPool } = (await import(poolUrl)) as typeof PoolModule
const dir = mkdtempSync(join(tmpdir(), 'sstkit-pool-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function script(name: string, body: string): URL {
  const file = join(dir, name)
  writeFileSync(file, `import { poolWorker } from ${JSON.stringify(poolUrl)}\n${body}\n`)
  return pathToFileURL(file)
}

type Req = { kind: 'square'; n: number }
type Res = { kind: 'square'; n: number; square: number; thread: number }

const SQUARE = script(
  'square.mjs',
  `import { threadId } from 'node:worker_threads'
const side = poolWorker()
side.ready()
side.listen((m) => side.post({ kind: 'square', n: m.n, square: m.n * m.n * side.data.factor, thread: threadId }))`,
)

/** A worker that makes short-lived objects, some surviving a few scavenges, and answers with its new space's size (both semi-spaces). */
const CHURN = script(
  'churn.mjs',
  `import { getHeapSpaceStatistics } from 'node:v8'
const side = poolWorker()
side.ready()
side.listen(() => {
  let keep = []
  for (let i = 0; i < 3e6; i++) {
    const o = { a: i, b: [i, i + 1] }
    if (i % 50 === 0) keep.push(o)
    if (keep.length > 20000) keep = []
  }
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
  side.post({ kind: "size", bytes: space.space_size, kept: keep.length })
})`,
)

/** The new space a pool's worker ends with after CHURN. */
function churnedNewSpace(options?: PoolModule.WorkerPoolOptions): number {
  const pool = new WorkerPool<{ kind: 'churn' }, { kind: 'size'; bytes: number }>(CHURN, 1, null, options)
  let bytes = -1
  const deadline = Date.now() + 20_000
  while (!pool.slots[0].ready && Date.now() < deadline) pool.wait(() => {}, 50)
  pool.send(pool.slots[0], { kind: 'churn' })
  while (bytes < 0 && Date.now() < deadline) pool.wait((_s, m) => (bytes = m.bytes), 50)
  pool.close()
  return bytes
}

describe('WorkerPool', () => {
  it('workers say ready, answer through polling (wait blocks until they do), and close with the handshake', () => {
    const pool = new WorkerPool<Req, Res>(SQUARE, 2, { factor: 3 })
    const got: Res[] = []
    const take = (_s: unknown, m: Res) => got.push(m)
    const deadline = Date.now() + 10_000
    while (pool.slots.some((s) => !s.ready) && Date.now() < deadline) pool.wait(take, 50)
    expect(pool.slots.every((s) => s.ready)).toBe(true)
    for (const [i, s] of pool.slots.entries()) for (const n of [1, 2, 3]) pool.send(s, { kind: 'square', n: n + 10 * i })
    while (got.length < 6 && Date.now() < deadline) pool.wait(take, 50)
    expect(got.map((m) => [m.n, m.square]).sort((a, b) => a[0] - b[0])).toEqual([1, 2, 3, 11, 12, 13].map((n) => [n, 3 * n * n]))
    expect(new Set(got.map((m) => m.thread)).size).toBe(2)
    pool.close()
    expect(pool.slots.every((s) => s.dead && s.closed)).toBe(true)
    expect(pool.stragglers).toEqual([])
  })

  it('waitAsync lets the event loop run while it waits', async () => {
    const pool = new WorkerPool<Req, Res>(SQUARE, 1, { factor: 1 })
    let ticks = 0
    const timer = setInterval(() => ticks++, 1)
    const got: Res[] = []
    pool.send(pool.slots[0], { kind: 'square', n: 7 })
    const deadline = Date.now() + 10_000
    while (got.length === 0 && Date.now() < deadline) await pool.waitAsync((_s, m) => got.push(m), 50)
    clearInterval(timer)
    pool.close()
    expect(got[0].square).toBe(49)
    expect(ticks).toBeGreaterThan(0)
  })

  it('a worker that dies is reported once by exited(), with its error', async () => {
    const pool = new WorkerPool<Req, Res>(script('dies.mjs', `poolWorker()\nthrow new Error('cannot open the file')`), 1, null)
    const deadline = Date.now() + 10_000
    let gone: PoolModule.PoolSlot[] = []
    while (gone.length === 0 && Date.now() < deadline) {
      await pool.waitAsync(() => {}, 20)
      gone = pool.exited()
    }
    expect(gone).toHaveLength(1)
    expect(gone[0].dead).toBe(true)
    expect((gone[0].error as Error).message).toBe('cannot open the file')
    expect(pool.exited()).toEqual([])
    pool.close()
  })

  it("a worker's young generation is 1 MiB semi-spaces unless the caller sets its own limits (no V8 flag needed)", () => {
    // V8 would grow a worker's semi-spaces to 16 MiB under this churn (32 MiB of new space).
    expect(churnedNewSpace()).toBeLessThanOrEqual(2 << 20)
    expect(churnedNewSpace({ resourceLimits: { maxYoungGenerationSizeMb: 12 } })).toBeGreaterThan(2 << 20)
  })
})

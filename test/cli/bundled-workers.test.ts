/**
 * The worker threads the bundle starts (scripts/bundle-cli.mjs, WORKERS) are bundles of their
 * own: every worker URL in dist/bundle/ names a file that exists, and the bundled verify worker
 * answers a chunk as the unbundled one (and the main thread's summarizer) does.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type * as ChunkQueueModule from '../../src/util/chunk-queue.js'
import type * as PoolModule from '../../src/util/worker-pool.js'
import type * as ReaderModule from '../../src/table/reader.js'
import type * as ParallelModule from '../../src/verify/parallel.js'
import { assertFreshBuild, ROOT } from '../helpers.js'

assertFreshBuild()
const dist = (p: string) => join(ROOT, 'dist', p)
const bundle = dist('bundle')

describe('bundled workers', () => {
  it('every `new URL(..., import.meta.url)` of the bundle names a file that exists', () => {
    const urls = new Set<string>()
    // The plain paths' CommonJS bundles (.cjs) name their own URL __sstkitMetaUrl.
    for (const f of readdirSync(bundle).filter((n) => n.endsWith('.js') || n.endsWith('.cjs'))) {
      for (const m of readFileSync(join(bundle, f), 'utf8').matchAll(/new URL\("([^"]+)",(?:import\.meta\.url|__sstkitMetaUrl)\)/g)) urls.add(m[1])
    }
    expect([...urls]).toContain('./_verify-worker.js')
    expect([...urls]).toContain('./_sst-dump-worker.js')
    for (const w of ['scan', 'recompress', 'advise']) expect([...urls]).toContain(`./_${w}-worker.js`)
    for (const w of ['scan', 'recompress', 'advise']) expect([...urls]).toContain(`./_${w}-worker.js`)
    const names = new Set(readdirSync(bundle))
    for (const u of urls.values()) if (u.startsWith('./')) expect(names.has(u.slice(2)), u).toBe(true)
  })

  it('the bundled verify worker summarizes a chunk as the unbundled one and the main thread do', async () => {
    const { ChunkQueue } = (await import(dist('util/chunk-queue.js'))) as typeof ChunkQueueModule
    const { WorkerPool } = (await import(dist('util/worker-pool.js'))) as typeof PoolModule
    const { openTable } = (await import(dist('table/reader.js'))) as typeof ReaderModule
    const { BlockSummarizer } = (await import(dist('verify/parallel.js'))) as typeof ParallelModule
    const file = join(ROOT, 'test/fixtures/db-medium/000009.sst')
    const table = openTable(file, { verifyChecksums: false })
    const pairs: number[] = []
    for (const r of table.dataBlocks()) pairs.push(r.handle.offset, r.handle.size)
    const local = BlockSummarizer.create(table)
    expect(local).not.toBeNull()
    const expected = local!.summarize(Float64Array.from(pairs))
    table.close()
    expect(pairs.length / 2).toBeGreaterThan(10)

    const answer = async (url: URL) => {
      const queue = ChunkQueue.create(4)
      const pool = new WorkerPool<ParallelModule.VerifyWorkerRequest, ParallelModule.VerifyWorkerMessage>(url, 1, {
        path: file,
        maxBlockBytes: table.maxBlockBytes,
        queue: queue.buffer,
        queueSlots: queue.slots,
      })
      try {
        queue.publish(pairs)
        const got: { meta: Int32Array; keys: Uint8Array }[] = []
        const deadline = Date.now() + 30_000
        while (got.length === 0 && Date.now() < deadline) pool.wait((_s, m) => got.push(m), 100)
        return got[0] ?? null
      } finally {
        queue.close()
        pool.close()
      }
    }
    for (const url of [new URL('file://' + join(bundle, '_verify-worker.js')), new URL('file://' + dist('verify/worker.js'))]) {
      const got = await answer(url)
      expect(got, url.href).not.toBeNull()
      expect(Array.from(got!.meta), url.href).toEqual(Array.from(expected.meta))
      expect(Buffer.from(got!.keys).equals(Buffer.from(expected.keys)), url.href).toBe(true)
    }
  })
})

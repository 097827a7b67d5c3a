import { describe, expect, it } from 'vitest'
import { adviseWhileWriting } from './advise-live.js'

describe('sstkit advise on a database db_bench is writing and compacting', () => {
  it('exits 0 with advice three runs in a row, each naming the version it advised and what RocksDB changed meanwhile', async () => {
    const runs = await adviseWhileWriting(3, '3s', 60)
    // The writer moved the database on between runs: later runs advise later versions.
    const seqs = runs.map((a) => BigInt(a.source.version?.lastSequence ?? '0'))
    expect(seqs[2] > seqs[0]).toBe(true)
    // ...and under a run: flushes add files while it reads (deletions need a compaction to finish within the run).
    const changed = runs.map((a) => a.source.version?.changedDuringRun)
    expect(changed.some((c) => (c?.addedFiles ?? 0) + (c?.deletedFiles ?? 0) > 0)).toBe(true)
  })
})

import { describe, expect, it } from 'vitest'
import { adviseWhileWriting } from './advise-live.js'

describe('sstkit advise on a database db_bench is writing and compacting (longer)', () => {
  it('exits 0 with advice eight runs in a row of 5 s each, while the writer deletes most of each run`s files', { timeout: 300_000 }, async () => {
    const runs = await adviseWhileWriting(8, '5s', 240)
    expect(runs.filter((a) => (a.source.version?.changedDuringRun?.deletedFiles ?? 0) > 0).length).toBeGreaterThan(4)
  })
})

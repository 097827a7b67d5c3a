/**
 * A rewritten database read again beside a second read of its source (database.ts, unless
 * --no-verify): every table of the output found through its new MANIFEST, compared on worker
 * threads with the source table of the same number (db-verify.ts), then the blob files and logs
 * copied as they are, byte for byte.
 */
import { join } from 'node:path'
import { type DatabaseView, openDatabase, tableFileName } from '../db/database.js'
import { compareTables, type TablePair } from './db-verify.js'
import type { RewriteResult } from './rewrite.js'
import { RewriteThread } from './thread.js'

/** A table the rewrite wrote: its number and its source's path as the user named it. */
interface Job {
  fileNumber: number
  original: string
}

type Progress = (p: { filesDone: number; files: number; bytesDone: number; bytes: number; current: string }) => void

export interface DbVerification {
  tables: number
  entries: number
  rangeTombstones: number
  /** Blob index entries whose values were read from both databases' blob files. */
  blobValues: number
  /** Blob files and logs copied as they are, compared byte for byte. */
  filesCompared: number
  bytesCompared: number
}

/** A file copied as it is, to compare with its original (`prefix`: a log the source may still append to). */
export interface Copied {
  original: string
  copy: string
  label: string
  prefix: boolean
}

/**
 * The written directory read again, through its new MANIFEST, beside a second read of the source
 * (db-verify.ts): every table on worker threads (`jobs` at a time), then the copied files.
 */
export async function verifyAgainstSource(
  view: DatabaseView,
  tmp: string,
  jobs: Job[],
  results: ReadonlyMap<Job, RewriteResult>,
  copied: Copied[],
  jobCount: number,
  onProgress?: Progress,
): Promise<DbVerification> {
  const out = openDatabase(tmp)
  const byNumber = new Map(jobs.map((j) => [j.fileNumber, j]))
  const pairs: TablePair[] = []
  for (const cf of view.columnFamilies) {
    const theirs = out.columnFamilies.find((c) => c.id === cf.id)
    const written = new Map((theirs?.levels.flat() ?? []).map((f) => [f.fileNumber, f.path]))
    const sourceBlobs = Object.fromEntries(cf.blobFiles.map((b) => [b.blobFileNumber, b.path]))
    const outputBlobs = Object.fromEntries((theirs?.blobFiles ?? []).map((b) => [b.blobFileNumber, b.path]))
    for (const f of cf.levels.flat()) {
      const job = byNumber.get(f.fileNumber) as Job
      pairs.push({
        label: `table #${f.fileNumber} of column family "${cf.name}" (L${f.level}, source ${job.original})`,
        source: f.path,
        output: written.get(f.fileNumber) ?? join(tmp, tableFileName(f.fileNumber)),
        salvaged: results.get(job)?.salvaged ?? false,
        sourceBlobs,
        outputBlobs,
      })
    }
  }
  const total: DbVerification = { tables: 0, entries: 0, rangeTombstones: 0, blobValues: 0, filesCompared: 0, bytesCompared: 0 }
  const queue = [...pairs]
  const lanes = Math.max(1, Math.min(jobCount, queue.length))
  const lane = async () => {
    // One lane checks on this thread: another thread's heap would add to the peak beside this one's.
    const thread = lanes > 1 ? new RewriteThread() : null
    try {
      for (let p = queue.shift(); p; p = queue.shift()) {
        onProgress?.({ filesDone: total.tables, files: pairs.length, bytesDone: 0, bytes: 0, current: `verifying ${p.label}` })
        const c = thread ? await thread.compareTable(p) : compareTables(p)
        total.tables++
        total.entries += c.entries
        total.rangeTombstones += c.tombstones
        total.blobValues += c.blobValues
      }
    } finally {
      await thread?.close()
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane))
  const thread = new RewriteThread()
  try {
    for (const c of copied) {
      total.bytesCompared += await thread.compareFile(c.original, c.copy, c.label, c.prefix)
      total.filesCompared++
    }
  } finally {
    await thread.close()
  }
  return total
}

/**
 * Column families the MANIFEST gives live table files, none of which could be read (missing on
 * disk, or damaged): the advice has no level for them, yet they exist (ldb lists them), so the
 * report names them and their tables as unreadable rather than dropping them.
 */
import type { Advice } from '../types/advice.js'

/** A live table file as the MANIFEST lists it (its path in the database directory). */
export interface ListedFile {
  columnFamily: string
  level: number
  path: string
}

export type UnreadableColumnFamily = NonNullable<Advice['source']['unreadableColumnFamilies']>[number]

/** The column families of `listed` that the advice has no level for, each file with why it was left out. */
export function unreadableColumnFamilies(advice: Advice, listed: ListedFile[]): UnreadableColumnFamily[] {
  const advised = new Set(advice.columnFamilies.map((c) => c.name))
  const why = new Map(advice.problems.map((p) => [p.file, p.message]))
  const out = new Map<string, UnreadableColumnFamily>()
  for (const f of listed) {
    if (advised.has(f.columnFamily)) continue
    let cf = out.get(f.columnFamily)
    if (!cf) out.set(f.columnFamily, (cf = { name: f.columnFamily, files: [] }))
    cf.files.push({ file: f.path, level: f.level, problem: why.get(f.path) ?? 'not read' })
  }
  return [...out.values()]
}

/**
 * What the rewrite tests share: a scratch directory per test file (a fresh
 * empty one per test inside it), and a table's entries to compare with.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { openTable } from '../../src/index.js'

/** A directory made before the file's tests and removed after them (`beforeRemove` first, e.g. to unmount). */
export function scratchSpace(prefix: string, beforeRemove?: () => void): { readonly root: string; scratch(): string } {
  let root = ''
  let n = 0
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), prefix))
  })
  afterAll(() => {
    beforeRemove?.()
    if (root) rmSync(root, { recursive: true, force: true })
  })
  return {
    get root() {
      return root
    },
    /** A fresh empty directory for one test. */
    scratch() {
      const d = join(root, `t${n++}`)
      mkdirSync(d)
      return d
    },
  }
}

/** A copy of the directory `dir` in a new directory under `parent`: a database a real tool may write to (ldb and RocksDB take its LOCK). */
export function copyDir(parent: string, dir: string): string {
  const c = mkdtempSync(join(parent, 'copy-'))
  cpSync(dir, c, { recursive: true })
  return c
}

/** Names in a directory, temporary files included (they start with a dot). */
export const names = (dir: string) => readdirSync(dir).sort()

/** Every entry of a table as `keyhex=valuehex`, in order. */
export function entriesOf(file: string): string[] {
  const t = openTable(file)
  try {
    const out: string[] = []
    const it = t.iterator()
    for (it.seekToFirst(); it.valid; it.next()) out.push(`${Buffer.from(it.key).toString('hex')}=${Buffer.from(it.value).toString('hex')}`)
    return out
  } finally {
    t.close()
  }
}

/**
 * Temporary files sstkit writes beside an output before renaming it into place:
 * `.NAME.sstkit-PID-MS.tmp` (NAME the output's file name, PID the writing process, MS when it
 * started). The one place that names them, writes a text output atomically through one, removes a
 * run's own on a signal, and clears those earlier runs left behind (a process killed outright
 * cannot remove its own).
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { cleanupOnExit } from './cleanup.js'
import { processAlive } from './process-alive.js'

const PATTERN = /^\..+\.sstkit-(\d+)-(\d+)\.tmp$/

/** When this process started (ms): a temporary file from before it is an earlier run's. */
export const runStart = Date.now() - Math.round(process.uptime() * 1000)

/** The last MS a temporary name of this process used: two names in one millisecond differ. */
let lastMs = 0

/** The temporary file for `output`, in its directory. */
export function temporaryPath(output: string): string {
  lastMs = Math.max(Date.now(), lastMs + 1)
  return join(dirname(output), `.${basename(output)}.sstkit-${process.pid}-${lastMs}.tmp`)
}

/**
 * Write `text` to `path` atomically: into a temporary file beside it (earlier runs' leftovers there
 * cleared first), flushed to disk, then renamed over `path`. Readers see the old file or the new
 * one, never a partial one; on failure the old file is untouched, and a signal removes the
 * temporary file.
 */
export function writeFileAtomic(path: string, text: string | Uint8Array): void {
  const target = resolve(path)
  clearStaleTemporaries(dirname(target), runStart)
  const tmp = temporaryPath(target)
  // A signal while the temporary file exists waits for this synchronous write (a handler is installed), then removes it.
  const removeTmp = cleanupOnExit(() => rmSync(tmp, { force: true }))
  try {
    const fd = openSync(tmp, 'wx', 0o644)
    try {
      writeSync(fd, typeof text === 'string' ? Buffer.from(text) : text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, target)
  } finally {
    removeTmp()
  }
}

/** Remove this process's temporary files for `output` (on a signal: whatever it was writing). */
export function removeOwnTemporaries(output: string): void {
  const prefix = `.${basename(output)}.sstkit-${process.pid}-`
  for (const name of namesIn(dirname(output))) if (name.startsWith(prefix) && PATTERN.test(name)) rmSync(join(dirname(output), name), { force: true })
}

/**
 * Remove the temporary files of sstkit's naming in `dir` that an earlier run left: written by a
 * process that is gone, started and last modified before `runStart` (ms). Another run's, still
 * going, is kept; so is every file of another naming.
 */
export function clearStaleTemporaries(dir: string, runStart: number): void {
  for (const name of namesIn(dir)) {
    const m = PATTERN.exec(name)
    if (!m) continue
    const pid = Number(m[1])
    if (pid === process.pid || Number(m[2]) >= runStart || processAlive(pid)) continue
    const path = join(dir, name)
    try {
      if (!statSync(path).isFile() || statSync(path).mtimeMs >= runStart) continue
      rmSync(path, { force: true })
    } catch {
      // gone meanwhile, or not ours to remove: left as it is
    }
  }
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/**
 * Temporary files sstkit writes beside an output before renaming it into place:
 * `.NAME.sstkit-PID-MS.tmp` (NAME the output's file name, PID the writing process, MS when it
 * started). The one place that names them, removes a run's own on a signal, and clears those
 * earlier runs left behind (a process killed outright cannot remove its own).
 */
import { readdirSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { processAlive } from './process-alive.js'

const PATTERN = /^\..+\.sstkit-(\d+)-(\d+)\.tmp$/

/** When this process started (ms): a temporary file from before it is an earlier run's. */
export const runStart = Date.now() - Math.round(process.uptime() * 1000)

/** The temporary file for `output`, in its directory. */
export function temporaryPath(output: string): string {
  return join(dirname(output), `.${basename(output)}.sstkit-${process.pid}-${Date.now()}.tmp`)
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

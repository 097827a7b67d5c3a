/** Writing output bytes to a file descriptor, as every command does (no other imports: sst-dump loads it at start-up). */
import { writeSync } from 'node:fs'

const sleeper = new Int32Array(new SharedArrayBuffer(4))

/** Write every byte to `fd`, waiting on a full non-blocking pipe; exit quietly when the reader has gone. */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  if (!writeAllUnlessGone(fd, bytes)) process.exit(process.exitCode ?? 0)
}

/** Write every byte to `fd` as writeAllSync does; false, with nothing more written, when the reader has gone (EPIPE). */
export function writeAllUnlessGone(fd: number, bytes: Uint8Array): boolean {
  let done = 0
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'EAGAIN') {
        Atomics.wait(sleeper, 0, 0, 1)
        continue
      }
      if (code === 'EPIPE') return false
      throw e
    }
  }
  return true
}

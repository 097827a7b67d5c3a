/**
 * Work to undo however the process ends: normally, by an uncaught error, or by SIGINT, SIGTERM or
 * SIGHUP (the handler runs the cleanups, then re-raises the signal with its default action, so the
 * exit status still says which signal ended the run). SIGKILL cannot be caught: whoever leaves
 * something behind must also be able to find and remove it later (see db/pin.ts).
 */

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

const pending = new Set<() => void>()
let installed = false

function runAll(): void {
  for (const fn of [...pending]) {
    pending.delete(fn)
    try {
      fn()
    } catch {
      // A cleanup that fails must not stop the others.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runAll()
  for (const s of SIGNALS) process.removeListener(s, onSignal)
  process.kill(process.pid, signal)
}

/** Run `fn` (synchronous) once when the process ends, unless the returned function is called first (which runs it). */
export function cleanupOnExit(fn: () => void): () => void {
  if (!installed) {
    installed = true
    process.on('exit', runAll)
    for (const s of SIGNALS) process.on(s, onSignal)
  }
  pending.add(fn)
  return () => {
    if (!pending.delete(fn)) return
    fn()
  }
}

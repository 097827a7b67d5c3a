/**
 * Ending a plain command's process as soon as its work is done. Node's own exit waits for V8's
 * background compilations still running (TurboFan optimizing functions the run will not call
 * again) and tears down the heap and the environment: ~15 ms of wall time and ~18 ms of CPU at
 * the end of verify on an 8 MB file, a third of its time after node's start (bench/README.md,
 * "Per-file commands"). Where nothing is left to do, _exit through the kernel's addon ends it at
 * once; where the command did not load the addon (props), process.exit, which skips the teardown
 * but not the wait (~8 ms of props' CPU on a small file; loading the addon to exit cost more).
 */
import { loadedAddon } from './addon.js'

/** The kernel's addon (src/codec/addon.ts loads the same file for its other calls). */
const ADDON = new URL('../../dist/native/sstkit.node', import.meta.url)

/** Node and V8 options whose work is done at exit (profiles, coverage, reports, an inspector session). */
const EXIT_WORK = /prof|coverage|inspect|report|trace|debug/

/**
 * Whether the process has nothing left to do at its exit: no 'exit' or 'beforeExit' listener (a
 * cleanup, the build's code cache), no handle or request but stdout's and stderr's, whatever they
 * were given handed to the system (a pipe whose reader is slow keeps some), and no profiler or
 * coverage to write out.
 */
function nothingLeftAtExit(): boolean {
  if (process.listenerCount('exit') > 0 || process.listenerCount('beforeExit') > 0) return false
  if (process.env.NODE_V8_COVERAGE || EXIT_WORK.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return false
  const resources = process.getActiveResourcesInfo()
  if (resources.some((r) => r !== 'TTYWrap' && r !== 'PipeWrap')) return false
  // Output to files (or none) was written as it was given; a terminal's or a pipe's stream may queue it.
  // Reading a stream that was never used would make one (~3 ms for props on a small file).
  return resources.length === 0 || (process.stdout.writableLength === 0 && process.stderr.writableLength === 0)
}

/**
 * End the process now with `code` where nothing is left to do at its exit (nothingLeftAtExit):
 * at once where the command loaded the kernel's addon, else through process.exit; false (the
 * process then ends as usual) otherwise. SSTKIT_NO_FAST_EXIT=1 asks for Node's own exit. Call it
 * from a tick queued after the command's own (a warning, say, prints on a later tick).
 */
export function exitAtOnce(code: number): boolean {
  if (process.env.SSTKIT_NO_FAST_EXIT || !Number.isInteger(code) || !nothingLeftAtExit()) return false
  const addon = loadedAddon<{ exitNow(code: number): never }>(ADDON)
  if (addon) addon.exitNow(code)
  process.exit(code)
}

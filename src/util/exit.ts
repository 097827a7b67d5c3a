/**
 * Ending a plain command's process as soon as its work is done. Node's own exit waits for V8's
 * background compilations still running (TurboFan optimizing functions the run will not call
 * again) and tears down the heap and the environment: ~15 ms of wall time and ~18 ms of CPU at
 * the end of verify on an 8 MB file, a third of its time after node's start (bench/README.md,
 * "Start-up"). Where nothing is left to do, _exit through the kernel's addon ends it at once.
 */
import { loadAddon } from './addon.js'

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
export function nothingLeftAtExit(): boolean {
  if (process.listenerCount('exit') > 0 || process.listenerCount('beforeExit') > 0) return false
  if (process.env.NODE_V8_COVERAGE || EXIT_WORK.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return false
  if (process.getActiveResourcesInfo().some((r) => r !== 'TTYWrap' && r !== 'PipeWrap')) return false
  return process.stdout.writableLength === 0 && process.stderr.writableLength === 0
}

/**
 * End the process now with `code` where nothing is left to do at its exit (nothingLeftAtExit);
 * false (the process then ends as usual) otherwise, or where the addon is not built.
 * SSTKIT_NO_FAST_EXIT=1 asks for Node's own exit (for comparison).
 */
export function exitAtOnce(code: number): boolean {
  if (process.env.SSTKIT_NO_FAST_EXIT || !nothingLeftAtExit()) return false
  const addon = loadAddon<{ exitNow(code: number): never }>(ADDON)
  if (!addon) return false
  addon.exitNow(code)
  return false
}

/**
 * Collecting a thread's garbage when its dead buffers may have piled up.
 *
 * V8 runs a full collection when its heap grows, or once external memory
 * (ArrayBuffer contents) has grown by its soft limit of 64 MiB since the last
 * one. A thread whose work is native codecs over buffers (a recompress or
 * advise worker: read windows, decoded blocks, codec outputs) keeps a small
 * heap, so it rarely collects: measured, ~56 MB of dead buffers per worker at
 * the peak, the most of recompress's and advise's peak RSS above one thread's.
 * Such loops call collectGarbage() between steps; it collects only once the
 * thread's buffers have grown by a few MiB over what is live (buffers a table
 * writer holds, say), so its cost (a few ms for a heap of ~10 MB) is paid
 * once per several MiB processed.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * This thread's ArrayBuffer contents (with its few other external bytes), as V8 counts them:
 * process.memoryUsage() would read /proc/self/stat for its RSS too, 1.5 ms a call on a loaded
 * machine, where this takes microseconds, so loops can look every step.
 */
function bufferBytes(): number {
  return getHeapStatistics().external_memory
}

/** Collect when this thread's ArrayBuffers have grown by this much over the live ones. */
export const COLLECT_AFTER_GROWTH_BYTES = 8 << 20

let collector: (() => void) | null | undefined
/**
 * The fewest buffer bytes seen since the last collection: about what is live.
 * (The memory of a collection's dead buffers is freed on a background thread
 * afterwards, so the first look after it may still count some of them.)
 */
let floor = Number.POSITIVE_INFINITY

/**
 * V8's gc() without --expose-gc on the command line: the flag set now applies
 * to contexts made from now on, such as this throwaway one. Its gc() collects
 * the whole heap of the calling thread. The flag is put back at once: V8's
 * flags are the process's, and while one differs from its default Node compiles
 * its built-ins (any thread's, a worker starting) without their code cache.
 */
function v8Collector(): (() => void) | null {
  if (collector === undefined) {
    const given = (globalThis as { gc?: () => void }).gc
    if (given) return (collector = given) // node was run with --expose-gc
    try {
      setFlagsFromString('--expose-gc')
      collector = runInNewContext('gc') as () => void
      setFlagsFromString('--no-expose-gc')
    } catch {
      collector = null // not allowed here: V8's own heuristics only
    }
  }
  return collector
}

/** Run a full collection of this thread's heap if its ArrayBuffers grew by more than `growthBytes` over the live ones; true if it did. */
export function collectGarbage(growthBytes = COLLECT_AFTER_GROWTH_BYTES): boolean {
  const buffers = bufferBytes()
  floor = Math.min(floor, buffers)
  youngFloor = Math.min(youngFloor, buffers)
  if (buffers - floor <= growthBytes) return false
  const gc = v8Collector()
  if (!gc) return false
  gc()
  floor = Number.POSITIVE_INFINITY
  youngFloor = Number.POSITIVE_INFINITY
  reapplyGrowthFactor()
  return true
}

/**
 * A full collection of this thread's heap now, for the end of a phase that leaves much behind that
 * survived its young generation: advise's start (a MANIFEST replayed, the info LOG read, the first
 * files' indexes) promoted ~20 MB of garbage to the main thread's old generation on 3,300 files,
 * which V8 would keep until its heap doubled. False where not allowed.
 */
export function collectPhaseGarbage(): boolean {
  return collectGarbage(-1)
}

/** collectHeapGarbage's default: what a thread's heap may grow by between full collections. */
export const HEAP_COLLECT_GROWTH_BYTES = 8 << 20

/** The JavaScript heap in use after the last full collection here (collectHeapGarbage). */
let heapFloor = 0

/**
 * A full collection of this thread's heap once what it uses grew by `growthBytes` since the last one
 * here: V8 lets a large heap's garbage grow with it before collecting (on 20,000 files advise's main
 * thread had 60-100 MB of dead tables and arrays between collections). True if it collected.
 */
export function collectHeapGarbage(growthBytes = HEAP_COLLECT_GROWTH_BYTES): boolean {
  const used = getHeapStatistics().used_heap_size
  if (used - heapFloor <= growthBytes) return false
  if (!collectGarbage(-1)) return false
  heapFloor = getHeapStatistics().used_heap_size
  return true
}

/** Like `floor`, since the last collection of either kind. */
let youngFloor = Number.POSITIVE_INFINITY

/**
 * A young-generation collection (a scavenge: ~0.1 ms, where a full one takes a
 * few ms) if this thread's ArrayBuffers grew by more than `growthBytes`: enough
 * for buffers that die as soon as they are used, such as a codec's output per
 * block, and cheap enough to run inside a loop. True if it collected.
 */
export function collectYoungGarbage(growthBytes = COLLECT_AFTER_GROWTH_BYTES): boolean {
  const buffers = bufferBytes()
  floor = Math.min(floor, buffers)
  youngFloor = Math.min(youngFloor, buffers)
  if (buffers - youngFloor <= growthBytes) return false
  const gc = v8Collector()
  if (!gc) return false
  ;(gc as (options: { type: 'minor' }) => void)({ type: 'minor' })
  youngFloor = Number.POSITIVE_INFINITY
  reapplyGrowthFactor()
  return true
}

const NO_GROWTH = '--semi-space-growth-factor=1'
let youngKeptSmall = false
/**
 * Keep this thread's young generation at V8's initial 1 MiB semi-spaces, for a
 * long command whose main thread does the work (advise, rewrite): V8 grows a
 * main thread's semi-spaces to 16 MiB, ~35 MB more peak RSS (bench/memory.mjs).
 * V8's growth factor is the process's, so built-ins compiled from now on go
 * without Node's code cache (a worker starting: ~0.06 s of CPU), which start-up
 * bound commands cannot afford: why bin/run.js sets no V8 flag. Workers have
 * their own limits (util/worker-pool.ts). A worker's start puts V8's flags back
 * as node was started (measured), so the collections here set it again.
 */
export function keepYoungGenerationSmall(opts: { deferred?: boolean } = {}): void {
  youngKeptSmall = true
  // Deferred: the first reapplyGrowthFactor sets it, once the work's own modules and workers are
  // loaded with Node's code cache (recompress of an 8 MB file: ~0.06 s less CPU).
  if (!opts.deferred) reapplyGrowthFactor()
}

/**
 * Set the flag of keepYoungGenerationSmall again, if it was asked for: a worker's start puts V8's
 * flags back (on its own thread, while this one may be busy), so a thread that starts workers calls
 * this often while it allocates (a flag set: microseconds). Unset, advise's main thread grew its
 * semi-spaces to 16 MiB in a third of runs on 3,300 files (+24 MB of peak RSS).
 */
export function reapplyGrowthFactor(): void {
  if (!youngKeptSmall) return
  try {
    setFlagsFromString(NO_GROWTH)
  } catch {
    youngKeptSmall = false // not allowed here: V8's own sizing
  }
}

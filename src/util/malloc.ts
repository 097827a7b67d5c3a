/**
 * glibc malloc's thresholds and trimming, for the memory native code (codecs, read windows' and
 * blocks' ArrayBuffer contents) takes from malloc: through the kernel's addon, else koffi; a no-op
 * where the C library is not glibc. Apart from garbage.ts (V8's collections), which loads node:v8
 * and node:vm: codec/bzip2.ts needs this in every bundle that decodes, the drop-in's included.
 */
import { createRequire } from 'node:module'
import { loadAddon } from './addon.js'

/** glibc's calls as native/addon/sstkit.c makes them (0 where the C library is not glibc). */
interface MallocCalls {
  mallopt(param: number, value: number): number
  mallocTrim(pad: number): number
}

/** The kernel's addon (src/codec/addon.ts loads the same file for its other calls). */
const ADDON = new URL('../../dist/native/sstkit.node', import.meta.url)

let mallocCalls: MallocCalls | null | undefined
/** glibc's malloc calls through the addon, else through koffi; null where neither loads (no addon, not glibc). */
function malloc(): MallocCalls | null {
  if (mallocCalls === undefined) mallocCalls = loadAddon<MallocCalls>(ADDON) ?? mallocThroughKoffi()
  return mallocCalls
}

function mallocThroughKoffi(): MallocCalls | null {
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi')
    const libc = koffi.load('libc.so.6')
    return {
      mallopt: libc.func('int mallopt(int, int)') as MallocCalls['mallopt'],
      mallocTrim: libc.func('int malloc_trim(size_t)') as MallocCalls['mallocTrim'],
    }
  } catch {
    return null // not glibc, or no koffi
  }
}

/**
 * Give the pages malloc holds free back to the system (glibc's malloc_trim, through the kernel's addon; a
 * no-op elsewhere). The buffers a collection frees go back to malloc's arenas, where memory
 * between live blocks stays in the RSS: after a lane's collections, trimming took recompress's
 * default matrix on an 8 MB ZSTD file from 136 to 129 MB, at no CPU measured.
 */
export function trimMallocArenas(): void {
  malloc()?.mallocTrim(0)
}

/** Blocks of this size or more get pages of their own (glibc's M_MMAP_THRESHOLD; bin/run.cjs's shebang says the same). */
export const MALLOC_MMAP_BYTES = 128 << 10
/**
 * Free bytes malloc keeps at an arena's top before giving them back (glibc's M_TRIM_THRESHOLD;
 * bin/run.cjs's shebang says the same). At glibc's 128 KiB, every few blocks' buffers freed gave
 * the top's pages back and the next took them again, a page fault each: recompress of one setting
 * on a 64 MB file of 4 KiB LZ4 blocks took 13,800 page faults and 1.13 s of CPU, with 2 MiB 8,200 and
 * 0.98 s; scan of it 0.53 s against 0.49 (commit da26c1e, 2026-12-07, medians of 9 runs interleaved).
 * 4 MiB saved no more and raised baseline's peak RSS on a 224 MB file by 7 MB (2 MiB: 5 MB).
 */
export const MALLOC_TRIM_BYTES = 2 << 20

/** mallopt's parameters (glibc's malloc.h). */
const M_TRIM_THRESHOLD = -1
const M_MMAP_THRESHOLD = -3
/**
 * Whether glibc's thresholds are fixed: by the environment (bin/run.cjs's shebang sets
 * MALLOC_MMAP_THRESHOLD_) or by fixMallocThresholds. Otherwise glibc's own policy raises its mmap
 * threshold to the size of a mapped block once it is freed, and a library's host keeps that policy.
 */
let thresholdsFixed = process.env.MALLOC_MMAP_THRESHOLD_ !== undefined
/** The mmap threshold in force where fixed: the environment's, or the last set here. */
let mmapThreshold = Number(process.env.MALLOC_MMAP_THRESHOLD_) || MALLOC_MMAP_BYTES

/**
 * Fix glibc malloc's thresholds for the rest of the process (mallopt, through the kernel's addon; a no-op elsewhere):
 * blocks of `mmapBytes` or more get pages of their own, given back when freed, and up to `trimBytes` free at
 * an arena's top stay there. Left dynamic, glibc raises its mmap threshold to the largest block freed (up to
 * 32 MiB) and its trim threshold to twice that: after recompress freed its first zstd context for a large
 * index (~16 MB), every buffer under 16 MB came from the arenas, and up to 32 MB free at their tops stayed in
 * the RSS until a trim. The defaults are what bin/run.cjs's shebang gives glibc (MALLOC_MMAP_THRESHOLD_,
 * MALLOC_TRIM_THRESHOLD_), for a node started otherwise (`node bin/run.cjs`, npx): recompress's default
 * matrix on a 64 MB file peaked at 157 MB without them, 133 MB with them.
 */
export function fixMallocThresholds(mmapBytes = MALLOC_MMAP_BYTES, trimBytes = MALLOC_TRIM_BYTES): void {
  const calls = malloc()
  if (!calls) return // not glibc: its own policy
  calls.mallopt(M_MMAP_THRESHOLD, mmapBytes)
  calls.mallopt(M_TRIM_THRESHOLD, trimBytes)
  mmapThreshold = mmapBytes
  thresholdsFixed = true
}

/**
 * Let blocks under `bytes` come from malloc's arenas for the rest of the process, where glibc's
 * thresholds are fixed (see thresholdsFixed; left to glibc's own policy, it does so itself): its
 * mmap threshold raised to `bytes`, never lowered, and its trim threshold at MALLOC_TRIM_BYTES (a
 * no-op where the C library is not glibc). For a library that takes and frees such blocks on every
 * call: each mapped afresh is a page fault per 4 KiB, where a block from an arena is reused (freed
 * to the arena's top, which keeps up to MALLOC_TRIM_BYTES).
 */
export function allocateInArenasBelow(bytes: number): void {
  if (!thresholdsFixed || bytes <= mmapThreshold) return
  const calls = malloc()
  if (!calls) return
  calls.mallopt(M_MMAP_THRESHOLD, bytes)
  calls.mallopt(M_TRIM_THRESHOLD, MALLOC_TRIM_BYTES)
  mmapThreshold = bytes
}

/**
 * The native kernel as a Node-API addon (native/addon/sstkit.c, built into
 * dist/native/sstkit.node by scripts/build-native.mjs), loaded with process.dlopen: koffi's
 * own load cost ~8 ms of CPU of each process that only needs the kernel (bench/README.md,
 * "Start-up"). Null where it was not built or does not load here: the kernel then loads
 * through koffi (src/verify/native.ts), with the same calls.
 */
import { loadAddon } from '../util/addon.js'

/** The addon's calls: the koffi declarations of src/verify/native.ts, same arguments and results. */
export interface KernelAddon {
  init(): number
  dictionaryId(): number
  verifyBlocks(...args: unknown[]): number
  decodeBlocks(...args: unknown[]): number
  verifyAcross(...args: unknown[]): number
  indexWalk(...args: unknown[]): number
  /** lo32(XXH3_64bits) of bytes[0, length) through libxxhash; throws where libxxhash is missing. */
  xxh3Low32(bytes: Uint8Array, length: number): number
  /** crc32c (unmasked) of bytes[0, length) with SSE 4.2; throws where init() lacks bit 4. */
  crc32c(bytes: Uint8Array, length: number): number
  /** LZ4_decompress_safe(_usingDict) of all of src into dst: LZ4's result; ADDON_MISSING_LIBRARY without liblz4. */
  lz4Decompress(src: Uint8Array, dst: Uint8Array, dictionary: Uint8Array | null): number
  /** snappy_uncompress of src into dst: the bytes written, or -(snappy's status); ADDON_MISSING_LIBRARY without libsnappy. */
  snappyUncompress(src: Uint8Array, dst: Uint8Array): number
  /** native/recut-kernel.h's sstkit_recut (src/recompress/recut-native.ts drives it). */
  recut(mode: number, src: Uint8Array, out: Uint8Array, restarts: Uint32Array, srcKey: Uint8Array, lastKey: Uint8Array, state: Float64Array): number
  /** glibc's mallopt(param, value); 0 where the C library is not glibc (src/util/malloc.ts). */
  mallopt(param: number, value: number): number
  /** glibc's malloc_trim(pad); 0 where the C library is not glibc. */
  mallocTrim(pad: number): number
}

/** What a codec call of the addon returns where the system library is missing. */
export const ADDON_MISSING_LIBRARY = -(2 ** 31)

/** dist/native, from tsc's output (dist/codec), the sources (src/codec: tests) and the bundle (which re-points it). */
const ADDON = new URL('../../dist/native/sstkit.node', import.meta.url)

let addon: KernelAddon | null | undefined

/** The addon, loaded on first call, or null (SSTKIT_NO_ADDON=1 asks for koffi's path). */
export function kernelAddon(): KernelAddon | null {
  if (addon === undefined) addon = loadAddon<KernelAddon>(ADDON)
  return addon
}

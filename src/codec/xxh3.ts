/**
 * Low 32 bits of XXH3_64bits (final XXH3 of xxHash 0.8, no seed).
 *
 * XXH3 is RocksDB's default block checksum, so it runs over every byte of a
 * file. The system libxxhash (via the kernel's addon or koffi) measured ~5 GB/s on 16 KiB blocks
 * against ~0.9–1.7 GB/s for @node-rs/xxhash, whose per-call overhead is also
 * 3× higher; we use libxxhash when it loads and fall back to @node-rs otherwise.
 */
import { createRequire } from 'node:module'
import { kernelAddon } from './addon.js'
import { koffi } from './native.js'
import { xxh3Low32Js } from './xxh3-js.js'

const require = createRequire(import.meta.url)

/** lo32(XXH3_64bits) of the first `length` bytes (default: all). */
type Xxh3Fn = (bytes: Uint8Array, length?: number) => number

/** Portable implementation (@node-rs/xxhash). */
export function xxh3Low32NodeRs(bytes: Uint8Array, length = bytes.length): number {
  const { xxh3 } = require('@node-rs/xxhash') as typeof import('@node-rs/xxhash')
  return Number(xxh3.xxh64(length === bytes.length ? bytes : bytes.subarray(0, length)) & 0xffffffffn)
}

/** libxxhash implementation (through the kernel's addon where it loads, else koffi), or undefined when the library is not installed. */
export function loadXxh3Native(): Xxh3Fn | undefined {
  const addon = kernelAddon()
  if (addon && (addon.init() & 1) !== 0) {
    return (bytes, length = bytes.length) => {
      if (length > bytes.length) throw new RangeError(`xxh3: ${length} bytes asked of ${bytes.length}`)
      return addon.xxh3Low32(bytes, length)
    }
  }
  let fn: (p: Uint8Array, n: number) => number | bigint
  try {
    const lib = koffi().load('libxxhash.so.0')
    fn = lib.func('uint64_t XXH3_64bits(const void *data, size_t len)')
  } catch {
    return undefined
  }
  // koffi returns a Number when the value is a safe integer, else a BigInt.
  // The length is passed, not a shorter view: a block's hash excludes its last byte, and a view is an allocation per block.
  return (bytes, length = bytes.length) => {
    if (length > bytes.length) throw new RangeError(`xxh3: ${length} bytes asked of ${bytes.length}`)
    const v = fn(bytes, length)
    return typeof v === 'bigint' ? Number(v & 0xffffffffn) : v % 0x1_0000_0000
  }
}

let impl: Xxh3Fn | undefined
let implName = ''

function resolve(): Xxh3Fn {
  const native = process.env.SSTKIT_NO_NATIVE_XXH3 ? undefined : loadXxh3Native()
  implName = native ? 'libxxhash' : '@node-rs/xxhash'
  impl = native ?? xxh3Low32NodeRs
  return impl
}

/**
 * The first bytes a process hashes are hashed in JavaScript (xxh3-js.ts): loading the native hash
 * (the addon and libxxhash, ~0.8 ms) costs more than the few KiB of a footer and its properties and
 * metaindex blocks take there (`props` reads no more). No more than that: cold, JavaScript took
 * 3.6 ms for an 8 MB file's index block that the addon hashes in well under 1 ms, start included.
 */
const JS_XXH3_BUDGET = 8 * 1024
let jsBudget = JS_XXH3_BUDGET

/** No JavaScript hashing from here on: for a process that will hash data blocks natively anyway (checksum.ts). */
export function xxh3NativeFromStart(): void {
  jsBudget = 0
}

/** lo32(XXH3_64bits) of the first `length` bytes of `bytes` (default: all of them). */
export function xxh3Low32(bytes: Uint8Array, length = bytes.length): number {
  if (!impl && length <= jsBudget) {
    jsBudget -= length
    return xxh3Low32Js(bytes, length)
  }
  return (impl ?? resolve())(bytes, length)
}

/** Which implementation `xxh3Low32` uses (for diagnostics). */
export function xxh3Backend(): string {
  if (!impl) resolve()
  return implName
}

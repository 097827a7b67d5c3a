/**
 * ZSTD adapter (type 0x07, and the historical 0x40 ZSTDNotFinal, same
 * format): one standard zstd frame, through zstd-napi's low-level binding.
 *
 * Contexts are reused (creating one costs more than decoding a small block),
 * and a dictionary is digested into a DDict once per dictionary buffer.
 */
import { createRequire } from 'node:module'
import type { CCtx, DCtx, DDict } from 'zstd-napi/binding.js'
import { allocOutput, OutputOverflow, scratchBytes, trimmed, type Scratch } from './output.js'

// Loaded on first use: opening a file that has no zstd block does not load the addon.
const require = createRequire(import.meta.url)
type Binding = typeof import('zstd-napi/binding.js')
let binding: Binding | undefined
const zstdLib = (): Binding => (binding ??= require('zstd-napi/binding.js') as Binding)

let dctx: DCtx | undefined
let cctx: CCtx | undefined
const ddicts = new WeakMap<Uint8Array, DDict>()

/**
 * zstd loads a dictionary as a zstd dictionary when it starts with the magic
 * 0xEC30A437 and as raw content otherwise (ZSTD_dct_auto), which is what
 * RocksDB's raw-content dictionaries (max_dict_bytes without training) need.
 */
function ddictFor(dictionary: Uint8Array): DDict {
  let d = ddicts.get(dictionary)
  if (!d) {
    d = new (zstdLib().DDict)(dictionary)
    ddicts.set(dictionary, d)
  }
  return d
}

/** Decode a zstd frame whose content must fit in `size` bytes. */
export function zstdDecompress(src: Uint8Array, size: number, dictionary?: Uint8Array, scratch?: Scratch): Uint8Array {
  // A frame header announcing more than `size` bytes would otherwise surface
  // as zstd's vaguer "Destination buffer is too small".
  const contentSize = frameContentSize(src)
  if (contentSize !== null && contentSize > size) throw new OutputOverflow(size)
  dctx ??= new (zstdLib().DCtx)()
  const dst = scratch ? scratchBytes(scratch, size) : allocOutput(size)
  const ddict = dictionary && dictionary.length > 0 ? ddictFor(dictionary) : undefined
  let n: number
  try {
    n = ddict ? dctx.decompressUsingDDict(dst, src, ddict) : dctx.decompress(dst, src)
  } catch {
    // Which of its checks zstd fails first can depend on what the context decoded before
    // (seen with a dictionary): a fresh context words it the same whichever thread, in whatever order.
    const fresh = new (zstdLib().DCtx)()
    n = ddict ? fresh.decompressUsingDDict(dst, src, ddict) : fresh.decompress(dst, src)
  }
  return n === size ? dst : dst.subarray(0, n)
}

function frameContentSize(src: Uint8Array): number | null {
  try {
    return zstdLib().getFrameContentSize(src)
  } catch {
    return null // let the decoder report the malformed header
  }
}

export interface ZstdCompressOptions {
  level: number
  checksum: boolean
  dictionary?: Uint8Array
}

// Parameters currently loaded into `cctx`. zstd keeps a loaded dictionary
// (and its digested form) across frames, so we reload only on change.
let cctxLevel = NaN
let cctxChecksum = false
let cctxDict: Uint8Array | undefined

/** ZSTD_compress2 with RocksDB's settings: level, optional content checksum, optional dictionary. */
export function zstdCompress(raw: Uint8Array, opts: ZstdCompressOptions): Uint8Array {
  const dict = opts.dictionary && opts.dictionary.length > 0 ? opts.dictionary : undefined
  cctx ??= new (zstdLib().CCtx)()
  if (cctxLevel !== opts.level || cctxChecksum !== opts.checksum || cctxDict !== dict) {
    cctx.reset(zstdLib().ResetDirective.sessionAndParameters)
    cctx.setParameter(zstdLib().CParameter.compressionLevel, opts.level)
    cctx.setParameter(zstdLib().CParameter.checksumFlag, opts.checksum ? 1 : 0)
    if (dict) cctx.loadDictionary(dict)
    cctxLevel = opts.level
    cctxChecksum = opts.checksum
    cctxDict = dict
  }
  const dst = allocOutput(zstdLib().compressBound(raw.length))
  const n = cctx.compress2(dst, raw)
  return trimmed(dst, n)
}

/**
 * A zstd compressor/decompressor pair with fixed settings, for running many
 * configurations side by side (recompress): each keeps its own contexts, so
 * alternating between configurations never reloads a dictionary. Each context
 * is made on first use: a codec that only compresses (a table writer's) never
 * holds a decompression context, nor one that only decompresses (a round
 * trip's) a compression context; with dozens of settings side by side, that
 * is ~0.2-0.4 MB of native memory each.
 */
export class ZstdCodec {
  private cctx: CCtx | undefined
  private dctx: DCtx | undefined
  private ddict: DDict | undefined
  private current: Uint8Array | undefined

  constructor(
    readonly level: number,
    readonly checksum: boolean,
    dictionary?: Uint8Array,
  ) {
    this.current = dictionary && dictionary.length > 0 ? dictionary : undefined
  }

  get dictionary(): Uint8Array | undefined {
    return this.current
  }

  /**
   * Switch to another dictionary (or none), keeping the contexts: a codec
   * reused across files creates no new native contexts, whose memory V8 does
   * not see and would collect late.
   */
  useDictionary(dictionary: Uint8Array | undefined): void {
    const d = dictionary && dictionary.length > 0 ? dictionary : undefined
    if (d === this.current) return
    this.current = d
    this.ddict = undefined
    if (this.cctx) this.configure(this.cctx)
  }

  private configure(cctx: CCtx): void {
    const z = zstdLib()
    if (this.current) {
      // Sticky: digested on the first frame, reused by every later one; replaces the previous one.
      cctx.loadDictionary(this.current)
    } else {
      cctx.reset(z.ResetDirective.parameters)
      cctx.setParameter(z.CParameter.compressionLevel, this.level)
      cctx.setParameter(z.CParameter.checksumFlag, this.checksum ? 1 : 0)
    }
  }

  private compressor(): CCtx {
    if (this.cctx) return this.cctx
    const z = zstdLib()
    const cctx = new z.CCtx()
    cctx.setParameter(z.CParameter.compressionLevel, this.level)
    cctx.setParameter(z.CParameter.checksumFlag, this.checksum ? 1 : 0)
    if (this.current) cctx.loadDictionary(this.current)
    this.cctx = cctx
    return cctx
  }

  /** Reused output space: compressing thousands of blocks allocates nothing per block. */
  private scratch: Uint8Array = new Uint8Array(0)

  /**
   * One zstd frame for `raw` (no RocksDB size prefix), written after `reserve`
   * bytes of `buffer`. The buffer is reused: the result is valid until the next call.
   */
  compress(raw: Uint8Array, reserve = 0): { buffer: Uint8Array; length: number } {
    const z = zstdLib()
    const need = reserve + z.compressBound(raw.length)
    if (this.scratch.length < need) this.scratch = allocOutput(Math.max(need, this.scratch.length * 2))
    const n = this.compressor().compress2(this.scratch.subarray(reserve, need), raw)
    return { buffer: this.scratch, length: reserve + n }
  }

  /** Decompress into `into` when given (reused by callers that compare and discard), else a new array. */
  decompress(frame: Uint8Array, size: number, into?: Uint8Array): Uint8Array {
    const dst = into && into.length >= size ? into.subarray(0, size) : allocOutput(size)
    const z = zstdLib()
    this.dctx ??= new z.DCtx()
    if (this.current && !this.ddict) this.ddict = new z.DDict(this.current)
    const n = this.ddict ? this.dctx.decompressUsingDDict(dst, frame, this.ddict) : this.dctx.decompress(dst, frame)
    return n === size ? dst : dst.subarray(0, n)
  }
}

/**
 * The kernel's Node-API addon (native/addon/sstkit.c) against the paths it replaces: koffi's
 * calls into the same system libraries, the JavaScript XXH3 and CRC32C, and whole commands run with
 * SSTKIT_NO_ADDON=1 (the kernel through koffi), which must print the same bytes.
 */
import { describe, expect, it } from 'vitest'
import { ADDON_MISSING_LIBRARY, kernelAddon } from '../../src/codec/addon.js'
import { lz4Compress } from '../../src/codec/lz4.js'
import { koffi } from '../../src/codec/native.js'
import { snappyCompress } from '../../src/codec/snappy.js'
import { xxh3Low32Js } from '../../src/codec/xxh3-js.js'
import { crc32cJs } from '../../src/codec/crc32c.js'
import { crc32c as nodeRsCrc32c } from '@node-rs/crc32'
import { Cursor } from '../../src/format/coding.js'
import { fixturePath, fixtures, sstkit } from '../helpers.js'
import { kvText, randomBytes } from './helpers.js'

const addon = kernelAddon()

describe('the kernel addon', () => {
  it('is built and loads here, with every library the kernel uses, so the paths below exercise it', () => {
    expect(addon).not.toBeNull()
    // 1 libxxhash, 2 libsnappy, 4 CRC32C instructions, 8 libzstd, 16 liblz4
    expect(addon!.init()).toBe(31)
  })

  it('xxh3Low32 equals the JavaScript XXH3 on every length from 0 to 300 and on large inputs', () => {
    const bytes = randomBytes(300_000, 5)
    for (let n = 0; n <= 300; n++) expect(addon!.xxh3Low32(bytes, n)).toBe(xxh3Low32Js(bytes, n))
    for (const n of [4095, 4096, 16_389, 299_999]) expect(addon!.xxh3Low32(bytes, n)).toBe(xxh3Low32Js(bytes, n))
    // a view: the hash starts at the view's first byte
    expect(addon!.xxh3Low32(bytes.subarray(7, 107), 100)).toBe(xxh3Low32Js(bytes.subarray(7), 100))
  })

  it('xxh3Low32 refuses more bytes than given (a RangeError, not a read past the buffer)', () => {
    expect(() => addon!.xxh3Low32(new Uint8Array(10), 11)).toThrow(RangeError)
    expect(() => addon!.xxh3Low32(new Uint16Array(10) as unknown as Uint8Array, 2)).toThrow(RangeError)
  })

  it('crc32c equals the JavaScript CRC32C and @node-rs/crc32 on every length from 0 to 300, on large inputs and on views', () => {
    const bytes = randomBytes(300_000, 6)
    for (let n = 0; n <= 300; n++) expect(addon!.crc32c(bytes, n)).toBe(crc32cJs(bytes.subarray(0, n)))
    for (const n of [4095, 4096, 16_389, 299_999]) expect(addon!.crc32c(bytes, n)).toBe(nodeRsCrc32c(bytes.subarray(0, n)))
    expect(addon!.crc32c(bytes.subarray(7, 107), 100)).toBe(crc32cJs(bytes.subarray(7, 107)))
    // The standard check value.
    expect(addon!.crc32c(new TextEncoder().encode('123456789'), 9)).toBe(0xe3069283)
    expect(() => addon!.crc32c(new Uint8Array(10), 11)).toThrow(RangeError)
  })

  it('lz4Decompress gives what liblz4 through koffi gives, with and without a dictionary, and the same failures', () => {
    const lib = koffi().load('liblz4.so.1')
    const safe = lib.func('int LZ4_decompress_safe(const void *src, void *dst, int srcSize, int dstCapacity)')
    const withDict = lib.func('int LZ4_decompress_safe_usingDict(const void *src, void *dst, int srcSize, int dstCapacity, const void *dict, int dictSize)')
    const dict = kvText(8000, 11)
    for (const raw of [kvText(30_000), randomBytes(5000, 3), new Uint8Array(1), new Uint8Array(70_000)]) {
      for (const d of [null, dict]) {
        const c = lz4Compress(raw, { hc: false, level: 0, acceleration: 1, dictionary: d ?? undefined })
        const a = new Uint8Array(raw.length)
        const b = new Uint8Array(raw.length)
        const n = addon!.lz4Decompress(c, a, d)
        expect(n).toBe(d ? withDict(c, b, c.length, raw.length, d, d.length) : safe(c, b, c.length, raw.length))
        expect(n).toBe(raw.length)
        expect(Buffer.from(a).equals(Buffer.from(raw))).toBe(true)
        // too little room, and damaged input: LZ4's own negative result, as koffi's call returns it
        const short = new Uint8Array(raw.length - 1)
        expect(addon!.lz4Decompress(c, short, d)).toBe(d ? withDict(c, short, c.length, short.length, d, d.length) : safe(c, short, c.length, short.length))
        const bad = c.slice(0, Math.max(1, c.length >> 1))
        expect(addon!.lz4Decompress(bad, a, d)).toBe(d ? withDict(bad, b, bad.length, raw.length, d, d.length) : safe(bad, b, bad.length, raw.length))
      }
    }
  })

  it('snappyUncompress gives what libsnappy gives: the bytes, -1 for corrupt input, -2 for too little room', () => {
    for (const raw of [kvText(30_000, 2), randomBytes(5000, 4), new Uint8Array(0), new Uint8Array(70_000)]) {
      const c = snappyCompress(raw)
      const declared = new Cursor(c).varint32()
      const out = new Uint8Array(declared)
      expect(addon!.snappyUncompress(c, out)).toBe(raw.length)
      expect(Buffer.from(out).equals(Buffer.from(raw))).toBe(true)
      if (raw.length > 0) expect(addon!.snappyUncompress(c, new Uint8Array(raw.length - 1))).toBe(-2)
    }
    const c = snappyCompress(kvText(5000, 4)).slice()
    for (let i = 3; i < c.length; i += 7) c[i] ^= 0xff
    expect(addon!.snappyUncompress(c, new Uint8Array(5000))).toBe(-1)
  })

  it('a call with the wrong arguments is a TypeError, not a crash', () => {
    expect(() => addon!.lz4Decompress(new Uint8Array(4), new Uint8Array(4), 'x' as unknown as Uint8Array)).toThrow(TypeError)
    expect(() => addon!.snappyUncompress(new Uint8Array(4), null as unknown as Uint8Array)).toThrow(TypeError)
    expect(() => addon!.verifyBlocks(1, 2)).toThrow(TypeError)
    expect(ADDON_MISSING_LIBRARY).toBe(-(2 ** 31))
  })
})

describe('commands through the addon and through koffi (SSTKIT_NO_ADDON=1) print the same bytes', () => {
  // A fixture of each codec, checksum and dictionary kind the kernel does.
  const names = ['fv0-lz4', 'fv5-snappy', 'fv5-lz4', 'fv5-zstd', 'zstd-dict-trained', 'lz4-dict-raw', 'v9-fv6-zstd-dict', 'v11-fv7-zstd-dict-checksum']
  it('they are fixtures', () => {
    const all = new Set(fixtures().map((f) => f.name))
    expect(names.filter((n) => !all.has(n))).toEqual([])
  })
  for (const name of names) {
    it(name, () => {
      const file = fixturePath(name)
      for (const args of [
        ['verify', '--json', file],
        ['scan', file],
        ['sst-dump', `--file=${file}`, '--command=check', '--verify_checksum'],
      ]) {
        const viaAddon = sstkit(args)
        const viaKoffi = sstkit(args, { env: { SSTKIT_NO_ADDON: '1' } })
        expect(viaKoffi).toEqual(viaAddon)
      }
    })
  }
})

import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, it, expect } from 'vitest'
import { crc32c } from '@node-rs/crc32'
import { xxh3, xxh32, xxh64 } from '@node-rs/xxhash'
import {
  ChecksumType,
  addContext,
  blockChecksum,
  blockChecksumOfPayload,
  checksumTypeName,
  contextModifier,
  maskCrc32c,
  removeContext,
  unmaskCrc32c,
} from '../../src/codec/checksum.js'
import { crc32cJs } from '../../src/codec/crc32c.js'
import { loadXxh3Native, xxh3Backend, xxh3Low32, xxh3Low32NodeRs } from '../../src/codec/xxh3.js'
import { xxh3Js, xxh3Low32Js } from '../../src/codec/xxh3-js.js'
import { NotSupportedError } from '../../src/format/errors.js'
import { assertFreshBuild, ROOT, toolPresent } from '../helpers.js'
import { ascii, embedded, randomBytes, rng, thrown } from './helpers.js'

/** RocksDB prints checksums as the 4 stored (little-endian) bytes in hex. */
function fromStoredHex(hex: string): number {
  return Buffer.from(hex, 'hex').readUInt32LE(0)
}

describe('checksum type names', () => {
  it('uses RocksDB enum names', () => {
    expect([0, 1, 2, 3, 4].map(checksumTypeName)).toEqual(['kNoChecksum', 'kCRC32c', 'kxxHash', 'kxxHash64', 'kXXH3'])
    expect(checksumTypeName(5)).toBe('unknown(5)')
    expect(checksumTypeName(255)).toBe('unknown(255)')
  })
})

describe('CRC32c', () => {
  it('matches the standard check value and RocksDB crc32c_test vectors', () => {
    expect(unmaskCrc32c(blockChecksum(ChecksumType.CRC32c, ascii('123456789')))).toBe(0xe3069283)
    expect(unmaskCrc32c(blockChecksum(ChecksumType.CRC32c, new Uint8Array(32)))).toBe(0x8a9136aa)
    expect(unmaskCrc32c(blockChecksum(ChecksumType.CRC32c, new Uint8Array(32).fill(0xff)))).toBe(0x62a8ab43)
    const ascending = Uint8Array.from({ length: 32 }, (_, i) => i)
    expect(unmaskCrc32c(blockChecksum(ChecksumType.CRC32c, ascending))).toBe(0x46dd794e)
  })

  it('stores the masked value: rotr15 + 0xa282ead8', () => {
    const crc = 0xe3069283
    const rotr15 = ((crc >>> 15) | (crc << 17)) >>> 0
    expect(maskCrc32c(crc)).toBe((rotr15 + 0xa282ead8) % 2 ** 32)
    expect(blockChecksum(ChecksumType.CRC32c, ascii('123456789'))).toBe(maskCrc32c(crc))
    expect(maskCrc32c(0)).toBe(0xa282ead8)
  })

  it('mask/unmask round-trip and masking changes the value', () => {
    const next = rng(42)
    const values = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xa282ead8]
    for (let i = 0; i < 1000; i++) values.push(next())
    for (const v of values) {
      const m = maskCrc32c(v)
      // RocksDB's crc32c_test: Mask(crc) != crc, Mask(Mask(crc)) != crc, Unmask inverts Mask.
      expect(m).not.toBe(v)
      expect(maskCrc32c(m)).not.toBe(v)
      expect(unmaskCrc32c(m)).toBe(v)
      expect(unmaskCrc32c(unmaskCrc32c(maskCrc32c(m)))).toBe(v)
      expect(maskCrc32c(unmaskCrc32c(v))).toBe(v)
    }
    expect(maskCrc32c(0x12345678)).not.toBe(0x12345678)
  })
})

describe('CRC32c in JavaScript (the first KiB a process checksums)', () => {
  it('equals @node-rs/crc32 on every length up to 3 KiB and at unaligned offsets', () => {
    const bytes = randomBytes(4096, 7)
    for (let n = 0; n <= 3072; n++) {
      for (const off of [0, 1, 3]) expect(crc32cJs(bytes.subarray(off, off + n))).toBe(crc32c(bytes.subarray(off, off + n)))
    }
    expect(crc32cJs(ascii('123456789'))).toBe(0xe3069283)
  })

  it('blockChecksum keeps the same values once the JS budget is spent and the addon takes over', () => {
    const big = randomBytes(300 * 1024, 9)
    const small = randomBytes(100, 11)
    const before = blockChecksum(ChecksumType.CRC32c, small)
    expect(blockChecksum(ChecksumType.CRC32c, big)).toBe(maskCrc32c(crc32c(big)))
    expect(blockChecksum(ChecksumType.CRC32c, small)).toBe(before)
    expect(before).toBe(maskCrc32c(crc32c(small)))
  })
})

describe('xxHash primitives (standard vectors)', () => {
  it('XXH32 / XXH64 seed 0', () => {
    expect(xxh32(new Uint8Array(0), 0) >>> 0).toBe(0x02cc5d05)
    expect(xxh32(ascii('ABC'), 0) >>> 0).toBe(0x80712ed5)
    expect(xxh64(new Uint8Array(0), 0n)).toBe(0xef46db3751d8e999n)
    expect(xxh64(ascii('ABC'), 0n)).toBe(0xe66ae7354fcfee98n)
    expect(blockChecksum(ChecksumType.xxHash, ascii('ABC'))).toBe(0x80712ed5)
    expect(blockChecksum(ChecksumType.xxHash64, ascii('ABC'))).toBe(0x4fcfee98)
    expect(blockChecksum(ChecksumType.xxHash64, new Uint8Array(0))).toBe(0x51d8e999)
  })

  it('XXH3_64bits, both backends', () => {
    const vectors: [Uint8Array, number][] = [
      [new Uint8Array(0), 0x38d394c2], // 0x2D06800538D394C2
      [ascii('abc'), 0x892f3950], // 0x78AF5F94892F3950
      [ascii('a'), 0x1e964e1f], // 0xE6C632B61E964E1F
      [Uint8Array.of(0), 0x074eecdb], // 0xC44BDFF4074EECDB
    ]
    const native = loadXxh3Native()
    for (const [input, lo] of vectors) {
      expect(xxh3Low32NodeRs(input)).toBe(lo)
      expect(xxh3Low32(input)).toBe(lo)
      if (native) expect(native(input)).toBe(lo)
    }
    expect(['libxxhash', '@node-rs/xxhash']).toContain(xxh3Backend())
  })

  const native = loadXxh3Native()
  it.runIf(toolPresent('libxxhash.so.0', native !== undefined, 'apt-get install libxxhash0'))(
    'backends agree on every XXH3 length class and on offset views',
    () => {
      const data = randomBytes(70_000, 3)
      for (const n of [1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 1025, 16384, 65_537]) {
        const view = data.subarray(5, 5 + n)
        expect(native!(view)).toBe(xxh3Low32NodeRs(view.slice()))
      }
    },
  )

  it('the JavaScript XXH3 (the first bytes of a process) equals @node-rs/xxhash on every length to 2,100 and on long inputs', () => {
    const data = randomBytes(70_000, 5)
    for (let n = 0; n <= 2100; n++) {
      const view = data.subarray(7, 7 + n)
      expect(xxh3Js(view)).toBe(xxh3.xxh64(view))
    }
    for (const n of [4095, 4096, 4097, 16_384, 65_537, 69_000]) expect(xxh3Js(data, n)).toBe(xxh3.xxh64(data.subarray(0, n)))
    expect(xxh3Low32Js(data, 300)).toBe(xxh3Low32NodeRs(data.slice(0, 300)))
    expect(() => xxh3Low32Js(data.subarray(0, 10), 11)).toThrow(RangeError)
  })

  it('hashes a prefix given its length as that prefix alone, on both backends', () => {
    const data = randomBytes(20_000, 4)
    for (const n of [0, 1, 17, 241, 4095, 19_990]) {
      const want = xxh3Low32NodeRs(data.slice(0, n))
      expect(xxh3Low32(data, n)).toBe(want)
      expect(xxh3Low32NodeRs(data, n)).toBe(want)
      if (native) expect(native(data.subarray(3), n)).toBe(xxh3Low32NodeRs(data.slice(3, 3 + n)))
    }
    if (native) expect(() => native(data.subarray(0, 10), 11)).toThrow(RangeError)
  })
})

describe('RocksDB golden checksums (table_test.cc ChecksumSchemas)', () => {
  // Blocks end with a placeholder the test replaces by the compression type.
  const b0 = 'x'
  const b1 = 'This is a short block!x'
  const b2 = 'This is a long block!'.repeat(100) + 'x'
  const types = [0 /* kNoCompression */, 1 /* kSnappy */, 7 /* kZSTD */]
  const block = (s: string, ct: number) => {
    const b = ascii(s)
    b[b.length - 1] = ct
    return b
  }
  const golden: Record<number, string[]> = {
    [ChecksumType.CRC32c]: ['D8EA82A2', 'D28F2549', '052B2843', '46F8F711', '583F0355', '2F9B0A57', 'ECE7DA1D', '943EF0AB', '43A2EDB1', '00E53D63'],
    [ChecksumType.xxHash]: ['055DCC02', '3EB065CF', '31F79238', '320D2E00', '4A2E5FB0', '0BD9F652', 'B4107E50', '20F4D4BA', '8F1A1F99', 'A191A338'],
    [ChecksumType.xxHash64]: ['99E9D851', '682705DB', '30E7211B', 'B7BB58E8', 'B74655EF', 'B6C8BBBE', 'AED9E3B4', '0D4999FE', 'F5932423', '6B31BAB1'],
    [ChecksumType.XXH3]: ['00000000', 'C294D338', '1B174353', '2D0E20C8', 'B37FB5E6', '6AFC258D', '5CE54616', 'FA2D482E', '23AED845', '15B7BBDE'],
    [ChecksumType.None]: Array(10).fill('00000000'),
  }
  for (const [type, hexes] of Object.entries(golden)) {
    it(checksumTypeName(Number(type)), () => {
      const inputs: Uint8Array[] = [new Uint8Array(0)]
      for (const s of [b0, b1, b2]) for (const ct of types) inputs.push(block(s, ct))
      const got = inputs.map((b) => blockChecksum(Number(type), b))
      expect(got).toEqual(hexes.map(fromStoredHex))
      // The same values when the block sits inside a larger buffer (no copy is taken).
      expect(inputs.map((b) => blockChecksum(Number(type), embedded(b)))).toEqual(got)
    })
  }
})

describe('XXH3 last-byte rule', () => {
  it('hashes all but the last byte and XORs lastByte * 0x6b9083d9', () => {
    const payload = ascii('hello, block payload')
    for (const typeByte of [0, 1, 7, 0x40, 0xff]) {
      const bytes = new Uint8Array(payload.length + 1)
      bytes.set(payload)
      bytes[payload.length] = typeByte
      const head = Number(xxh3.xxh64(payload) & 0xffffffffn)
      const expected = (head ^ Number((BigInt(typeByte) * 0x6b9083d9n) & 0xffffffffn)) >>> 0
      expect(blockChecksum(ChecksumType.XXH3, bytes)).toBe(expected)
      if (typeByte !== 0) {
        // Not XXH3 of the whole input.
        expect(blockChecksum(ChecksumType.XXH3, bytes)).not.toBe(Number(xxh3.xxh64(bytes) & 0xffffffffn))
      }
    }
  })

  it('empty input is 0; one byte folds into XXH3 of nothing', () => {
    expect(blockChecksum(ChecksumType.XXH3, new Uint8Array(0))).toBe(0)
    expect(blockChecksum(ChecksumType.XXH3, Uint8Array.of(0))).toBe(0x38d394c2)
    expect(blockChecksum(ChecksumType.XXH3, Uint8Array.of(7))).toBe((0x38d394c2 ^ Math.imul(7, 0x6b9083d9)) >>> 0)
  })

  it('CRC32c and xxHash cover the last byte like any other', () => {
    const bytes = ascii('payload\x07')
    expect(blockChecksum(ChecksumType.CRC32c, bytes)).toBe(maskCrc32c(crc32c(bytes)))
    expect(blockChecksum(ChecksumType.CRC32c, bytes)).toBe(maskCrc32c(crc32c(Uint8Array.of(7), crc32c(ascii('payload')))))
  })
})

describe('blockChecksum errors', () => {
  it('refuses unknown types', () => {
    const err = thrown(() => blockChecksum(5, ascii('x')))
    expect(err).toBeInstanceOf(NotSupportedError)
    expect(err.message).toBe('unknown checksum type 5')
  })
})

describe('context checksums (fv >= 6)', () => {
  /** Reference with BigInt arithmetic. */
  function reference(base: number, offset: number): number {
    if (base === 0) return 0
    const o = BigInt(offset)
    const sum = ((o & 0xffffffffn) + (o >> 32n)) & 0xffffffffn
    return Number(BigInt(base) ^ sum)
  }

  it('is 0 when the base is 0', () => {
    expect(contextModifier(0, 0)).toBe(0)
    expect(contextModifier(0, 123456789)).toBe(0)
  })

  it('mixes both halves of the offset with a 32-bit add', () => {
    expect(contextModifier(0x12345678, 0)).toBe(0x12345678)
    expect(contextModifier(0x12345678, 0x100)).toBe((0x12345678 ^ 0x100) >>> 0)
    expect(contextModifier(0xdeadbeef, 2 ** 32 + 5)).toBe((0xdeadbeef ^ 6) >>> 0)
    // lo32 + hi32 overflows: 0xffffffff + 0x1fffff wraps to 0x1ffffe
    expect(contextModifier(1, 2 ** 53 - 1)).toBe((1 ^ 0x1ffffe) >>> 0)
    const next = rng(9)
    for (let i = 0; i < 500; i++) {
      const base = next() || 1
      const offset = (next() % 0x200000) * 2 ** 32 + next()
      expect(contextModifier(base, offset)).toBe(reference(base, offset))
    }
  })

  it('add/remove context round-trip mod 2^32', () => {
    const m = contextModifier(0xfedcba98, 4096)
    const stored = addContext(0xfffffff0, m)
    expect(stored).toBeLessThanOrEqual(0xffffffff)
    expect(removeContext(stored, m)).toBe(0xfffffff0)
  })
})

describe('blockChecksumOfPayload', () => {
  it('is blockChecksum of the payload and its type byte joined, for every checksum type, the empty payload included', () => {
    for (const type of [ChecksumType.None, ChecksumType.CRC32c, ChecksumType.xxHash, ChecksumType.xxHash64, ChecksumType.XXH3])
      for (const size of [0, 1, 15, 4096, 300_000])
        for (const compressionType of [0, 1, 7]) {
          const payload = randomBytes(size, size + compressionType)
          const whole = new Uint8Array(size + 1)
          whole.set(payload)
          whole[size] = compressionType
          expect(blockChecksumOfPayload(type, payload, compressionType), `${type} ${size} ${compressionType}`).toBe(blockChecksum(type, whole))
        }
  })
})

describe('checksumNativelyFromStart', () => {
  /** Whether the kernel's addon is loaded after an XXH3 and a CRC32C block checksum of 100 bytes, in a fresh process (`first` runs before). */
  const addonLoadedAfterSmallChecksums = (first: string): boolean => {
    assertFreshBuild()
    const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href)
    const code = `import { blockChecksum, checksumNativelyFromStart } from ${url('dist/codec/checksum.js')}
import { loadedAddon } from ${url('dist/util/addon.js')}
${first}
blockChecksum(4, new Uint8Array(100))
blockChecksum(1, new Uint8Array(100))
process.stdout.write(String(loadedAddon(new URL(${url('dist/native/sstkit.node')})) !== null))`
    return execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }) === 'true'
  }

  it('hashes natively from the first byte once called (a command about to read data blocks); before, the first KiB are hashed in JavaScript, with no addon loaded', () => {
    expect(addonLoadedAfterSmallChecksums('')).toBe(false)
    expect(addonLoadedAfterSmallChecksums('checksumNativelyFromStart()')).toBe(true)
  })
})

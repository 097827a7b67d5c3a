import { describe, it, expect } from 'vitest'
import { decodeWideColumns, hasBlobColumns, wideColumnsVersion } from '../../src/format/wide-columns.js'
import { encodeVarint } from '../../src/format/coding.js'
import { NotSupportedError } from '../../src/format/errors.js'
import { catchErr } from './catch-corruption.js'
import { formatWideColumns } from '../../src/report/sst-dump-text.js'

// Synthetic byte vectors built from the layouts in db/wide/wide_column_serialization.h.
const te = new TextEncoder()
const td = new TextDecoder()
function cat(...parts: (number[] | Uint8Array)[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => Array.from(p)))
}
const v = (n: number) => encodeVarint(n)

function v1(cols: [string | Uint8Array, string | Uint8Array][], version = 1): Uint8Array {
  const b = (x: string | Uint8Array) => (typeof x === 'string' ? te.encode(x) : x)
  const index = cols.flatMap(([n, val]) => [v(b(n).length), b(n), v(b(val).length)])
  return cat(v(version), v(cols.length), ...index, ...cols.map(([, val]) => b(val)))
}

function v2(cols: [string, Uint8Array | string, number][]): Uint8Array {
  const b = (x: string | Uint8Array) => (typeof x === 'string' ? te.encode(x) : x)
  const nameSizes = cat(...cols.map(([n]) => v(b(n).length)))
  const valueSizes = cat(...cols.map(([, val]) => v(b(val).length)))
  const names = cat(...cols.map(([n]) => b(n)))
  return cat(
    v(2),
    v(cols.length),
    v(nameSizes.length),
    v(valueSizes.length),
    v(names.length),
    cols.map(([, , t]) => t),
    nameSizes,
    valueSizes,
    names,
    ...cols.map(([, val]) => b(val)),
  )
}

const asText = (cols: { name: Uint8Array; value: Uint8Array }[]) => cols.map((c) => [td.decode(c.name), td.decode(c.value)])

describe('decodeWideColumns version 1 (synthetic bytes)', () => {
  it('decodes columns including the default (empty-name) column', () => {
    const bytes = v1([
      ['', 'dflt'],
      ['attr', 'x'],
      ['zz', ''],
    ])
    expect(wideColumnsVersion(bytes)).toBe(1)
    expect(asText(decodeWideColumns(bytes))).toEqual([
      ['', 'dflt'],
      ['attr', 'x'],
      ['zz', ''],
    ])
  })

  it('decodes zero columns and version 0 like version 1', () => {
    expect(decodeWideColumns(v1([]))).toEqual([])
    expect(asText(decodeWideColumns(v1([['a', 'b']], 0)))).toEqual([['a', 'b']])
  })

  it('rejects an unknown version as not supported', () => {
    const e = (() => {
      try {
        decodeWideColumns(cat(v(3), v(0)), 50)
      } catch (err) {
        return err
      }
    })()
    expect(e).toBeInstanceOf(NotSupportedError)
    expect((e as NotSupportedError).message).toMatch(/unknown serialization version 3/)
    expect((e as NotSupportedError).offset).toBe(50)
  })

  it('rejects a truncated version or count', () => {
    expect(catchErr(() => decodeWideColumns(new Uint8Array(0), 7)).message).toMatch(/truncated varint32/)
    expect(catchErr(() => decodeWideColumns(Uint8Array.of(1), 7)).offset).toBe(8)
  })

  it('rejects a column count the bytes cannot hold', () => {
    const e = catchErr(() => decodeWideColumns(cat(v(1), v(1_000_000), [0, 0]), 1000))
    expect(e.message).toMatch(/1000000 columns need at least 2000000 index bytes but only 2 remain/)
    expect(e.offset).toBe(1001)
  })

  it('rejects a name running past the end', () => {
    const e = catchErr(() => decodeWideColumns(cat(v(1), v(1), v(9), [0x61, 0x62]), 0))
    expect(e.message).toMatch(/length 9 runs past the end/)
    expect(e.offset).toBe(3)
  })

  it('rejects a missing value size', () => {
    expect(catchErr(() => decodeWideColumns(cat(v(1), v(1), v(1), [0x61]))).message).toMatch(/truncated varint32/)
  })

  it('rejects columns out of order or duplicated', () => {
    const e = catchErr(() =>
      decodeWideColumns(
        v1([
          ['b', '1'],
          ['a', '2'],
        ]),
        100,
      ),
    )
    expect(e.message).toMatch(/column 1 name is not greater than column 0 name/)
    expect(e.offset).toBe(100 + 2 + 3) // version, count, first column's index entry
    expect(
      catchErr(() =>
        decodeWideColumns(
          v1([
            ['a', '1'],
            ['a', '2'],
          ]),
        ),
      ).message,
    ).toMatch(/out of order/)
  })

  it('rejects a value payload shorter than declared', () => {
    const bytes = v1([['a', 'xyz']])
    const e = catchErr(() => decodeWideColumns(bytes.subarray(0, bytes.length - 1), 10))
    expect(e.message).toMatch(/value of column 0 is 3 bytes but only 2 remain/)
    expect(e.offset).toBe(10 + 5)
  })

  it('rejects trailing bytes', () => {
    const bytes = cat(v1([['a', 'x']]), [0xee])
    const e = catchErr(() => decodeWideColumns(bytes, 10))
    expect(e.message).toMatch(/1 unexpected trailing byte/)
    expect(e.offset).toBe(10 + bytes.length - 1)
  })
})

describe('decodeWideColumns version 2 (synthetic bytes)', () => {
  const blobRef = cat([1], v(12), v(345), v(67), [0x07])

  it('decodes inline and blob columns', () => {
    const bytes = v2([
      ['', 'dflt', 0x01],
      ['big', blobRef, 0x11],
      ['c', 'v', 0x01],
    ])
    expect(wideColumnsVersion(bytes)).toBe(2)
    const cols = decodeWideColumns(bytes)
    expect(asText(cols)[0]).toEqual(['', 'dflt'])
    expect(Array.from(cols[1].value)).toEqual(Array.from(blobRef))
    expect(cols[1].blobIndex).toEqual({ kind: 'blob', fileNumber: 12, offset: 345, size: 67, compression: 7 })
    expect(cols[0].blobIndex).toBeUndefined()
    expect(hasBlobColumns(cols)).toBe(true)
    expect(formatWideColumns(cols)).toBe(':dflt big:{[blob ref] file:12 offset:345 size:67 compression: ZSTD} c:v')
  })

  it('decodes zero columns', () => {
    expect(decodeWideColumns(v2([]))).toEqual([])
  })

  it('rejects an invalid column type', () => {
    const bytes = v2([['a', 'x', 0x02]])
    const e = catchErr(() => decodeWideColumns(bytes, 100))
    expect(e.message).toMatch(/column 0 has type 0x02/)
    expect(e.offset).toBe(105)
  })

  it('rejects a type section longer than the input', () => {
    const e = catchErr(() => decodeWideColumns(cat(v(2), v(50), v(0), v(0), v(0), [1, 1]), 0))
    expect(e.message).toMatch(/50 column type bytes expected but only 2/)
    expect(e.offset).toBe(1)
  })

  it('rejects section sizes larger than the input', () => {
    const e = catchErr(() => decodeWideColumns(cat(v(2), v(1), v(1), v(1), v(100), [1], v(1), v(1), [0x61, 0x62]), 0))
    expect(e.message).toMatch(/declare 102 bytes but only 4 remain/)
    expect(e.offset).toBe(6)
  })

  it('rejects a name size varint running out of its section', () => {
    // two columns but name-size section holds one varint
    const bytes = cat(v(2), v(2), v(1), v(2), v(2), [1, 1], v(1), v(1), v(1), [0x61, 0x62], [0x78, 0x79])
    expect(catchErr(() => decodeWideColumns(bytes)).message).toMatch(/name-size section: truncated varint32/)
  })

  it('rejects a name that overruns the name section', () => {
    const bytes = cat(v(2), v(1), v(1), v(1), v(1), [1], v(2), v(1), [0x61], [0x78, 0x79])
    const e = catchErr(() => decodeWideColumns(bytes, 0))
    expect(e.message).toMatch(/name of column 0 is 2 bytes but only 1 remain in the 1-byte name section/)
    expect(e.offset).toBe(8)
  })

  it('rejects a value that overruns the input', () => {
    const bytes = cat(v(2), v(1), v(1), v(1), v(1), [1], v(1), v(5), [0x61], [0x78])
    expect(catchErr(() => decodeWideColumns(bytes)).message).toMatch(/value of column 0 is 5 bytes but only 1 remain/)
  })

  it('rejects unused section bytes and trailing bytes', () => {
    // name-size section declared 2 bytes, only 1 used
    const a = cat(v(2), v(1), v(2), v(1), v(1), [1], v(1), [0], v(1), [0x61], [0x78])
    expect(catchErr(() => decodeWideColumns(a)).message).toMatch(/1 unused byte\(s\) in the name-size section/)
    // value-size section declared 2 bytes, only 1 used
    const b = cat(v(2), v(1), v(1), v(2), v(1), [1], v(1), v(1), [0], [0x61], [0x78])
    expect(catchErr(() => decodeWideColumns(b)).message).toMatch(/1 unused byte\(s\) in the value-size section/)
    // name section declared 2 bytes, only 1 used
    const c = cat(v(2), v(1), v(1), v(1), v(2), [1], v(1), v(1), [0x61, 0x62], [0x78])
    expect(catchErr(() => decodeWideColumns(c)).message).toMatch(/1 unused byte\(s\) in the name section/)
    // trailing value bytes
    const d = cat(v2([['a', 'x', 1]]), [0xee])
    const e = catchErr(() => decodeWideColumns(d, 10))
    expect(e.message).toMatch(/1 unexpected trailing byte/)
    expect(e.offset).toBe(10 + d.length - 1)
  })

  it('rejects out-of-order names', () => {
    expect(
      catchErr(() =>
        decodeWideColumns(
          v2([
            ['b', 'x', 1],
            ['a', 'y', 1],
          ]),
        ),
      ).message,
    ).toMatch(/out of order/)
  })

  it('rejects empty or malformed blob indexes', () => {
    const e = catchErr(() => decodeWideColumns(v2([['a', new Uint8Array(0), 0x11]]), 0))
    expect(e.message).toMatch(/column 0 has an empty blob index/)
    const bad = v2([['a', Uint8Array.of(9, 9), 0x11]])
    const e2 = catchErr(() => decodeWideColumns(bad, 1000))
    expect(e2.message).toMatch(/blob index: unknown type 9/)
    expect(e2.offset).toBe(1000 + bad.length - 2)
  })
})

describe('formatWideColumns (WideColumnsHelper::DumpWideColumns)', () => {
  const cols = decodeWideColumns(
    v1([
      ['', 'dflt'],
      ['attr', 'x'],
      ['n', ''],
    ]),
  )
  it('prints name:value separated by spaces', () => {
    expect(formatWideColumns(cols)).toBe(':dflt attr:x n:')
  })
  it('prints 0x-prefixed upper-case hex, nothing for empty parts', () => {
    expect(formatWideColumns(cols, { hex: true })).toBe(':0x64666C74 0x61747472:0x78 0x6E:')
  })
  it('prints nothing for no columns', () => {
    expect(formatWideColumns([])).toBe('')
  })
})

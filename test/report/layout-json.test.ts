/**
 * layout --json streams each file's object block by block (src/report/layout.ts): whatever it
 * writes must parse, and a walk that stopped part-way says why in the file's own object.
 */
import { describe, expect, it } from 'vitest'
import { LayoutJsonStream } from '../../src/report/layout.js'
import type { LayoutBlock, LayoutTotals } from '../../src/table/layout.js'

const block: LayoutBlock = {
  kind: 'data',
  name: '',
  offset: 0,
  size: 100,
  sizeOnDisk: 105,
  compressionType: 0,
  compression: 'NoCompression',
  uncompressedSize: 100,
  storedChecksum: 1,
  checksum: 'ok',
}
const totals: LayoutTotals[] = [{ kind: 'data', count: 1, sizeOnDisk: 105, uncompressedSize: 100 }]

function streamed(indent: string, write: (s: LayoutJsonStream) => void): string {
  let text = ''
  write(new LayoutJsonStream((s) => (text += s), indent))
  return text
}

describe('LayoutJsonStream', () => {
  it('a whole walk: the blocks, totals, block count and problems, and no error key', () => {
    const j = JSON.parse(
      streamed('', (s) => {
        s.begin('a.sst', 200)
        s.block(block)
        s.end(totals, 0)
      }),
    )
    expect(j).toEqual({ file: 'a.sst', fileSize: 200, blocks: [block], totals, blockCount: 1, problems: 0 })
  })

  it('a walk that stopped: what it listed, then why it stopped, inside the array of several files', () => {
    const error = { code: 'internal', message: 'internal error: boom', offset: 105, exitCode: 2 }
    const text = streamed('  ', (s) => {
      s.begin('a.sst', 200)
      s.block(block)
      s.end(totals, 0, error)
    })
    const [j] = JSON.parse(`[\n${text}\n]`)
    expect(j.blocks).toEqual([block])
    expect(j.error).toEqual(error)
    expect(Object.keys(j).at(-1)).toBe('error')
  })
})

/**
 * `--command=raw` prints data-block entries in WebAssembly (sstdumpEntries' raw
 * mode) and hands a block to the JavaScript path from the entry the module
 * does not take (here: a value whose dump overflows its output region). Both
 * paths, and the hand-over mid-block, give the same _dump.txt as each other
 * and as the real sst_dump.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ChecksumType } from '../../src/format/checksum-type.js'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { WasmBlockPrinter } from '../../src/scan/wasm-printer.js'
import { FileSink, plainWriterOptions, TableWriter } from '../../src/table/writer.js'
import { SST_DUMP } from '../helpers.js'
import { runIn } from './harness.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sstkit-raw-wasm-'))
  const fd = openSync(join(dir, 't.sst'), 'w')
  const w = new TableWriter(new FileSink(fd), plainWriterOptions({ checksumType: ChecksumType.CRC32c, blockSize: 1 << 20 }))
  // one block: small entries (one with NULs), a 300 KB value (5 bytes of dump per byte: past the module's 1 MiB), small ones again
  const values = [Buffer.from('a\0b'), Buffer.from('plain'), Buffer.alloc(300_000, 0x41), Buffer.from('after\0'), Buffer.from('last')]
  values.forEach((v, i) => {
    w.add(encodeInternalKey(Buffer.from(`key\0${i}`), i + 1, ValueType.Value), v)
  })
  w.finish()
  closeSync(fd)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function dump(name: string): Promise<Buffer> {
  cpSync(join(dir, 't.sst'), join(dir, `${name}.sst`))
  const r = await runIn(dir, [`--file=${name}.sst`, '--command=raw'])
  expect(r.code).toBe(0)
  return readFileSync(join(dir, `${name}_dump.txt`))
}

describe('sst-dump --command=raw: WebAssembly and JavaScript entry lines', () => {
  it('hands over mid-block and matches the JavaScript path byte for byte', async () => {
    const data = vi.spyOn(WasmBlockPrinter.prototype, 'printSstDumpData')
    const mixed = await dump('mixed')
    // the module printed the first two entries of the block, then handed it over
    expect(data.mock.results.map((r) => r.value)).toEqual([2])
    data.mockRestore()
    const create = vi.spyOn(WasmBlockPrinter, 'create').mockReturnValue(null)
    const js = await dump('js')
    expect(create).toHaveBeenCalled()
    create.mockRestore()
    expect(mixed.equals(js)).toBe(true)
    expect(mixed.toString('latin1')).toContain('  ASCII  k e y \\0 0 : a \\0 b \n')
  })

  it.runIf(SST_DUMP !== null)('matches the real sst_dump', async () => {
    const ours = await dump('ours')
    cpSync(join(dir, 't.sst'), join(dir, 'real.sst'))
    expect(spawnSync(SST_DUMP!, ['--file=real.sst', '--command=raw'], { cwd: dir }).status).toBe(0)
    expect(ours.equals(readFileSync(join(dir, 'real_dump.txt')))).toBe(true)
  })
})

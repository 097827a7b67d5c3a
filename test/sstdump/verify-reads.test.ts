/**
 * `--command=verify` without --verify_checksum reads the data blocks in chunks
 * on libuv's threads (Dumper.readDataBlocks). A chunk whose read fails is read
 * again synchronously: a passing retry is no report, a failing one is the
 * serial read's status, the first in file order.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { FileByteSource } from '../../src/io/byte-source.js'
import { Table } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'
import { runIn } from './harness.js'

const FILE = '--file=test/fixtures/real/index-partitioned.sst'

afterEach(() => {
  vi.restoreAllMocks()
})

function eio(): Error {
  return Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })
}

describe('sst-dump --command=verify: the data block reads', () => {
  it('reads every data block byte, in chunks off the main thread', async () => {
    const read = vi.spyOn(FileByteSource.prototype, 'readIntoAsync')
    const r = await runIn(ROOT, [FILE, '--command=verify'])
    expect(r.stdout.toString()).toContain('The file is ok\n')
    expect(read).toHaveBeenCalled()
    const bytes = read.mock.calls.reduce((n, [, target]) => n + target.length, 0)
    // 40 data blocks of about 100 bytes, with their trailers
    expect(bytes).toBeGreaterThan(40 * 5)
  })

  it('walks the index block read at open: it is not read again', async () => {
    const read = vi.spyOn(Table.prototype, 'readBlock')
    const r = await runIn(ROOT, ['--file=test/fixtures/real/fv5-snappy.sst', '--command=verify'])
    expect(r.stdout.toString()).toContain('The file is ok\n')
    expect(read.mock.calls.filter(([, what]) => what === 'index block')).toEqual([])
  })

  it('a failed read that reads on retry is no report', async () => {
    vi.spyOn(FileByteSource.prototype, 'readIntoAsync').mockRejectedValue(eio())
    const r = await runIn(ROOT, [FILE, '--command=verify'])
    expect(r.code).toBe(0)
    expect(r.stdout.toString()).toContain('The file is ok\n')
  })

  it('a read that fails again is reported as the serial read reports it', async () => {
    vi.spyOn(FileByteSource.prototype, 'readIntoAsync').mockRejectedValue(eio())
    const sync = FileByteSource.prototype.readInto
    vi.spyOn(FileByteSource.prototype, 'readInto').mockImplementation(function (this: FileByteSource, offset, target) {
      // the first data block starts the file: only the retry of its chunk reads there
      if (offset === 0) throw eio()
      return sync.call(this, offset, target)
    })
    const r = await runIn(ROOT, [FILE, '--command=verify'])
    expect(r.code).toBe(0)
    expect(r.stderr.toString()).toBe('test/fixtures/real/index-partitioned.sst is corrupted: IO error: EIO: i/o error, read\n')
    expect(r.stdout.toString()).not.toContain('The file is ok')
  })
})

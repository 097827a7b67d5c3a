/**
 * The data blocks a table writer holds while it waits to build a compression
 * dictionary (RocksDB buffers them up to max_dict_buffer_bytes, 0 meaning the
 * whole file). Up to `memoryBytes` stay in memory; the rest go to an anonymous
 * temporary file (unlinked as soon as it is opened, so that nothing is left
 * behind whatever happens), which keeps memory bounded whatever the file size.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** Blocks kept in memory before spilling (the rest of a writer's memory is one block and the index). */
export const DEFAULT_SPILL_MEMORY_BYTES = 4 << 20

/** A buffered data block and the internal keys bounding it (its index entry needs them). */
export interface HeldBlock {
  block: Uint8Array
  first: Uint8Array
  last: Uint8Array
}

export class BlockSpill {
  private readonly inMemory: HeldBlock[] = []
  private memoryUsed = 0
  /** Offset of each spilled record (block, first key, last key) in the file (block i >= inMemory.length). */
  private readonly offsets: number[] = []
  /** Key lengths of spilled records, two per record. */
  private readonly keyLengths: number[] = []
  private readonly sizes: number[] = []
  private fd = -1
  private fileBytes = 0

  /** `dir`: where the temporary file goes (null: never spill). */
  constructor(
    private readonly dir: string | null,
    private readonly memoryBytes = DEFAULT_SPILL_MEMORY_BYTES,
  ) {}

  get count(): number {
    return this.sizes.length
  }

  /** Each block's size, in order. */
  get blockSizes(): readonly number[] {
    return this.sizes
  }

  push(held: HeldBlock): void {
    const bytes = held.block.length + held.first.length + held.last.length
    if (this.dir === null || (this.fd < 0 && this.memoryUsed + bytes <= this.memoryBytes)) {
      this.inMemory.push(held)
      this.memoryUsed += bytes
    } else {
      if (this.fd < 0) this.fd = anonymousFile(this.dir)
      this.offsets.push(this.fileBytes)
      for (const part of [held.block, held.first, held.last]) this.append(part)
      this.keyLengths.push(held.first.length, held.last.length)
    }
    this.sizes.push(held.block.length)
  }

  private append(bytes: Uint8Array): void {
    let done = 0
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.fileBytes + done)
    this.fileBytes += bytes.length
  }

  /** Block `i` with its keys (fresh copies when spilled). */
  get(i: number): HeldBlock {
    if (i < this.inMemory.length) return this.inMemory[i]
    const j = i - this.inMemory.length
    const firstLength = this.keyLengths[2 * j]
    const record = this.read(this.offsets[j], this.sizes[i] + firstLength + this.keyLengths[2 * j + 1])
    const keysAt = this.sizes[i]
    return { block: record.subarray(0, keysAt), first: record.subarray(keysAt, keysAt + firstLength), last: record.subarray(keysAt + firstLength) }
  }

  private read(offset: number, length: number): Uint8Array {
    const out = new Uint8Array(length)
    let done = 0
    while (done < length) {
      const n = readSync(this.fd, out, done, length - done, offset + done)
      if (n === 0) throw new Error('the temporary block file ended early')
      done += n
    }
    return out
  }

  /** Release the memory and the temporary file. */
  close(): void {
    this.inMemory.length = 0
    if (this.fd >= 0) closeSync(this.fd)
    this.fd = -1
  }
}

/** A read-write file with no name: created in a fresh directory under `dir`, then unlinked. */
function anonymousFile(dir: string): number {
  const d = mkdtempSync(join(dir, '.sstkit-spill-'))
  const path = join(d, 'blocks')
  const fd = openSync(path, 'wx+')
  unlinkSync(path)
  rmdirSync(d)
  return fd
}

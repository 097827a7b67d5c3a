/**
 * The recompress pool's worker threads: their errors reach the caller as their
 * own classes. Workers run the built JavaScript, so this loads dist/ (npm test
 * builds first).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type * as ErrorsModule from '../../src/errors.js'
import type * as PoolModule from '../../src/recompress/pool.js'
import type { EvaluateTask } from '../../src/recompress/evaluate.js'
import type * as BlockReaderModule from '../../src/table/block-reader.js'
import type * as ReaderModule from '../../src/table/reader.js'
import { assertFreshBuild, BAD, REAL, ROOT } from '../helpers.js'

assertFreshBuild()
const dist = (p: string) => join(ROOT, 'dist', p)
const { runTasks } = (await import(dist('recompress/pool.js'))) as typeof PoolModule
const { CorruptionError } = (await import(dist('errors.js'))) as typeof ErrorsModule
const { ChecksumMismatchError } = (await import(dist('table/block-reader.js'))) as typeof BlockReaderModule
const { openTable } = (await import(dist('table/reader.js'))) as typeof ReaderModule

function task(file: string): EvaluateTask {
  return {
    file,
    configs: [],
    dictionaries: {},
    source: { blockSize: null, samplePercent: 100 },
    maxCompressedBytesPerKb: 896,
    repeat: 1,
    maxDictBytes: 0,
    trainBytes: 0,
    maxDictBufferBytes: 0,
  }
}

describe('recompress worker errors', () => {
  it('a CorruptionError thrown in a worker rejects as itself, class, offset and message kept', async () => {
    const file = join(BAD, 'properties-flip.sst')
    let expected: InstanceType<typeof ChecksumMismatchError> | undefined
    try {
      openTable(file)
    } catch (e) {
      expected = e as InstanceType<typeof ChecksumMismatchError>
    }
    expect(expected).toBeInstanceOf(ChecksumMismatchError)
    // The first task goes to the worker, the second to this thread's lane (a sound file): the error must come from the worker.
    const got = await runTasks([task(file), task(join(REAL, 'fv5-crc32c-snappy.sst'))], 2).then(
      () => null,
      (e: unknown) => e as InstanceType<typeof ChecksumMismatchError>,
    )
    expect(got).toBeInstanceOf(ChecksumMismatchError)
    expect(got).toBeInstanceOf(CorruptionError)
    expect([got!.name, got!.message, got!.offset, got!.code]).toEqual([expected!.name, expected!.message, expected!.offset, 'corruption'])
    expect(got!.offset).toBeGreaterThan(0)
  })
})

describe('recompress lanes lend their cores', () => {
  it('a lane left without a task lends its core, and the run takes every lent core back', async () => {
    const { lendCores } = (await import(dist('codec/kernel.js'))) as typeof import('../../src/codec/kernel.js')
    const sound = { ...task(join(REAL, 'fv5-crc32c-snappy.sst')), splitCompression: true }
    // Three tasks on two lanes: one lane finds none left while the other works.
    await runTasks([sound, sound, sound], 2)
    expect(lendCores(0)).toBe(0)
    // And after a failure.
    await expect(runTasks([{ ...task(join(BAD, 'properties-flip.sst')), splitCompression: true }, sound, sound], 2)).rejects.toThrow()
    expect(lendCores(0)).toBe(0)
  })
})

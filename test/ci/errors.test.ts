/** The CI commands sort errors by class and kind, never by name (src/ci/errors.ts). */
import { describe, expect, it } from 'vitest'
import { BaselineError } from '../../src/ci/baseline.js'
import { ConfigError } from '../../src/ci/config.js'
import { isFileError, isUsageError } from '../../src/ci/errors.js'
import { FileArgError, MeasureError } from '../../src/ci/measure.js'
import { ThresholdError } from '../../src/cli/units.js'
import { CorruptionError, errorFromTransfer, errorToTransfer, NotSupportedError } from '../../src/errors.js'
import { MatrixError } from '../../src/recompress/config.js'
import { DictFileError } from '../../src/recompress/engine.js'
import { RoundTripError } from '../../src/recompress/evaluate.js'
import { ChecksumMismatchError } from '../../src/table/block-reader.js'

const enoent = Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT', syscall: 'open' })
const fromWorker = (e: Error) => errorFromTransfer(structuredClone(errorToTransfer(e)))

describe('ci errors', () => {
  it('usage errors: configuration, baseline, file arguments, matrix, thresholds, dictionary file, --strip', () => {
    for (const e of [
      new ConfigError('x'),
      new BaselineError('x'),
      new FileArgError('x'),
      new MatrixError('x'),
      new ThresholdError('x'),
      new DictFileError('x'),
      new SyntaxError('bad regex'),
    ]) {
      expect(isUsageError(e), e.name).toBe(true)
      expect(isFileError(e), e.name).toBe(false)
    }
  })

  it('file errors: corrupt, unsupported, unmeasurable, I/O — also as they arrive from a worker thread', () => {
    const file = [
      new CorruptionError('x', 1),
      new ChecksumMismatchError('data block', { offset: 0, size: 1 }, 1, 2, 1),
      new NotSupportedError('x'),
      new MeasureError('x'),
      enoent,
    ]
    for (const e of [...file, ...file.map(fromWorker)]) {
      expect(isFileError(e), e.name).toBe(true)
      expect(isUsageError(e), e.name).toBe(false)
    }
    expect(isUsageError(fromWorker(new DictFileError('x')))).toBe(true)
  })

  it('by class, not by name: a plain Error named CorruptionError is neither', () => {
    const impostor = new Error('x')
    impostor.name = 'CorruptionError'
    expect(isFileError(impostor)).toBe(false)
    expect(isUsageError(impostor)).toBe(false)
    expect(isFileError(new RoundTripError('mismatch'))).toBe(false)
    expect(isFileError(new TypeError('bug'))).toBe(false)
  })
})

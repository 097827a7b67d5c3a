/** src/index.ts is a deliberate public surface: its entry points are there, internals are not. */
import { describe, expect, it } from 'vitest'
import * as sstkit from '../src/index.js'

describe('the public surface', () => {
  it('exports the documented entry points', () => {
    for (const name of [
      'openTable',
      'Table',
      'TableIterator',
      'tableLayout',
      'verifyTable',
      'filterInfo',
      'FileByteSource',
      'BufferByteSource',
      'SstkitError',
      'errorCode',
      'CorruptionError',
      'NotSupportedError',
      'ChecksumMismatchError',
      'UsageError',
      'MatrixError',
      'DictFileError',
      'RewriteError',
      'recompressFile',
      'buildMatrix',
      'matrixNoteText',
      'parseTypes',
      'parseLevels',
      'parseDicts',
      'parseChecksums',
      'rewriteFile',
      'rewrittenSize',
      'defaultRewriteOptions',
      'defaultFormatVersion',
      'TableWriter',
      'FileSink',
      'CountingSink',
      'writeSynth',
      'synthValues',
      'RateDecider',
      'RatioDecider',
    ]) {
      expect(typeof (sstkit as Record<string, unknown>)[name], name).toBe('function')
    }
  })

  it('does not export internals (the PRNG, auto-skip weights and defaults, the worker transfer codec)', () => {
    for (const name of [
      'prng',
      'ALPHA_BETTER',
      'ALPHA_WORSE',
      'DEFAULT_MIN_SAMPLE_EVERY',
      'deciderSeed',
      'errorToTransfer',
      'errorFromTransfer',
      'transferable',
    ]) {
      expect(sstkit, name).not.toHaveProperty(name)
    }
  })
})

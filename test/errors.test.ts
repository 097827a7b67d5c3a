/** The one error model: kinds, and errors crossing threads as themselves (src/errors.ts). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BaselineError } from '../src/ci/baseline.js'
import { ConfigError } from '../src/ci/config.js'
import { FileArgError, MeasureError } from '../src/ci/measure.js'
import { ThresholdError } from '../src/cli/units.js'
import { OutputOverflow } from '../src/codec/output.js'
import { DictionaryBuildError } from '../src/codec/zdict.js'
import { CorruptionError, errorCode, errorFromTransfer, errorToTransfer, NotSupportedError, SstkitError, UsageError, type ErrorCode } from '../src/errors.js'
import { ShortReadError } from '../src/io/byte-source.js'
import { MatrixError } from '../src/recompress/config.js'
import { DictFileError } from '../src/recompress/engine.js'
import { RoundTripError } from '../src/recompress/evaluate.js'
import { SstDumpStatus } from '../src/sstdump/status.js'
import { ChecksumMismatchError } from '../src/table/block-reader.js'
import { RewriteError } from '../src/rewrite/rewrite.js'

/** What postMessage does to a message: a structured clone. */
const acrossThreads = (e: unknown) => errorFromTransfer(structuredClone(errorToTransfer(e)))

function systemError(): NodeJS.ErrnoException {
  try {
    readFileSync('/nonexistent/sstkit-errors-test')
  } catch (e) {
    return e as NodeJS.ErrnoException
  }
  throw new Error('unreachable')
}

describe('error kinds', () => {
  const cases: [Error, ErrorCode][] = [
    [new CorruptionError('bad block', 10), 'corruption'],
    [new ChecksumMismatchError('data block', { offset: 4096, size: 100 }, 1, 2, 1), 'corruption'],
    [new MeasureError('unreadable data blocks'), 'corruption'],
    [new NotSupportedError('plain table'), 'not-supported'],
    [new UsageError('bad flag'), 'usage'],
    [new MatrixError('bad level'), 'usage'],
    [new DictFileError('no such dictionary'), 'usage'],
    [new ConfigError('bad config'), 'usage'],
    [new BaselineError('bad baseline'), 'usage'],
    [new FileArgError('duplicate name'), 'usage'],
    [new ThresholdError('bad threshold'), 'usage'],
    [new RewriteError('usage', 'x exists'), 'usage'],
    [new RewriteError('io', 'cannot write x'), 'io'],
    [new RewriteError('corruption', 'verification failed'), 'corruption'],
    [new ShortReadError(10, 20, 15), 'io'],
    [SstDumpStatus.of('Corruption', 'bad block'), 'corruption'],
    [SstDumpStatus.of('IOError', 'EIO'), 'io'],
    [new RoundTripError('mismatch'), 'internal'],
    [new DictionaryBuildError('too few samples'), 'internal'],
    [new OutputOverflow(10), 'internal'],
    [systemError(), 'io'],
    [new TypeError('a bug'), 'internal'],
  ]
  it.each(cases)('%s is %s', (e, code) => {
    expect(errorCode(e)).toBe(code)
    if (e instanceof SstkitError) expect(e.code).toBe(code)
  })

  it('a thrown non-error is internal', () => {
    expect(errorCode('oops')).toBe('internal')
    expect(errorCode(undefined)).toBe('internal')
  })

  it('the offset is in the message and on the error; file and cause are kept', () => {
    const cause = new Error('inner')
    const e = new SstkitError('corruption', 'bad index', { offset: 77, file: 'a.sst', cause })
    expect(e.message).toBe('bad index (at offset 77)')
    expect(e.offset).toBe(77)
    expect(e.file).toBe('a.sst')
    expect(e.cause).toBe(cause)
    expect(new CorruptionError('bad').message).toBe('bad')
    expect(new CorruptionError('bad').offset).toBeUndefined()
  })
})

describe('errorToTransfer / errorFromTransfer', () => {
  it('a CorruptionError arrives as a CorruptionError with its offset and message', () => {
    const e = acrossThreads(new CorruptionError('data block is truncated', 4096))
    expect(e).toBeInstanceOf(CorruptionError)
    expect(e.name).toBe('CorruptionError')
    expect(e.message).toBe('data block is truncated (at offset 4096)')
    expect((e as CorruptionError).offset).toBe(4096)
    expect((e as CorruptionError).code).toBe('corruption')
  })

  it('subclasses arrive as themselves, with their own fields', () => {
    const sent = new ChecksumMismatchError('data block', { offset: 4096, size: 100 }, 0x1234, 0x5678, 1)
    const e = acrossThreads(sent) as ChecksumMismatchError
    expect(e).toBeInstanceOf(ChecksumMismatchError)
    expect(e).toBeInstanceOf(CorruptionError)
    expect(e.message).toBe(sent.message)
    expect(e.offset).toBe(4096)
    expect(e.handle).toEqual({ offset: 4096, size: 100 })
    expect([e.stored, e.computed]).toEqual([0x1234, 0x5678])

    for (const s of [
      new MatrixError('--levels: not a level: fast'),
      new DictFileError('dictionary file x is empty'),
      new RoundTripError('mismatch'),
      new NotSupportedError('Xpress', 12),
    ]) {
      const r = acrossThreads(s)
      expect(r.constructor).toBe(s.constructor)
      expect([r.name, r.message, errorCode(r)]).toEqual([s.name, s.message, errorCode(s)])
    }
    const status = acrossThreads(SstDumpStatus.of('NotFound', 'Cannot find the meta block', 'rocksdb.properties')) as SstDumpStatus
    expect(status).toBeInstanceOf(SstDumpStatus)
    expect([status.status, status.state, status.toString()]).toEqual([
      'NotFound',
      'Cannot find the meta block: rocksdb.properties',
      'NotFound: Cannot find the meta block: rocksdb.properties',
    ])
  })

  it('a system error keeps its kind, errno code, syscall and path', () => {
    const sent = systemError()
    const e = acrossThreads(sent) as NodeJS.ErrnoException
    expect(e).toBeInstanceOf(Error)
    expect(errorCode(e)).toBe('io')
    expect([e.code, e.syscall, e.path, e.message]).toEqual(['ENOENT', 'open', '/nonexistent/sstkit-errors-test', sent.message])
  })

  it('built-in errors stay built-ins; a class not registered arrives as an SstkitError of its name and kind', () => {
    const t = acrossThreads(new TypeError('x is not a function'))
    expect(t).toBeInstanceOf(TypeError)
    expect(errorCode(t)).toBe('internal')
    class LocalError extends SstkitError {
      override name = 'LocalError'
    }
    const l = acrossThreads(new LocalError('not-supported', 'a feature', { offset: 5 }))
    expect(l).toBeInstanceOf(SstkitError)
    expect([l.name, l.message, (l as SstkitError).code, (l as SstkitError).offset]).toEqual(['LocalError', 'a feature (at offset 5)', 'not-supported', 5])
    const s = acrossThreads('thrown string')
    expect([s.name, s.message, errorCode(s)]).toEqual(['Error', 'thrown string', 'internal'])
  })

  it('the transfer is plain data (postMessage clones it) and leaves out what cannot cross', () => {
    const e = new SstkitError('io', 'cannot write', { cause: { close: () => {} } })
    const t = errorToTransfer(e)
    expect(() => structuredClone(t)).not.toThrow()
    expect(t).not.toHaveProperty('cause')
    expect(t.fields).toBeUndefined()
  })
})

import { CorruptionError } from '../../src/format/errors.js'

/** Run `fn`, which must throw a CorruptionError, and return it (for asserting message and offset). */
export function catchErr(fn: () => unknown): CorruptionError {
  try {
    fn()
  } catch (e) {
    if (e instanceof CorruptionError) return e
    throw e
  }
  throw new Error('expected a CorruptionError')
}

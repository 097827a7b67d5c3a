/** Errors of the CI commands that are the user's to fix: bad flags, config, baseline or file arguments (exit 2). */
import { CorruptionError, NotSupportedError } from '../format/errors.js'
import { MatrixError } from '../recompress/config.js'
import { BaselineError } from './baseline.js'
import { ConfigError } from './config.js'
import { FileArgError, MeasureError } from './measure.js'
import { ThresholdError } from './units.js'

export function isUsageError(e: unknown): e is Error {
  return (
    e instanceof ConfigError ||
    e instanceof BaselineError ||
    e instanceof FileArgError ||
    e instanceof MatrixError ||
    e instanceof ThresholdError ||
    // An invalid --strip regular expression.
    e instanceof SyntaxError
  )
}

/**
 * A file that cannot be measured: not an SST, corrupt, unsupported, or an I/O
 * error. Errors from the recompress worker threads arrive as plain Errors
 * carrying the original class name.
 */
export function isFileError(e: unknown): e is Error {
  if (!(e instanceof Error)) return false
  if (e instanceof CorruptionError || e instanceof NotSupportedError || e instanceof MeasureError) return true
  if (e.name === 'CorruptionError' || e.name === 'NotSupportedError' || e.name === 'ChecksumMismatchError') return true
  return typeof (e as NodeJS.ErrnoException).syscall === 'string'
}

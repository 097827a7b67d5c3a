/** How the CI commands sort errors: by their kind (src/errors.ts), never by class name. */
import { errorCode } from '../errors.js'

/**
 * A file that cannot be measured: not an SST, corrupt, unsupported, or an I/O
 * error. Errors from the recompress worker threads arrive as their own classes
 * (src/errors.ts's transfer codec), so they sort the same way.
 */
export { isFileError } from '../errors.js'

/** The user's to fix: bad flags, config, baseline, thresholds or file arguments (exit 2). */
export function isUsageError(e: unknown): e is Error {
  // SyntaxError: an invalid --strip regular expression.
  return errorCode(e) === 'usage' || e instanceof SyntaxError
}

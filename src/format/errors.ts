/**
 * Errors raised while decoding an SST. Every error carries the file offset it
 * concerns (when known) so that a message can say what is wrong and where.
 * They are part of sstkit's one error model (src/errors.ts).
 */
export { CorruptionError, NotSupportedError } from '../errors.js'

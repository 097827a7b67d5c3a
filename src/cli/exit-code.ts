/**
 * sstkit's exit codes, and the one rule that picks the code for an error.
 * 0 success, 1 a finding (a file that opened holds damage), 2 a usage error or
 * a file that cannot be opened as an SST.
 */
import { errorCode } from '../errors.js'

export const ExitCode = { Ok: 0, Finding: 1, Usage: 2 } as const
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * Where a command was with the file when the error came: `opening` (it never
 * became a table the command could work on) or `opened` (it did, and the error
 * is something found inside it).
 */
export type FileStage = 'opening' | 'opened'

/**
 * The exit code for an error: usage and I/O errors are 2 wherever they happen;
 * anything else is a finding (1) in a file that opened, and 2 for a file that
 * could not be opened.
 */
export function exitCodeFor(e: unknown, stage: FileStage): ExitCodeValue {
  const code = errorCode(e)
  if (code === 'usage' || code === 'io') return ExitCode.Usage
  return stage === 'opened' ? ExitCode.Finding : ExitCode.Usage
}

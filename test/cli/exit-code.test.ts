/** One rule from an error to the exit code (src/cli/exit-code.ts). */
import { describe, expect, it } from 'vitest'
import { exitCodeFor, type FileStage } from '../../src/cli/exit-code.js'
import { CorruptionError, NotSupportedError, SstkitError, UsageError } from '../../src/errors.js'
import { MatrixError } from '../../src/recompress/config.js'
import { RewriteError } from '../../src/rewrite/rewrite.js'

const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'x.sst'"), { code: 'ENOENT', syscall: 'open', errno: -2 })

describe('exitCodeFor', () => {
  const table: [string, unknown, FileStage, number][] = [
    ['usage, opening', new UsageError('bad flag'), 'opening', 2],
    ['usage, opened', new MatrixError('bad level'), 'opened', 2],
    ['rewrite would overwrite', new RewriteError('usage', 'out.sst exists'), 'opened', 2],
    ['io, opening', enoent, 'opening', 2],
    ['io, opened', enoent, 'opened', 2],
    ['rewrite cannot write', new RewriteError('io', 'cannot write out.sst'), 'opened', 2],
    ['corruption, opening', new CorruptionError('bad magic', 100), 'opening', 2],
    ['corruption, opened', new CorruptionError('bad block', 100), 'opened', 1],
    ['rewrite verification failed', new RewriteError('corruption', 'verification failed'), 'opened', 1],
    ['not supported, opening', new NotSupportedError('plain table'), 'opening', 2],
    ['not supported, opened', new NotSupportedError('Xpress block'), 'opened', 1],
    ['internal, opening', new TypeError('a bug'), 'opening', 2],
    ['internal, opened', new SstkitError('internal', 'a bug'), 'opened', 1],
  ]
  it.each(table)('%s → %i', (_what, e, stage, code) => {
    expect(exitCodeFor(e, stage)).toBe(code)
  })
})

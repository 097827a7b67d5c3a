/**
 * `verify`, the command's work (shared with src/commands/verify.ts) and its start without
 * oclif: `verify [--jobs N] [--json] PATH...` runs through bin/run.js without loading oclif
 * (~80 ms of a run, measured on commit 565c1a2, 2026-12-01); any other command line is oclif's, and what
 * this path prints is what oclif's would (test/cli/verify-main.test.ts runs both).
 */
import { ExitCode } from '../cli/exit-code.js'
import { openSource } from '../cli/fault-injection.js'
import { type FileErrorJson, type FileSession, isBlobFile } from '../cli/file-session.js'
import { type BlobVerifyJson, blobVerifyJson, blobVerifyText } from '../report/blob.js'
import type { OpenTableOptions } from '../reader.js'
import { verifyText, type VerifyJson } from '../report/verify.js'
import { verifyFile } from '../verify/verify.js'
import { plainPathArgs, runPlain } from './plain.js'
/** bin/run.cjs ends the process with it once the command is done. */
export { exitAtOnce } from '../util/exit.js'

export type VerifyResultJson = VerifyJson | BlobVerifyJson | FileErrorJson | (VerifyJson | BlobVerifyJson | FileErrorJson)[] | undefined

export interface VerifyRunOptions extends Pick<OpenTableOptions, 'comparator' | 'keyFormat'> {
  jobs?: number
  chunkBytes?: number
}

/** Every file's report: printed with `log` for people, or returned for --json (one file: its object). */
export function verifyReport(run: FileSession, paths: string[], json: boolean, options: VerifyRunOptions, log: (line: string) => void): VerifyResultJson {
  const files = run.expandFiles(paths, { blobFiles: true })
  const results: (VerifyJson | BlobVerifyJson | FileErrorJson)[] = []
  for (const file of files) {
    if (isBlobFile(file)) {
      results.push(verifyBlob(run, file, json, log))
      continue
    }
    const outcome = verifyFile(file, { ...options, openSource })
    if (outcome.kind === 'unopenable') {
      results.push(run.reportFileError(file, outcome.error, 'opening'))
      continue
    }
    const { kind, ...r } = outcome
    results.push(r)
    if (kind === 'findings') run.raise(ExitCode.Finding)
    if (!json) log(verifyText(r))
  }
  if (!json) return undefined
  return files.length === 1 ? results[0] : results
}

/** One blob file's check: OK, CORRUPT with each problem (exit 1), or why it could not be opened (exit 2). */
function verifyBlob(run: FileSession, file: string, json: boolean, log: (line: string) => void): BlobVerifyJson | FileErrorJson {
  const blob = run.openBlob(file)
  if (!blob) return run.failure(file)
  try {
    const r = blobVerifyJson(file, blob)
    if (!r.ok) run.raise(ExitCode.Finding)
    if (!json) log(blobVerifyText(r))
    return r
  } catch (e) {
    return run.reportFileError(file, e, 'opened')
  } finally {
    blob.close()
  }
}

/**
 * The paths, --json and --jobs of a command line (after `verify`) that runs without oclif, or
 * null: plainPathArgs's, with at most one `--jobs N` or `--jobs=N` (N a plain positive integer).
 */
export function plainVerifyArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { paths: string[]; json: boolean; jobs?: number } | null {
  const rest: string[] = []
  let jobs: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a !== '--jobs' && !a.startsWith('--jobs=')) {
      rest.push(a)
      continue
    }
    if (jobs !== undefined) return null
    jobs = a === '--jobs' ? argv[++i] : a.slice('--jobs='.length)
    if (jobs === undefined || !/^[1-9][0-9]{0,8}$/.test(jobs)) return null
  }
  const plain = plainPathArgs(rest, env, platform, argv)
  if (!plain) return null
  return jobs === undefined ? plain : { ...plain, jobs: Number(jobs) }
}

/** Run `verify ARGV` without oclif (plain.ts); null when the command line is not one this path takes, for oclif to run. */
export function verifyMain(argv: readonly string[]): number | null {
  const plain = plainVerifyArgs(argv)
  if (!plain) return null
  // oclif's default for --key-format.
  const options: VerifyRunOptions = { keyFormat: 'auto', jobs: plain.jobs }
  return runPlain(plain.json, (run, log) => verifyReport(run, plain.paths, plain.json, options, log))
}

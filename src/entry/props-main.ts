/**
 * `props`, the command's work (shared with src/commands/props.ts) and its start without oclif:
 * the command line a script or a person types most, `props [--json] PATH...`, runs through
 * bin/run.js without loading oclif (its config, parser and 280 KB of code are most of a small
 * file's run: bench/README.md, "Start-up"). Anything else goes to oclif, so --help, every other
 * flag and every usage error stay oclif's; what this path prints is what oclif's would
 * (test/cli/props-main.test.ts runs both on the same files).
 */
import { type PropsJson, propsJson, propsText } from '../report/props.js'
import { ExitCode } from '../cli/exit-code.js'
import { type FileErrorJson, type FileSession, isBlobFile } from '../cli/file-session.js'
import { type BlobPropsJson, blobPropsJson, blobPropsText } from '../report/blob.js'
import { plainPathArgs, runPlain } from './plain.js'
/** bin/run.cjs ends the process with it once the command is done. */
export { exitAtOnce } from '../util/exit.js'

export type PropsResult = PropsJson | BlobPropsJson | FileErrorJson | (PropsJson | BlobPropsJson | FileErrorJson)[] | undefined

/** Every file's report: printed with `log` for people, or returned for --json (one file: its object). */
export function propsReport(run: FileSession, paths: string[], json: boolean, log: (line: string) => void): PropsResult {
  const files = run.expandFiles(paths, { blobFiles: true })
  const results: (PropsJson | BlobPropsJson | FileErrorJson)[] = []
  let printed = 0
  for (const file of files) {
    if (isBlobFile(file)) {
      const blob = run.openBlob(file)
      if (!blob) {
        results.push(run.failure(file))
        continue
      }
      try {
        const j = blobPropsJson(file, blob)
        results.push(j)
        if (j.problems) run.raise(ExitCode.Finding)
        if (!json) {
          if (printed++ > 0) log('')
          log(blobPropsText(j))
        }
      } catch (e) {
        results.push(run.reportFileError(file, e, 'opened'))
      } finally {
        blob.close()
      }
      continue
    }
    const table = run.open(file)
    if (!table) {
      results.push(run.failure(file))
      continue
    }
    try {
      const j = propsJson(file, table)
      results.push(j)
      if (j.problems) run.raise(ExitCode.Finding)
      if (!json) {
        if (printed++ > 0) log('')
        log(propsText(j))
      }
    } catch (e) {
      results.push(run.reportFileError(file, e, 'opened'))
    } finally {
      table.close()
    }
  }
  if (!json) return undefined
  return files.length === 1 ? results[0] : results
}

/** The command lines `props` runs without oclif (plain.ts). */
export const plainPropsArgs = plainPathArgs

/** Run `props ARGV` without oclif (plain.ts); null when the command line is not one this path takes, for oclif to run. */
export function propsMain(argv: readonly string[]): number | null {
  const plain = plainPropsArgs(argv)
  if (!plain) return null
  return runPlain(plain.json, (run, log) => propsReport(run, plain.paths, plain.json, log))
}

/**
 * `props`, the command's work (shared with src/commands/props.ts) and its start without oclif:
 * the command line a script or a person types most, `props [--json] PATH...`, runs through
 * bin/run.js without loading oclif (its config, parser and 280 KB of code are most of a small
 * file's run: bench/README.md, "Start-up"). Anything else goes to oclif, so --help, every other
 * flag and every usage error stay oclif's; what this path prints is what oclif's would
 * (test/cli/props-main.test.ts runs both on the same files).
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { type PropsJson, propsJson, propsText } from '../report/props.js'
import { ExitCode } from '../cli/exit-code.js'
import { commandErrorReport, type FileErrorJson, FileSession } from '../cli/file-session.js'
import { writeAllUnlessGone } from '../cli/write-all.js'

export type PropsResult = PropsJson | FileErrorJson | (PropsJson | FileErrorJson)[] | undefined

/** Every file's report: printed with `log` for people, or returned for --json (one file: its object). */
export function propsReport(session: FileSession, paths: string[], json: boolean, log: (line: string) => void): PropsResult {
  const files = session.expandFiles(paths)
  const results: (PropsJson | FileErrorJson)[] = []
  let printed = 0
  for (const file of files) {
    const table = session.open(file)
    if (!table) {
      results.push(session.failure(file))
      continue
    }
    try {
      const j = propsJson(file, table)
      results.push(j)
      if (j.problems) session.raise(ExitCode.Finding)
      if (!json) {
        if (printed++ > 0) log('')
        log(propsText(j))
      }
    } catch (e) {
      results.push(session.reportFileError(file, e, 'opened'))
    } finally {
      table.close()
    }
  }
  if (!json) return undefined
  return files.length === 1 ? results[0] : results
}

/**
 * Environment variables oclif acts on for this command line: `debug`'s output (DEBUG), the
 * parser's (CLI_FLAGS_DEBUG), and sstkit's scoped settings (SSTKIT_CONTENT_TYPE=json turns
 * --json on; SSTKIT_DEBUG; SSTKIT_CONFIG_DIR and SSTKIT_DISABLE_THEME, where a theme is read).
 */
const OCLIF_ENV = ['DEBUG', 'CLI_FLAGS_DEBUG', 'SSTKIT_CONTENT_TYPE', 'SSTKIT_DEBUG', 'SSTKIT_CONFIG_DIR', 'SSTKIT_DISABLE_THEME']

/**
 * The paths and --json of a command line (after `props`) that this module runs as oclif would,
 * or null: one or more words that are not options, at most one `--json`, on a POSIX system,
 * none of OCLIF_ENV set, and for --json no colour theme (oclif colours JSON with
 * `<config dir>/theme.json`: $XDG_CONFIG_HOME/sstkit or ~/.config/sstkit).
 */
export function plainPropsArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { paths: string[]; json: boolean } | null {
  if (platform === 'win32' || OCLIF_ENV.some((k) => env[k])) return null
  const paths = argv.filter((a) => a !== '--json')
  const json = paths.length < argv.length
  if (argv.length - paths.length > 1 || paths.length === 0 || paths.some((p) => p === '' || p.startsWith('-'))) return null
  if (json) {
    const configBase = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
    if (existsSync(join(configBase, 'sstkit', 'theme.json'))) return null
  }
  return { paths, json }
}

/**
 * Run `props ARGV` without oclif; null when the command line is not one this path takes
 * (plainPropsArgs), for oclif to run. Output, errors and exit codes are those of the oclif
 * command (SstCommand's, which this mirrors: a bug's line, stdout's EPIPE ignored).
 */
export function propsMain(argv: readonly string[]): number | null {
  const plain = plainPropsArgs(argv)
  if (!plain) return null
  // Lines go straight to fd 1, as console.log would write them: no stdout stream to load (its
  // built-ins are compiled without code cache under the shebang's V8 flag). oclif ignores EPIPE
  // on stdout (`props DIR | head`), dropping what follows and going on: so does this.
  let stdoutGone = false
  const print = (text: string) => {
    if (!stdoutGone) stdoutGone = !writeAllUnlessGone(1, Buffer.from(`${text}\n`))
  }
  const session = new FileSession(false)
  try {
    const result = propsReport(session, plain.paths, plain.json, print)
    // oclif's logJson without a theme: JSON.stringify's output, indented by 2.
    if (result && plain.json) print(JSON.stringify(result, null, 2))
    return session.exitCode
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e))
    const { line, code } = commandErrorReport(err, null, false)
    process.stderr.write(`sstkit: ${line}\n`)
    return code
  }
}

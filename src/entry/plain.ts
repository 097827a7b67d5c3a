/**
 * What the commands bin/run.cjs starts without oclif (props, verify, scan, recompress:
 * src/entry/*-main.ts) share: which command lines they take (only those whose meaning oclif would
 * not change: its --help, its usage errors and every other flag stay oclif's), and how a run
 * prints, fails and exits as SstCommand's would (test/cli/*-main.test.ts run both on the same files).
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { commandErrorReport, FileSession } from '../cli/file-session.js'
import { writeAllUnlessGone } from '../cli/write-all.js'

/**
 * Environment variables oclif acts on for this command line: `debug`'s output (DEBUG), the
 * parser's (CLI_FLAGS_DEBUG), and sstkit's scoped settings (SSTKIT_CONTENT_TYPE=json turns
 * --json on; SSTKIT_DEBUG; SSTKIT_CONFIG_DIR and SSTKIT_DISABLE_THEME, where a theme is read).
 */
const OCLIF_ENV = ['DEBUG', 'CLI_FLAGS_DEBUG', 'SSTKIT_CONTENT_TYPE', 'SSTKIT_DEBUG', 'SSTKIT_CONFIG_DIR', 'SSTKIT_DISABLE_THEME']

/**
 * The paths and --json of a command line (after the command's name; `argv` without the flags a
 * command takes besides --json, `commandLine` all of it) that a plain path runs as oclif would, or null: one or more words that are not options, at most one `--json`, on a
 * POSIX system, none of OCLIF_ENV set, and for --json no colour theme (oclif colours JSON with
 * `<config dir>/theme.json`: $XDG_CONFIG_HOME/sstkit or ~/.config/sstkit).
 */
export function plainPathArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  commandLine: readonly string[] = argv,
): { paths: string[]; json: boolean } | null {
  if (platform === 'win32' || OCLIF_ENV.some((k) => env[k])) return null
  // In the order oclif's parser gives them: by where each word first appears in the whole command
  // line (`commandLine`, flags and values included), so a path given twice comes next to its first
  // and one equal to an earlier flag's value comes at that value's place (the same stable sort).
  const paths = argv.filter((a) => a !== '--json').sort((a, b) => commandLine.indexOf(a) - commandLine.indexOf(b))
  const json = paths.length < argv.length
  if (argv.length - paths.length > 1 || paths.length === 0 || paths.some((p) => p === '' || p.startsWith('-'))) return null
  if (json) {
    const configBase = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
    if (existsSync(join(configBase, 'sstkit', 'theme.json'))) return null
  }
  return { paths, json }
}

/**
 * Run a command's report without oclif, printing its lines (and its result as JSON for --json),
 * and return the exit code. Output, errors and exit codes are those of SstCommand, which this
 * mirrors: a bug's line, stdout's EPIPE ignored.
 */
export function runPlain(json: boolean, report: (run: FileSession, log: (line: string) => void) => unknown): number {
  const { run, print } = plainSession()
  try {
    return finish(run, json, report(run, print), print)
  } catch (e) {
    return failed(e)
  }
}

/** runPlain for a report that awaits (recompress's lanes). */
export async function runPlainAsync(json: boolean, report: (run: FileSession, log: (line: string) => void) => Promise<unknown>): Promise<number> {
  const { run, print } = plainSession()
  try {
    return finish(run, json, await report(run, print), print)
  } catch (e) {
    return failed(e)
  }
}

function plainSession(): { run: FileSession; print: (text: string) => void } {
  // Lines go straight to fd 1, as console.log would write them: no stdout stream to load (its
  // built-ins are compiled without code cache under the shebang's V8 flag). oclif ignores EPIPE
  // on stdout (`props DIR | head`), dropping what follows and going on: so does this.
  let stdoutGone = false
  const print = (text: string) => {
    if (!stdoutGone) stdoutGone = !writeAllUnlessGone(1, Buffer.from(`${text}\n`))
  }
  return { run: new FileSession(false), print }
}

function finish(run: FileSession, json: boolean, result: unknown, print: (text: string) => void): number {
  // oclif's logJson without a theme: JSON.stringify's output, indented by 2.
  if (result && json) print(JSON.stringify(result, null, 2))
  return run.exitCode
}

function failed(e: unknown): number {
  const err = e instanceof Error ? e : new Error(String(e))
  const { line, code } = commandErrorReport(err, null, false)
  process.stderr.write(`sstkit: ${line}\n`)
  return code
}

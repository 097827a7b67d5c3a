/**
 * Shared behaviour of sstkit's commands: `--json` on every command, file and
 * directory expansion, and errors as one clear line with a documented exit code
 * (0 success, 1 a finding, 2 usage error or a file that cannot be opened as an SST).
 */
import { Command, Errors, Flags, type Interfaces } from '@oclif/core'
import { readdirSync, type Stats, statSync } from 'node:fs'
import { join } from 'node:path'
import { type ErrorCode, errorCode, printableLine, SstkitError } from '../errors.js'
import type { ByteSource } from '../io/byte-source.js'
import { openTable, type Table, type OpenTableOptions } from '../reader.js'
import { openSource } from './fault-injection.js'
import { exitCodeFor, ExitCode, type FileStage } from './exit-code.js'
import { parseErrorLine, systemErrorLine } from './messages.js'

export { exitCodeFor, ExitCode, type ExitCodeValue, type FileStage } from './exit-code.js'

/**
 * A file the command could not read, as its own entry in `--json` output, in the place its
 * report would have taken: a JSON reader sees every file it asked for (the same line is on stderr).
 */
export interface FileErrorJson {
  file: string
  error: { code: ErrorCode; message: string; offset?: number; exitCode: number }
}

export type SstFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof SstCommand)['baseFlags'] & T['flags']>

export abstract class SstCommand extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    debug: Flags.boolean({ description: 'Show stack traces for errors.', helpGroup: 'GLOBAL' }),
  }

  /** Highest exit code seen so far; applied when the command finishes. */
  protected exitCode: number = ExitCode.Ok
  protected showStacks = process.argv.includes('--debug')

  /** How to draw tables on this stdout: colours and width only on a terminal. */
  protected get tty(): { color: boolean; width?: number } {
    const isTTY = process.stdout.isTTY === true
    return { color: isTTY, width: isTTY ? process.stdout.columns : undefined }
  }

  protected raise(code: number): void {
    this.exitCode = Math.max(this.exitCode, code)
    process.exitCode = this.exitCode
  }

  /**
   * Expand paths: files as given, directories to their `*.sst` files (sorted).
   * A missing path is a usage error.
   */
  protected expandFiles(paths: string[]): string[] {
    const out: string[] = []
    for (const p of paths) {
      let st: Stats
      let names: string[] = []
      try {
        st = statSync(p)
        if (st.isDirectory()) names = readdirSync(p)
      } catch (e) {
        process.stderr.write(`sstkit: ${systemErrorLine(p, e) ?? `${p}: ${(e as Error).message}`}\n`)
        this.raise(ExitCode.Usage)
        continue
      }
      if (st.isDirectory()) {
        const ssts = names
          .filter((n) => n.endsWith('.sst'))
          .sort()
          .map((n) => join(p, n))
        if (ssts.length === 0) {
          // Nothing to read is not success: a usage error, one line like every other.
          process.stderr.write(`sstkit: ${p}: the directory holds no .sst files\n`)
          this.raise(ExitCode.Usage)
        }
        out.push(...ssts)
      } else out.push(p)
    }
    return out
  }

  /** Each failed file's entry for --json, by path (see `failure`). */
  private readonly failures = new Map<string, FileErrorJson>()

  /** The --json entry of a file whose error was reported (by `open` or `reportFileError`). */
  protected failure(file: string): FileErrorJson {
    return this.failures.get(file) ?? { file, error: { code: 'internal', message: 'not reported', exitCode: ExitCode.Usage } }
  }

  /** Open a table, or report why not (exit 2) and return null; `failure(file)` is then its --json entry. */
  protected open(file: string, options: OpenTableOptions = {}): Table | null {
    let source: ByteSource | undefined
    try {
      source = openSource(file, { readahead: options.readahead })
      return openTable(source, options)
    } catch (e) {
      source?.close()
      this.reportFileError(file, e, 'opening')
      return null
    }
  }

  /** One line on stderr: what, which file, which offset; the exit code from the error's kind (exitCodeFor). */
  protected reportFileError(file: string, e: unknown, stage: FileStage): FileErrorJson {
    // An unexpected error (a bug) shows its stack with --debug.
    if (errorCode(e) === 'internal' && this.showStacks) throw e
    const message = e instanceof Error ? e.message : String(e)
    const line = printableLine(systemErrorLine(file, e) ?? `${file}: ${message}`)
    process.stderr.write(`sstkit: ${line}\n`)
    if (this.showStacks && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`)
    const exitCode = exitCodeFor(e, stage)
    this.raise(exitCode)
    const offset = e instanceof SstkitError ? e.offset : undefined
    const entry: FileErrorJson = {
      file,
      error: { code: errorCode(e), message: line.startsWith(`${file}: `) ? line.slice(file.length + 2) : line, offset, exitCode },
    }
    this.failures.set(file, entry)
    return entry
  }

  /** Warnings in one line like errors, instead of oclif's indented " ›   Warning:" block. */
  override warn(input: string | Error): string | Error {
    process.stderr.write(`sstkit: warning: ${oneLine(typeof input === 'string' ? input : input.message)}\n`)
    return input
  }

  /** An error in one line for people: a system error in words, an sstkit error with its file. */
  protected describeError(e: unknown): string {
    if (!(e instanceof Error)) return String(e)
    return systemErrorLine(systemErrorPath(e), e) ?? withFile(e, oneLine(e.message))
  }

  protected fail(message: string, code: number): never {
    throw new Errors.CLIError(message, { exit: code })
  }

  override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err
    if (this.showStacks) return super.catch(err)
    // Usage errors (ours and oclif's flag parsing) carry their exit code; sstkit's own errors are one line as
    // they are; anything else is unexpected.
    const parse = err instanceof Errors.CLIError || err.oclif?.exit !== undefined
    const known = parse || errorCode(err) !== 'internal'
    const code = err.oclif?.exit ?? (parse ? ExitCode.Usage : exitCodeFor(err, 'opening'))
    const line = printableLine(parseErrorLine(err, this.ctor.flags ?? {}, this.id ?? '') ?? this.describeError(err))
    process.stderr.write(`sstkit: ${line}${known ? '' : ' (run with --debug for details)'}\n`)
    process.exitCode = code
    return this.exit(code)
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    if (!err && this.exitCode !== ExitCode.Ok) process.exitCode = this.exitCode
    return super.finally(err)
  }
}

/** An sstkit error about a file, with the file named (once). */
function withFile(e: Error, message: string): string {
  const file = e instanceof SstkitError ? e.file : undefined
  return file && !message.includes(file) ? `${file}: ${message}` : message
}

/** The path a system error names (node puts it in `path`). */
function systemErrorPath(e: Error): string {
  return (e as NodeJS.ErrnoException).path ?? '?'
}

/** oclif's messages can span lines (a flag error and a hint): one line, as every sstkit error is. */
export function oneLine(message: string): string {
  return message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join('; ')
}

// In its own module so that commands writing bytes (sst-dump) load it without this one.
export { writeAllSync } from './write-all.js'

/**
 * Shared behaviour of sstkit's commands: `--json` on every command, file and
 * directory expansion, and errors as one clear line with a documented exit code
 * (0 success, 1 a finding, 2 usage error or a file that cannot be opened as an SST).
 * What needs no oclif (files, their errors, the exit code) is FileSession's.
 */
import { Command, Errors, Flags, type Interfaces } from '@oclif/core'
import type { BlobFile } from '../blob/reader.js'
import type { Table, OpenTableOptions } from '../reader.js'
import { ExitCode, type FileStage } from './exit-code.js'
import { commandErrorReport, describeError, FileSession, type FileErrorJson, oneLine } from './file-session.js'
import { parseErrorLine } from './messages.js'
import { writeAllSync } from './write-all.js'

export { exitCodeFor, ExitCode, type ExitCodeValue, type FileStage } from './exit-code.js'
export { type FileErrorJson, isBlobFile } from './file-session.js'

export type SstFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof SstCommand)['baseFlags'] & T['flags']>

/** Flags that choose a text output: --json replaces it, so giving both is a usage error. */
const JSON_CONFLICTS = ['format']

export abstract class SstCommand extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    debug: Flags.boolean({ description: 'Show stack traces for errors.', helpGroup: 'GLOBAL' }),
  }

  /** The files of this run, their errors and the exit code. */
  protected readonly files = new FileSession(process.argv.includes('--debug'))

  protected get showStacks(): boolean {
    return this.files.showStacks
  }

  protected get exitCode(): number {
    return this.files.exitCode
  }

  /** How to draw tables on this stdout: colours and width only on a terminal. */
  protected get tty(): { color: boolean; width?: number } {
    const isTTY = process.stdout.isTTY === true
    return { color: isTTY, width: isTTY ? process.stdout.columns : undefined }
  }

  /**
   * oclif's parse, then the flags that conflict with --json (a text format asked for explicitly: it would be
   * ignored) as a usage error naming both, as oclif's `exclusive` words one.
   */
  // biome-ignore lint/suspicious/noExplicitAny: oclif's FlagOutput and ArgOutput, which it does not export
  protected override async parse<F extends Record<string, any>, B extends Record<string, any>, A extends Record<string, any>>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv)
    const given = (name: string) => {
      const meta = (parsed.metadata.flags as Record<string, { setFromDefault?: boolean } | undefined>)[name]
      return (parsed.flags as Record<string, unknown>)[name] !== undefined && meta?.setFromDefault !== true
    }
    if (given('json')) {
      for (const name of JSON_CONFLICTS) {
        if (given(name)) this.fail(`--json cannot be used together with --${name} (see \`${this.config.bin} ${this.id} --help\`)`, ExitCode.Usage)
      }
    }
    return parsed
  }

  protected raise(code: number): void {
    this.files.raise(code)
  }

  /** FileSession.expandFiles: directories to their `*.sst` files; a missing path is a usage error. */
  protected expandFiles(paths: string[], options: { blobFiles?: boolean } = {}): string[] {
    return this.files.expandFiles(paths, options)
  }

  /** Open a blob file, or report why not (exit 2) and return null; `failure(file)` is then its --json entry. */
  protected openBlob(file: string): BlobFile | null {
    return this.files.openBlob(file)
  }

  /** The --json entry of a file whose error was reported (by `open` or `reportFileError`). */
  protected failure(file: string): FileErrorJson {
    return this.files.failure(file)
  }

  /** Open a table, or report why not (exit 2) and return null; `failure(file)` is then its --json entry. */
  protected open(file: string, options: OpenTableOptions = {}): Table | null {
    return this.files.open(file, options)
  }

  /** One line on stderr: what, which file, which offset; the exit code from the error's kind (exitCodeFor). */
  protected reportFileError(file: string, e: unknown, stage: FileStage): FileErrorJson {
    return this.files.reportFileError(file, e, stage)
  }

  /** Warnings in one line like errors, instead of oclif's indented " ›   Warning:" block. */
  override warn(input: string | Error): string | Error {
    process.stderr.write(`sstkit: warning: ${oneLine(typeof input === 'string' ? input : input.message)}\n`)
    return input
  }

  /** An error in one line for people: a system error in words, an sstkit error with its file. */
  protected describeError(e: unknown): string {
    return describeError(e)
  }

  /**
   * oclif's logJson colours the document by tokenizing all of it first (tens of MB for the advice
   * of a database with many levels); sstkit sets no JSON theme, so its text is JSON.stringify's,
   * indented by 2: written as that.
   */
  override logJson(json: unknown): void {
    writeAllSync(1, Buffer.from(`${JSON.stringify(json, null, 2)}\n`))
  }

  protected fail(message: string, code: number): never {
    throw new Errors.CLIError(message, { exit: code })
  }

  override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err
    if (this.showStacks) return super.catch(err)
    // Usage errors (ours and oclif's flag parsing) carry their exit code; sstkit's own errors are one line as
    // they are; anything else is unexpected.
    // (A flag's own parser that throws arrives as "Parsing --NAME": a usage error too.)
    const parseLine = parseErrorLine(err, this.ctor.flags ?? {}, this.id ?? '')
    const parse = err instanceof Errors.CLIError || err.oclif?.exit !== undefined || parseLine !== null
    const { line, code } = commandErrorReport(err, parseLine, parse)
    process.stderr.write(`sstkit: ${line}\n`)
    process.exitCode = code
    return this.exit(code)
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    if (!err && this.exitCode !== ExitCode.Ok) process.exitCode = this.exitCode
    return super.finally(err)
  }
}

// In its own module so that commands writing bytes (sst-dump) load it without this one.
export { writeAllSync } from './write-all.js'

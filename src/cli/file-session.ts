/**
 * What a command does with the files it is given, without oclif: paths expanded to files,
 * tables opened, each file's error reported as one line (and kept for --json), and the run's
 * exit code. SstCommand holds one; `props` started without oclif (entry/props-main.ts) uses one too.
 */
import { closeSync, openSync, readdirSync, readSync, type Stats, statSync } from 'node:fs'
import { join } from 'node:path'
import { type BlobFile, openBlobFile } from '../blob/reader.js'
import { type ErrorCode, errorCode, printableLine, SstkitError } from '../errors.js'
import { startsWithBlobMagic } from '../format/blob-file.js'
import type { ByteSource } from '../io/byte-source.js'
import { openTable, type Table, type OpenTableOptions } from '../table/reader.js'
import { openSource } from './fault-injection.js'
import { exitCodeFor, ExitCode, type FileStage } from './exit-code.js'
import { systemErrorLine } from './system-errors.js'

/**
 * A file the command could not read, as its own entry in `--json` output, in the place its
 * report would have taken: a JSON reader sees every file it asked for (the same line is on stderr).
 */
export interface FileErrorJson {
  file: string
  error: { code: ErrorCode; message: string; offset?: number; exitCode: number }
}

export class FileSession {
  /** Highest exit code seen so far, also set as process.exitCode. */
  exitCode: number = ExitCode.Ok
  /** Each failed file's entry for --json, by path (see `failure`). */
  private readonly failures = new Map<string, FileErrorJson>()

  /** `showStacks` (--debug): an error's stack follows its line, and a bug is thrown, not reported. */
  constructor(readonly showStacks: boolean) {}

  raise(code: number): void {
    this.exitCode = Math.max(this.exitCode, code)
    process.exitCode = this.exitCode
  }

  /**
   * Expand paths: files as given, directories to their `*.sst` files (sorted), and their `*.blob`
   * files after them with `blobFiles` (the commands that read blob files: props, layout, scan, verify).
   * A path that cannot be looked at stays, so that `open` reports it and --json keeps
   * its place (a file compaction deleted meanwhile is still in the array, as an error).
   */
  expandFiles(paths: string[], options: { blobFiles?: boolean } = {}): string[] {
    const out: string[] = []
    for (const p of paths) {
      let st: Stats
      try {
        st = statSync(p)
      } catch {
        out.push(p)
        continue
      }
      let names: string[] = []
      try {
        if (st.isDirectory()) names = readdirSync(p)
      } catch (e) {
        process.stderr.write(`sstkit: ${systemErrorLine(p, e) ?? `${p}: ${(e as Error).message}`}\n`)
        this.raise(ExitCode.Usage)
        continue
      }
      if (st.isDirectory()) {
        const ofKind = (ext: string) =>
          names
            .filter((n) => n.endsWith(ext))
            .sort()
            .map((n) => join(p, n))
        const ssts = [...ofKind('.sst'), ...(options.blobFiles ? ofKind('.blob') : [])]
        if (ssts.length === 0) {
          // Nothing to read is not success: a usage error, one line like every other.
          process.stderr.write(`sstkit: ${p}: the directory holds no .sst${options.blobFiles ? ' or .blob' : ''} files\n`)
          this.raise(ExitCode.Usage)
        }
        out.push(...ssts)
      } else out.push(p)
    }
    return out
  }

  /** The --json entry of a file whose error was reported (by `open` or `reportFileError`). */
  failure(file: string): FileErrorJson {
    return this.failures.get(file) ?? { file, error: { code: 'internal', message: 'not reported', exitCode: ExitCode.Usage } }
  }

  /** Open a table, or report why not (exit 2) and return null; `failure(file)` is then its --json entry. */
  open(file: string, options: OpenTableOptions = {}): Table | null {
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

  /** Open a blob file of the integrated BlobDB, or report why not (exit 2) and return null. */
  openBlob(file: string): BlobFile | null {
    let source: ByteSource | undefined
    try {
      source = openSource(file, {})
      return openBlobFile(source)
    } catch (e) {
      source?.close()
      this.reportFileError(file, e, 'opening')
      return null
    }
  }

  /** One line on stderr: what, which file, which offset; the exit code from the error's kind (exitCodeFor). */
  reportFileError(file: string, e: unknown, stage: FileStage): FileErrorJson {
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
}

/**
 * The line (after "sstkit: ") and exit code for an error that ended a command: `parseLine` is
 * the line for an oclif usage error (null for any other error), and an unexpected error (a bug)
 * says how to see more.
 */
export function commandErrorReport(err: Error & { oclif?: { exit?: number } }, parseLine: string | null, usage: boolean): { line: string; code: number } {
  const known = usage || errorCode(err) !== 'internal'
  const code = err.oclif?.exit ?? (usage ? ExitCode.Usage : exitCodeFor(err, 'opening'))
  const line = printableLine(parseLine ?? describeError(err))
  return { line: `${line}${known ? '' : ' (run with --debug for details)'}`, code }
}

/** An error in one line for people: a system error in words, an sstkit error with its file. */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  return systemErrorLine(systemErrorPath(e), e) ?? withFile(e, oneLine(e.message))
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

/**
 * Whether `file` is to be read as a blob file: named `*.blob`, or (any name but `*.sst` and
 * `*.ldb`) starting with the blob file magic. A file that cannot be read is left to the SST path,
 * which reports why.
 */
export function isBlobFile(file: string): boolean {
  if (file.endsWith('.blob')) return true
  if (file.endsWith('.sst') || file.endsWith('.ldb')) return false
  let fd: number | undefined
  try {
    // Only a regular file is looked into: opening a FIFO would wait for a writer.
    if (!statSync(file).isFile()) return false
    fd = openSync(file, 'r')
    const head = new Uint8Array(4)
    return readSync(fd, head, 0, 4, 0) === 4 && startsWithBlobMagic(head)
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

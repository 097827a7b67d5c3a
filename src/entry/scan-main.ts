/**
 * `scan`, the command's work (shared with src/commands/scan.ts) and its start without oclif:
 * `scan [--hex] PATH...` runs through bin/run.js without loading oclif (its config, parser and
 * code were ~75 ms of CPU of every scan: bench/README.md, "Per-file commands"). Any other command
 * line is oclif's; what this path prints is what oclif's would (test/cli/scan-main.test.ts runs both).
 */
import { dirname } from 'node:path'
import { ExitCode } from '../cli/exit-code.js'
import { type FileSession, isBlobFile } from '../cli/file-session.js'
import { writeAllSync } from '../cli/write-all.js'
import { CorruptionError } from '../errors.js'
import { compareBytes } from '../format/coding.js'
import type { OpenTableOptions } from '../reader.js'
import { scanBlobFile } from '../report/blob.js'
import { LineWriter } from '../report/line-writer.js'
import { escapeBytes } from '../report/text.js'
import { BlobValues } from '../scan/blob-values.js'
import { scanTable } from '../scan/scan.js'
import { plainPathArgs, runPlain } from './plain.js'
/** bin/run.cjs ends the process with it once the command is done. */
export { exitAtOnce } from '../util/exit.js'

/** What a scan prints, decided from its flags. */
export interface ScanRunOptions {
  from?: Uint8Array
  to?: Uint8Array
  prefix?: Uint8Array
  limit?: number
  hex: boolean
  jsonl: boolean
  rangeDeletions: boolean
  /** --blob-dir; --no-blob-values. */
  blobDir?: string
  noBlobValues?: boolean
  jobs?: number
  chunkBytes?: number
  table: OpenTableOptions
}

type Range = Pick<ScanRunOptions, 'from' | 'to' | 'prefix'>

/** Every file's entries to `out`; `fail` ends the run with a usage error (a reversed range). */
export function scanFiles(run: FileSession, paths: string[], o: ScanRunOptions, out: LineWriter, fail: (message: string, code: number) => never): void {
  const files = run.expandFiles(paths, { blobFiles: true })
  const range: Range = { from: o.from, to: o.to, prefix: o.prefix }
  const jsonl = o.jsonl
  let remaining = o.limit ?? Infinity
  for (const file of files) {
    if (remaining <= 0) break
    if (isBlobFile(file)) {
      remaining -= scanBlob(run, file, files.length, range, o.hex, out, jsonl, remaining)
      continue
    }
    const table = run.open(file, o.table)
    if (!table) {
      // In JSON Lines a file that cannot be read is a line of its own, like its entries.
      if (jsonl) out.text(`${JSON.stringify(run.failure(file))}\n`)
      continue
    }
    // A reversed range is empty in every file: said once, as a usage error, rather than printing nothing.
    if (range.from && range.to && table.userComparator && table.userComparator(range.from, range.to) >= 0) {
      table.close()
      out.flush()
      fail(
        `--from '${escapeBytes(range.from)}' does not sort before --to '${escapeBytes(range.to)}' (${table.comparatorName}): the range is empty`,
        ExitCode.Usage,
      )
    }
    const blobDir = o.blobDir ?? dirname(file)
    const blobs =
      !o.noBlobValues && (o.blobDir !== undefined || BlobValues.holdsBlobFiles(blobDir)) ? new BlobValues(blobDir, o.blobDir !== undefined) : undefined
    try {
      const spec = {
        ...range,
        format: jsonl ? ('jsonl' as const) : ('text' as const),
        hex: o.hex,
        file: jsonl && files.length > 1 ? file : undefined,
        blobs,
      }
      remaining -= underHeader(run, file, !jsonl && files.length > 1, jsonl, out, () =>
        scanTable(table, spec, out, { limit: remaining, rangeDeletions: o.rangeDeletions, jobs: o.jobs, chunkBytes: o.chunkBytes }),
      )
    } finally {
      table.close()
      blobs?.close()
    }
    if (blobs && blobs.unresolved > 0) {
      // Each such entry printed its index and why; one line says the scan is not whole.
      out.flush()
      run.reportFileError(
        file,
        new CorruptionError(`${blobs.unresolved} blob value(s) could not be read from ${blobDir} (first: ${blobs.firstError})`),
        'opened',
      )
    }
  }
  out.flush()
}

/** A blob file's records in file order (key and decompressed value), under the same header, line and JSON rules as a table's. */
function scanBlob(run: FileSession, file: string, fileCount: number, range: Range, hex: boolean, out: LineWriter, jsonl: boolean, limit: number): number {
  const blob = run.openBlob(file)
  if (!blob) {
    if (jsonl) out.text(`${JSON.stringify(run.failure(file))}\n`)
    return 0
  }
  const { from, to, prefix } = range
  const keep = (k: Uint8Array) =>
    (from === undefined || compareBytes(k, from) >= 0) &&
    (to === undefined || compareBytes(k, to) < 0) &&
    (prefix === undefined || (k.length >= prefix.length && compareBytes(k.subarray(0, prefix.length), prefix) === 0))
  try {
    return underHeader(run, file, !jsonl && fileCount > 1, jsonl, out, () =>
      scanBlobFile(blob, { format: jsonl ? 'jsonl' : 'text', hex, file: jsonl && fileCount > 1 ? file : undefined, keep }, out, limit),
    )
  } finally {
    blob.close()
  }
}

/**
 * `scan()` under the file's header (a header only for a file that prints lines: taken back if
 * none followed); a failure is the file's one error line, and its entry in JSON Lines. Returns
 * the entries printed.
 */
function underHeader(run: FileSession, file: string, header: boolean, jsonl: boolean, out: LineWriter, scan: () => number): number {
  const before = out.written
  out.text(header ? `==> ${file} <==\n` : '')
  const headerBytes = out.written - before
  try {
    return scan()
  } catch (e) {
    out.flush()
    const failure = run.reportFileError(file, e, 'opened')
    if (jsonl) out.text(`${JSON.stringify(failure)}\n`)
    return 0
  } finally {
    if (headerBytes > 0 && out.written === before + headerBytes) out.unwrite(headerBytes)
  }
}

/**
 * The paths and --hex of a command line (after `scan`) that runs without oclif, or null:
 * plainPathArgs's without --json (JSON Lines stay oclif's), with at most one `--hex`.
 */
export function plainScanArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { paths: string[]; hex: boolean } | null {
  const rest = argv.filter((a) => a !== '--hex')
  if (argv.length - rest.length > 1) return null
  const plain = plainPathArgs(rest, env, platform, argv)
  return plain && !plain.json ? { paths: plain.paths, hex: rest.length < argv.length } : null
}

/** Run `scan ARGV` without oclif (plain.ts); null when the command line is not one this path takes, for oclif to run. */
export function scanMain(argv: readonly string[]): number | null {
  const plain = plainScanArgs(argv)
  if (!plain) return null
  return runPlain(false, (run) => {
    const out = new LineWriter((bytes) => writeAllSync(1, bytes))
    const usage = (message: string): never => {
      throw new Error(`unreachable without --from and --to: ${message}`)
    }
    // oclif's defaults: --key-format auto, no --comparator.
    scanFiles(run, plain.paths, { hex: plain.hex, jsonl: false, rangeDeletions: true, table: { comparator: undefined, keyFormat: 'auto' } }, out, usage)
    return undefined
  })
}

import { dirname } from 'node:path'
import { Args, Flags } from '@oclif/core'
import { ExitCode, isBlobFile, SstCommand, writeAllSync } from '../cli/sst-command.js'
import { KeyArgumentError, parseKeyArgument } from '../cli/key-arg.js'
import { CorruptionError } from '../errors.js'
import { compareBytes } from '../format/coding.js'
import { scanBlobFile } from '../report/blob.js'
import { BlobValues } from '../scan/blob-values.js'
import { tableFlags, tableOptions } from '../cli/table-flags.js'
import { escapeBytes } from '../report/text.js'
import { LineWriter } from '../report/line-writer.js'
import { scanTable } from '../scan/scan.js'

export default class Scan extends SstCommand {
  static override description = `Print the entries of SST files in key order, range tombstones included and marked.
--from, --to and --prefix seek through the index rather than reading the whole file; they need the file's comparator (recorded and implemented, or --comparator), and refuse without it. Keys and values print as quoted text with \\xNN escapes, or as hex with --hex; raw-key tables (LevelDB TableBuilder) as 'key' => 'value'.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/sample.sst --limit 5',
    "<%= config.bin %> <%= command.id %> examples/sample.sst --from 'user:000100' --to 'user:000110'",
    "<%= config.bin %> <%= command.id %> examples/sample.sst --prefix 'user:0002' --format jsonl",
    '<%= config.bin %> <%= command.id %> examples/sample.sst --hex --from 0x757365723a --input-hex',
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  static override flags = {
    from: Flags.string({ description: 'First user key to show (inclusive).' }),
    to: Flags.string({ description: 'Stop before this user key (exclusive).' }),
    prefix: Flags.string({ description: 'Only user keys starting with this prefix.', exclusive: ['from'] }),
    limit: Flags.integer({ description: 'Stop after this many entries (over all files).', min: 0 }),
    hex: Flags.boolean({ description: 'Print keys and values as hex.' }),
    'input-hex': Flags.boolean({
      description:
        "Read --from, --to and --prefix as hex (with or without 0x). Without it a key is text in scan's own escaped form (\\xNN, \\\\, \\'; quotes optional), or 0x and hex digits.",
    }),
    format: Flags.string({ description: 'Output format.', options: ['text', 'jsonl'], default: 'text' }),
    'no-range-deletions': Flags.boolean({ description: 'Leave range tombstones out.' }),
    'blob-dir': Flags.string({
      description:
        "Read the values of BlobDB blob indexes from this directory's blob files; a blob file missing there is an error. Default: the SST's own directory, where an index whose blob file is absent prints as stored.",
    }),
    'no-blob-values': Flags.boolean({ description: 'Print blob indexes as they are stored, even with blob files beside the SST.', exclusive: ['blob-dir'] }),
    jobs: Flags.integer({
      description: 'Threads for a large scan without --limit (default: all cores). The output is the same for any value.',
      min: 1,
    }),
    'chunk-bytes': Flags.integer({ description: 'Data bytes per parallel chunk (tuning and tests).', min: 1, hidden: true }),
    ...tableFlags,
  }

  async run(): Promise<undefined> {
    const { argv, flags } = await this.parse(Scan)
    const files = this.expandFiles(argv as string[], { blobFiles: true })
    const parseKey = (s: string | undefined): Uint8Array | undefined => {
      if (s === undefined) return undefined
      try {
        return parseKeyArgument(s, flags['input-hex'])
      } catch (e) {
        if (e instanceof KeyArgumentError) this.fail(e.message, ExitCode.Usage)
        throw e
      }
    }
    const range = { from: parseKey(flags.from), to: parseKey(flags.to), prefix: parseKey(flags.prefix) }
    const out = new LineWriter((bytes) => writeAllSync(1, bytes))
    const jsonl = flags.format === 'jsonl' || this.jsonEnabled()
    let remaining = flags.limit ?? Infinity
    for (const file of files) {
      if (remaining <= 0) break
      if (isBlobFile(file)) {
        remaining -= this.scanBlob(file, files.length, range, flags, out, jsonl, remaining)
        continue
      }
      const table = this.open(file, tableOptions(flags))
      if (!table) {
        // In JSON Lines a file that cannot be read is a line of its own, like its entries.
        if (jsonl) out.text(`${JSON.stringify(this.failure(file))}\n`)
        continue
      }
      // A reversed range is empty in every file: said once, as a usage error, rather than printing nothing.
      if (range.from && range.to && table.userComparator && table.userComparator(range.from, range.to) >= 0) {
        table.close()
        out.flush()
        this.fail(
          `--from '${escapeBytes(range.from)}' does not sort before --to '${escapeBytes(range.to)}' (${table.comparatorName}): the range is empty`,
          ExitCode.Usage,
        )
      }
      const blobDir = flags['blob-dir'] ?? dirname(file)
      const blobs =
        !flags['no-blob-values'] && (flags['blob-dir'] !== undefined || BlobValues.holdsBlobFiles(blobDir))
          ? new BlobValues(blobDir, flags['blob-dir'] !== undefined)
          : undefined
      try {
        const spec = {
          ...range,
          format: jsonl ? ('jsonl' as const) : ('text' as const),
          hex: flags.hex,
          file: jsonl && files.length > 1 ? file : undefined,
          blobs,
        }
        remaining -= this.underHeader(file, !jsonl && files.length > 1, jsonl, out, () =>
          scanTable(table, spec, out, {
            limit: remaining,
            rangeDeletions: !flags['no-range-deletions'],
            jobs: flags.jobs,
            chunkBytes: flags['chunk-bytes'],
          }),
        )
      } finally {
        table.close()
        blobs?.close()
      }
      if (blobs && blobs.unresolved > 0) {
        // Each such entry printed its index and why; one line says the scan is not whole.
        out.flush()
        this.reportFileError(
          file,
          new CorruptionError(`${blobs.unresolved} blob value(s) could not be read from ${blobDir} (first: ${blobs.firstError})`),
          'opened',
        )
      }
    }
    out.flush()
    return undefined
  }

  /** A blob file's records in file order (key and decompressed value), under the same header, line and JSON rules as a table's. */
  private scanBlob(
    file: string,
    fileCount: number,
    range: { from?: Uint8Array; to?: Uint8Array; prefix?: Uint8Array },
    flags: { hex?: boolean },
    out: LineWriter,
    jsonl: boolean,
    limit: number,
  ): number {
    const blob = this.openBlob(file)
    if (!blob) {
      if (jsonl) out.text(`${JSON.stringify(this.failure(file))}\n`)
      return 0
    }
    const { from, to, prefix } = range
    const keep = (k: Uint8Array) =>
      (from === undefined || compareBytes(k, from) >= 0) &&
      (to === undefined || compareBytes(k, to) < 0) &&
      (prefix === undefined || (k.length >= prefix.length && compareBytes(k.subarray(0, prefix.length), prefix) === 0))
    try {
      return this.underHeader(file, !jsonl && fileCount > 1, jsonl, out, () =>
        scanBlobFile(blob, { format: jsonl ? 'jsonl' : 'text', hex: flags.hex, file: jsonl && fileCount > 1 ? file : undefined, keep }, out, limit),
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
  private underHeader(file: string, header: boolean, jsonl: boolean, out: LineWriter, scan: () => number): number {
    const before = out.written
    out.text(header ? `==> ${file} <==\n` : '')
    const headerBytes = out.written - before
    try {
      return scan()
    } catch (e) {
      out.flush()
      const failure = this.reportFileError(file, e, 'opened')
      if (jsonl) out.text(`${JSON.stringify(failure)}\n`)
      return 0
    } finally {
      if (headerBytes > 0 && out.written === before + headerBytes) out.unwrite(headerBytes)
    }
  }
}

import { Args, Flags } from '@oclif/core'
import { ExitCode, SstCommand, writeAllSync } from '../cli/sst-command.js'
import { KeyArgumentError, parseKeyArgument } from '../cli/key-arg.js'
import { tableFlags, tableOptions } from '../cli/table-flags.js'
import { LineWriter } from '../report/line-writer.js'
import { scanFiles } from '../entry/scan-main.js'

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

  // `scan [--hex] PATH...` usually runs without oclif (bin/run.js, src/entry/scan-main.ts); this is every other form.
  async run(): Promise<undefined> {
    const { argv, flags } = await this.parse(Scan)
    const parseKey = (s: string | undefined): Uint8Array | undefined => {
      if (s === undefined) return undefined
      try {
        return parseKeyArgument(s, flags['input-hex'])
      } catch (e) {
        if (e instanceof KeyArgumentError) this.fail(e.message, ExitCode.Usage)
        throw e
      }
    }
    const out = new LineWriter((bytes) => writeAllSync(1, bytes))
    const options = {
      from: parseKey(flags.from),
      to: parseKey(flags.to),
      prefix: parseKey(flags.prefix),
      limit: flags.limit,
      hex: flags.hex,
      jsonl: flags.format === 'jsonl' || this.jsonEnabled(),
      rangeDeletions: !flags['no-range-deletions'],
      blobDir: flags['blob-dir'],
      noBlobValues: flags['no-blob-values'],
      jobs: flags.jobs,
      chunkBytes: flags['chunk-bytes'],
      table: tableOptions(flags),
    }
    scanFiles(this.files, argv as string[], options, out, (message, code) => this.fail(message, code))
    return undefined
  }
}

import { Args, Flags } from '@oclif/core'
import { SstCommand } from '../cli/sst-command.js'
import { tableFlags, tableOptions } from '../cli/table-flags.js'
import { type VerifyResultJson, verifyReport } from '../entry/verify-main.js'

export type { VerifyJson } from '../report/verify.js'

export default class Verify extends SstCommand {
  static override description =
    `Check SST files thoroughly: every block's checksum (data, index and partitions, filter and partitions, meta blocks, and the footer for format_version >= 6), every block decompressed, every restart point, keys in order, index separators consistent, and the entry count equal to rocksdb.num.entries.
Key order is checked only under a comparator known to be the file's (bytewise, reverse-bytewise, their .u64ts forms, or --comparator): under another, verify says it did not check order; in a table that records none (LevelDB), keys out of bytewise order are a note, not damage.
Exit 0 when every file is clean, 1 when anything is wrong, 2 when a file cannot be opened as an SST at all. Each file gets its own report, whatever happens in another.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/sample.sst',
    '<%= config.bin %> <%= command.id %> db/ --json',
    '<%= config.bin %> <%= command.id %> 000005.ldb --comparator leveldb.BytewiseComparator',
  ]

  static override strict = false
  static override args = {
    files: Args.string({ description: 'SST files or directories of .sst files', required: true }),
  }

  static override flags = {
    ...tableFlags,
    jobs: Flags.integer({
      description: 'Threads for a large file (default: all cores). The findings are the same for any value.',
      min: 1,
    }),
    'chunk-bytes': Flags.integer({ description: 'Data bytes per parallel chunk (tuning and tests).', min: 1, hidden: true }),
  }

  // `verify [--jobs N] [--json] PATH...` usually runs without oclif (bin/run.js, src/entry/verify-main.ts); this is every other form.
  async run(): Promise<VerifyResultJson> {
    const { argv, flags } = await this.parse(Verify)
    const options = { ...tableOptions(flags), jobs: flags.jobs, chunkBytes: flags['chunk-bytes'] }
    return verifyReport(this.files, argv as string[], this.jsonEnabled(), options, (line) => this.log(line))
  }
}

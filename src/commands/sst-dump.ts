import { Command } from '@oclif/core'
import { sstDumpMain } from '../sstdump/main.js'

/**
 * A drop-in for RocksDB's `sst_dump` (output of the Debian 7.8.3 build), with
 * sst_dump's own argument syntax (`--name=value`, underscores). oclif parses
 * nothing here: the raw argv goes to src/sstdump (`--json` is not an sst_dump
 * flag, so this command has none). `sstkit sst-dump --help` is answered by the
 * init hook in src/sstdump/help-hook.ts before oclif's own help.
 */
export default class SstDump extends Command {
  static override description =
    `A drop-in for RocksDB's sst_dump: the same flags (--name=value), the same output as sst_dump 7.8.3 (also for format_version 6 and 7 files, which 7.8.3 refuses), the same exit codes, plus --strict (exit 1 on any corruption).
Run \`sstkit sst-dump --help\` for sst_dump's flag list.`

  static override usage = 'sst-dump --file=<data_dir_OR_sst_file> [--command=check|scan|raw|verify|recompress|identify] [FLAGS...]'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --file=examples/sample.sst --command=scan --output_hex',
    '<%= config.bin %> <%= command.id %> --file=db/ --command=verify --verify_checksum --strict',
    '<%= config.bin %> <%= command.id %> --file=examples/sample.sst --show_properties --command=none',
  ]

  static override strict = false
  static override enableJsonFlag = false

  async run(): Promise<void> {
    // The argv is sst_dump's, parsed by src/sstdump: tell oclif, which otherwise warns on stderr
    // under NODE_ENV=test or development ("did not parse its arguments").
    this.parsed = true
    const code = await sstDumpMain(this.argv, this.config.version)
    if (code !== 0) this.exit(code)
  }
}

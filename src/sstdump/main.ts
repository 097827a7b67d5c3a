/**
 * `sstkit sst-dump ARGS` as a process runs it: sst_dump's help for `--help`
 * (before a `--`), else sst_dump itself on stdout and stderr. Shared by the oclif
 * command and bin/run.js, which calls it without loading oclif: scripts call
 * the drop-in once per file, so its start-up is most of a small file's run.
 */
import { writeAllSync } from '../cli/write-all.js'
import { helpText } from './help.js'
import { runSstDump } from './run.js'
/** bin/run.cjs ends the process with it once the command is done. */
export { exitAtOnce } from '../util/exit.js'

/** Whether sst_dump's own help is asked for: `--help` among the arguments before a `--`. */
export function asksSstDumpHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return (end < 0 ? argv : argv.slice(0, end)).includes('--help')
}

/** Run the drop-in with sst_dump's arguments (without the program name); the exit code. */
export async function sstDumpMain(argv: readonly string[], version: string): Promise<number> {
  if (asksSstDumpHelp(argv)) {
    writeAllSync(1, Buffer.from(helpText()))
    return 0
  }
  return runSstDump(argv, { stdout: (b) => writeAllSync(1, b), stderr: (b) => writeAllSync(2, b), version })
}

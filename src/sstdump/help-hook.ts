/**
 * oclif `init` hook: `sstkit sst-dump --help` prints sst_dump's own help (every
 * flag it accepts) instead of oclif's command help, which would only know that
 * the command takes free-form arguments.
 */
import type { Hook } from '@oclif/core'

const hook: Hook<'init'> = async (opts) => {
  if (opts.id !== 'sst-dump') return
  const { asksSstDumpHelp } = await import('./main.js')
  if (asksSstDumpHelp(opts.argv)) {
    // Loaded only here: this hook runs before every command and must stay cheap.
    const { writeAllSync } = await import('../cli/write-all.js')
    const { helpText } = await import('./help.js')
    writeAllSync(1, Buffer.from(helpText()))
    process.exit(0)
  }
}

export default hook

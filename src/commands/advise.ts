import { Args } from '@oclif/core'
import { readFileSync } from 'node:fs'
import { advise, mergeAdviceParts, NothingToAdviseError } from '../advise/advise.js'
import { ADVISE_DESCRIPTION, ADVISE_EXAMPLES, adviseFlags, formatConflict, parseAdviseFlags } from '../cli/advise-flags.js'
import { progressLine } from '../cli/progress.js'
import { ExitCode, SstCommand } from '../cli/sst-command.js'
import type { Advice } from '../types/advice.js'
import { keepYoungGenerationSmall } from '../util/garbage.js'
import { writeFileAtomic } from '../util/temp-file.js'

export default class Advise extends SstCommand {
  static override description = ADVISE_DESCRIPTION
  static override examples = ADVISE_EXAMPLES
  static override strict = false
  static override args = {
    paths: Args.string({ description: 'A RocksDB database directory, or SST files and directories of them (with --merge: the JSON parts)', required: true }),
  }

  static override flags = adviseFlags

  async run(): Promise<Advice | undefined> {
    const { argv, flags } = await this.parse(Advise)
    // This thread reads and samples every file, then is a lane: a small young generation is ~35 MB less peak RSS.
    keepYoungGenerationSmall()
    const paths = argv as string[]
    if (flags.merge && flags['write-options']) this.fail('--write-options needs a database directory, not --merge parts', ExitCode.Usage)
    const conflict = formatConflict(flags)
    if (conflict) this.fail(conflict, ExitCode.Usage)
    // A usage error, or a database or file that cannot be opened as one, is one line with exit 2 (SstCommand.catch).
    const advice = flags.merge ? mergeAdviceParts(paths.map((p) => this.part(p))) : await this.advise(paths, flags)
    const { problemLine, renderAdviceText } = await import('../report/advise.js')
    if (advice.problems.length) {
      for (const p of advice.problems) process.stderr.write(`sstkit: ${problemLine(p)}\n`)
      this.raise(ExitCode.Finding)
    }
    if (flags.report) {
      const { renderAdviceHtml } = await import('../report/advise-html.js')
      writeFileAtomic(flags.report, renderAdviceHtml(advice))
    }
    if (this.jsonEnabled()) return (await import('../report/advise-notes.js')).adviceJson(advice)
    const { renderAdviceMarkdown } = await import('../report/advise-markdown.js')
    this.log(flags.format === 'markdown' ? renderAdviceMarkdown(advice) : renderAdviceText(advice, { ...this.tty, bytes: flags.bytes, wide: flags.wide }))
    if (flags.report) this.log(`report written to ${flags.report}`)
    return undefined
  }

  private async advise(paths: string[], flags: Parameters<typeof parseAdviseFlags>[0] & Record<string, unknown>): Promise<Advice> {
    const { settings, notes, objective, limits, prices, writeRate, timeBudgetMs, precision, fixedRate, shard, blockSizes } = parseAdviseFlags(flags)
    const progress = progressLine(process.stderr.isTTY && !this.jsonEnabled())
    try {
      const advice = await advise(paths, {
        ...{ settings, notes, objective, limits, prices, writeRate, timeBudgetMs, precision, shard, sampleRate: fixedRate },
        seed: flags.seed,
        jobs: flags.jobs,
        maxDictBytes: flags['max-dict-bytes'],
        maxDictBufferBytes: flags['max-dict-buffer-bytes'],
        rocksdbVersion: flags['rocksdb-version'] as string | undefined,
        writeOptions: flags['write-options'] as string | undefined,
        blockSizes,
        onProgress: (m) => progress.show(m),
        // The budget counts from the process's start (performance.now()'s origin): reading the MANIFEST is part of it.
        startedAt: 0,
      })
      progress.clear()
      return advice
    } catch (e) {
      if (!(e instanceof NothingToAdviseError)) throw e
      // Nothing can be read: one line, a finding, and no report of empty tables (under --json, a document with the finding).
      const { problemLine } = await import('../report/advise.js')
      const finding = `${e.message}${e.firstProblem ? `; the first, ${problemLine(e.firstProblem)}` : ''}`
      if (this.jsonEnabled()) this.logJson({ ...(await import('../report/advise-notes.js')).adviceJson(e.document), finding })
      this.fail(finding, ExitCode.Finding)
    }
  }

  /** One shard's advise --json. */
  private part(path: string): Advice {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Advice
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not an advise --json output'
      this.fail(`--merge: cannot read ${path}: ${why}`, ExitCode.Usage)
    }
  }
}

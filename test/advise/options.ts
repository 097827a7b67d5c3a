/**
 * advise's options as these tests run it: a budget no test reaches, one job,
 * seed 0, the precision, dictionary and acceptance defaults of the CLI
 * (src/cli/advise-flags.ts); each test says what it changes.
 */
import type { AdviseOptions } from '../../src/advise/advise.js'
import type { ResolvedInputs } from '../../src/advise/inputs.js'
import type { SettingSpec } from '../../src/advise/model.js'

/** The run's dictionary options: 16 KiB trained on 1600 KiB, 64 MiB buffered. */
export const RUN_DICT = { maxDictBytes: 16384, trainBytes: 1638400, maxDictBufferBytes: 64 << 20 }

export function testAdviseOptions(inputs: ResolvedInputs, settings: SettingSpec[], extra: Partial<AdviseOptions> = {}): AdviseOptions {
  return {
    settings,
    objective: 'balanced',
    limits: null,
    precision: 0.005,
    timeBudgetMs: 600_000,
    seed: 0,
    jobs: 1,
    shard: null,
    fixedRate: null,
    dict: RUN_DICT,
    maxCompressedBytesPerKb: 896,
    source: inputs.source,
    ...extra,
  }
}

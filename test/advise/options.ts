/**
 * advise's options and evaluation tasks as these tests run them: a budget no test reaches, one job,
 * seed 0, the precision, dictionary and acceptance defaults of the CLI
 * (src/cli/advise-flags.ts); each test says what it changes.
 */
import type { AdviseOptions } from '../../src/advise/engine-options.js'
import type { FileTask } from '../../src/advise/evaluate.js'
import type { ResolvedInputs } from '../../src/advise/inputs.js'
import type { SettingSpec } from '../../src/types/advice.js'
import { fileKey } from '../../src/advise/sampling.js'

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

/** One file's task with every block in it (draws below 1.01), none certain, seed 0, the run's dictionary. */
export function wholeFileTask(file: string, settings: SettingSpec[], extra: Partial<FileTask> = {}): FileTask {
  return {
    path: file,
    key: fileKey(file, null),
    seed: 0,
    rateLow: 0,
    rateHigh: 1.01,
    certain: [],
    settings: settings.map((spec, id) => ({ id, spec })),
    dict: RUN_DICT,
    maxCompressedBytesPerKb: 896,
    ...extra,
  }
}

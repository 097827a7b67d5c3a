import { defineConfig } from 'vitest/config'

// `npm test` runs the fast suites; `*.slow.test.ts` (real writers running for many seconds,
// generated databases, parity sweeps) run under `npm run test:slow`, which `.ci/run` also runs.
const slow = process.env.SSTKIT_SLOW_TESTS === '1'

export default defineConfig({
  test: {
    include: slow ? ['test/**/*.slow.test.ts'] : ['test/**/*.test.ts'],
    exclude: slow ? ['**/node_modules/**'] : ['**/node_modules/**', 'test/**/*.slow.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    // Two files at once even on two cores (vitest's default is cores - 1): most of a file's time
    // is spent waiting on the CLI or a real RocksDB tool in a child process.
    maxWorkers: 2,
  },
})

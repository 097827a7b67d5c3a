// Install real RocksDB 11.8.1 (the N-API build in the npm package @harperfast/rocksdb-js-linux-x64-glibc)
// into .cache/rocksdb11 for the tests that read sstkit's rewritten files with it (test/rewrite/rocksdb11.test.ts,
// through test/rewrite/rocksdb-js.ts) and for test/fixtures/generate-db.sh. It is not a devDependency: the
// package declares Node ^22.18 || >=24 (it runs on Node 20 too, which sstkit supports), so `npm ci` would
// warn EBADENGINE on every Node 20 install. Here that requirement is known and waived for this one package.
// Run by .ci/run after `npm ci`; locally: `npm run rocksdb11` (linux x64 only).
//
//   node scripts/install-rocksdb11.mjs [--check]   (--check: exit 1 unless it is installed)
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROCKSDB11_PACKAGE = '@harperfast/rocksdb-js-linux-x64-glibc'
const VERSION = '2.10.0'
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const PREFIX = join(ROOT, '.cache', 'rocksdb11')
const installed = () => existsSync(join(PREFIX, 'node_modules', ...ROCKSDB11_PACKAGE.split('/'), 'package.json'))

if (process.argv.includes('--check')) process.exit(installed() ? 0 : 1)
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`install-rocksdb11: ${ROCKSDB11_PACKAGE} is built for linux x64 only; the tests that need it are skipped here`)
  process.exit(0)
}
if (installed()) process.exit(0)
const r = spawnSync(
  'npm',
  [
    'install',
    '--prefix',
    PREFIX,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--engine-strict=false',
    '--loglevel=error',
    `${ROCKSDB11_PACKAGE}@${VERSION}`,
  ],
  { stdio: 'inherit' },
)
if (r.status !== 0 || !installed()) {
  console.error(`install-rocksdb11: npm install of ${ROCKSDB11_PACKAGE}@${VERSION} failed`)
  process.exit(1)
}
console.error(`install-rocksdb11: ${ROCKSDB11_PACKAGE}@${VERSION} in ${PREFIX}`)

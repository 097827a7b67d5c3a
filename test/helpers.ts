/** Shared test helpers: the real-RocksDB fixture manifest and running the built CLI. */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const REAL = join(ROOT, 'test/fixtures/real')
export const BAD = join(ROOT, 'test/fixtures/bad')

export interface FixtureEntry {
  name: string
  writer: string
  formatVersion: number
  checksum: string
  compression: string
  indexType: string
  filter: string
  notes: string
  sstDumpReadable: boolean
  features: string[]
  files: string[]
}

export function fixtures(): FixtureEntry[] {
  return JSON.parse(readFileSync(join(REAL, 'MANIFEST.json'), 'utf8')) as FixtureEntry[]
}

export function fixturePath(name: string, ext = 'sst'): string {
  return join(REAL, `${name}.${ext}`)
}

export function hasGolden(name: string, ext: string): boolean {
  return existsSync(fixturePath(name, ext))
}

export function golden(name: string, ext: string): string {
  return readFileSync(fixturePath(name, ext), 'utf8')
}

export interface CliResult {
  status: number
  stdout: string
  stderr: string
}

/** Run the built `sstkit` binary (as users do). */
export function sstkit(args: string[], opts: { input?: string; env?: Record<string, string>; timeout?: number } = {}): CliResult {
  assertFreshBuild()
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.cjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    input: opts.input,
    env: { ...process.env, ...opts.env, FORCE_COLOR: '0' },
    maxBuffer: 256 * 1024 * 1024,
    timeout: opts.timeout ?? 120_000,
  })
  if (r.error) throw r.error
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

/** The real sst_dump, when installed. */
export const SST_DUMP = ['/usr/bin/sst_dump', '/usr/local/bin/sst_dump'].find((p) => existsSync(p)) ?? null

/**
 * Whether a tool a suite needs (sst_dump, ldb, the RocksDB 11 package) is here, for `runIf`.
 * Missing under CI, which installs every one through .ci/run, it is an error that fails the test
 * file; missing on a developer's machine the suite is skipped with a warning, never silently.
 */
export function toolPresent(tool: string, present: boolean, install: string): boolean {
  if (present) return true
  const missing = `${tool} is not installed (${install})`
  if (runningInCi()) throw new Error(`${missing}: CI runs every suite, and .ci/run installs it`)
  console.warn(`\n  WARNING: skipping the tests that need ${tool}: ${missing}\n`)
  return false
}

/** For what a machine may forbid even in CI (e.g. mounting a tmpfs): warn when skipping. */
export function capabilityPresent(capability: string, present: boolean): boolean {
  if (!present) console.warn(`\n  WARNING: skipping the tests that need ${capability}: not allowed on this machine\n`)
  return present
}

function runningInCi(): boolean {
  const ci = process.env.CI
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false'
}

/**
 * The src/ files whose dist/ output is missing or older than they are (a .ts/.tsx file builds to
 * the same path with .js; declaration files build to nothing).
 */
export function staleOutputs(srcDir = join(ROOT, 'src'), distDir = join(ROOT, 'dist')): string[] {
  const stale: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) {
        const out = join(distDir, relative(srcDir, path).replace(/\.tsx?$/, '.js'))
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(path).mtimeMs) stale.push(relative(srcDir, path))
      }
    }
  }
  walk(srcDir)
  return stale
}

let buildChecked = false

/**
 * The CLI and every worker thread run the built JavaScript in dist/, so their tests are only as
 * current as the last build: fail, saying what to run, rather than test stale code.
 * (`npm test` builds first.)
 */
export function assertFreshBuild(): void {
  if (buildChecked) return
  const stale = staleOutputs()
  if (stale.length > 0) {
    const some = stale.slice(0, 5).join(', ') + (stale.length > 5 ? ` and ${stale.length - 5} more` : '')
    throw new Error(`dist/ is older than src/ (${some}): run \`npm run build\` before these tests`)
  }
  buildChecked = true
}

/** The sentences `advise --json` writes beside its coded notes (`{code, ...values, text}`), in order. */
export function jsonNoteTexts(advice: { notes: readonly object[] }): string[] {
  return advice.notes.map((n) => (n as { text: string }).text)
}

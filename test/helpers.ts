/** Shared test helpers: the real-RocksDB fixture manifest and running the built CLI. */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
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
export function sstkit(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): CliResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    input: opts.input,
    env: { ...process.env, ...opts.env, FORCE_COLOR: '0' },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
  })
  if (r.error) throw r.error
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }
}

/** The real sst_dump, when installed. */
export const SST_DUMP = ['/usr/bin/sst_dump', '/usr/local/bin/sst_dump'].find((p) => existsSync(p)) ?? null

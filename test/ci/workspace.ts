/** A scratch repository for the CI tests: three small real SSTs under data/ and a baseline beside them. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fixturePath, sstkit, type CliResult } from '../helpers.js'

export interface Workspace {
  dir: string
  data: string
  baseline: string
}

export const FILES = { 'a.sst': 'fv5-zstd', 'b.sst': 'fv5-snappy', 'c.sst': 'fv5-lz4' } as const
export const NAMES = ['data/a.sst', 'data/b.sst', 'data/c.sst']
export const CONFIGS = ['stored', 'zstd-3-none-off', 'zstd-9-none-off']

const created: string[] = []

/** Remove the workspaces this test file created. */
export function cleanup(): void {
  for (const d of created.splice(0)) rmSync(d, { recursive: true, force: true })
}

export function workspace(prefix: string): Workspace {
  const dir = mkdtempSync(join(tmpdir(), `sstkit-ci-${prefix}-`))
  created.push(dir)
  const data = join(dir, 'data')
  mkdirSync(data)
  for (const [name, fixture] of Object.entries(FILES)) copyFileSync(fixturePath(fixture), join(data, name))
  return { dir, data, baseline: join(dir, 'sstkit-baseline.json') }
}

export function ok(r: CliResult, status = 0): CliResult {
  if (r.status !== status) throw new Error(`exit ${r.status}, expected ${status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`)
  return r
}

/** Take the default baseline of ws.data (one worker: the fast path for tiny files). */
export function takeBaseline(ws: Workspace, extra: string[] = []): any {
  return JSON.parse(ok(sstkit(['baseline', ws.data, '-o', ws.baseline, '--jobs', '1', '--json', ...extra])).stdout)
}

export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'))
}

export function writeJson(path: string, v: unknown): void {
  writeFileSync(path, `${JSON.stringify(v, null, 2)}\n`)
}

/** The size of `config` for `name` in a baseline document. */
export function row(doc: any, name: string, config: string): any {
  const f = doc.files.find((x: any) => x.name === name)
  return f.rows.find((r: any) => r.config === config)
}

/** stderr as one string: oclif wraps long error messages over " ›   " continuation lines. */
export function err(r: CliResult): string {
  return r.stderr.replace(/\s*\n\s*›\s+/g, ' ').replace(/ {2,}/g, ' ')
}

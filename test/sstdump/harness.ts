/** Shared helpers of the sst-dump tests: run the emulation in-process and the golden cases. */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CollectingWriter, runSstDump } from '../../src/sstdump/index.js'
import { ROOT } from '../helpers.js'

export const SSTDUMP_FIXTURES = join(ROOT, 'test/fixtures/sst-dump')
export const GOLDENS = join(SSTDUMP_FIXTURES, 'goldens')

export interface GoldenCase {
  name: string
  cwd: 'repo' | 'work'
  args: string[]
  exit: number
  unordered: boolean
  dump: string | null
}

export function goldenCases(): GoldenCase[] {
  return JSON.parse(readFileSync(join(SSTDUMP_FIXTURES, 'cases.json'), 'utf8')) as GoldenCase[]
}

export function goldenFile(name: string, ext: string): Buffer {
  const p = join(GOLDENS, `${name}.${ext}`)
  return existsSync(p) ? readFileSync(p) : Buffer.alloc(0)
}

/** A scratch directory laid out as generate.sh's: bad/, real/ (three fixtures), dir/. */
export function makeWorkDir(): string {
  const w = mkdtempSync(join(tmpdir(), 'sstkit-sstdump-'))
  mkdirSync(join(w, 'real'))
  mkdirSync(join(w, 'dir'))
  cpSync(join(ROOT, 'test/fixtures/bad'), join(w, 'bad'), { recursive: true })
  for (const f of ['fv5-none', 'entry-types', 'binary-keys']) cpSync(join(ROOT, `test/fixtures/real/${f}.sst`), join(w, `real/${f}.sst`))
  cpSync(join(ROOT, 'test/fixtures/real/fv5-none.sst'), join(w, 'dir/fv5-none.sst'))
  writeFileSync(join(w, 'dir/notes.txt'), 'not an sst\n')
  return w
}

export interface RunResult {
  code: number
  stdout: Buffer
  stderr: Buffer
}

export async function runIn(cwd: string, args: string[]): Promise<RunResult> {
  const out = new CollectingWriter()
  const err = new CollectingWriter()
  const code = await runSstDump(args, { stdout: out.write, stderr: err.write, cwd, envPointer: '0x0' })
  return { code, stdout: out.buffer, stderr: err.buffer }
}

/** Replace the pointer of `options.env is 0x…` by 0x0 and recompress timings by 0 (as the goldens). */
export function normalize(b: Buffer): Buffer {
  return Buffer.from(
    b
      .toString('latin1')
      .replace(/^options\.env is 0x[0-9a-fA-F]+$/m, 'options.env is 0x0')
      .replace(/Time Taken: +\d+ microsecs/g, 'Time Taken: 0 microsecs'),
    'latin1',
  )
}

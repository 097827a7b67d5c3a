/** Shared helpers of the sst-dump tests: run the emulation in-process and the golden cases. */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
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

/** The host name sst_dump 7.8.3 ran on when the goldens were made ("DB host id" of a fixture written there). */
export function goldenHostName(): string {
  const props = readFileSync(join(ROOT, 'test/fixtures/real/fv5-none.props.txt'), 'latin1')
  const m = /^ {2}DB host id: (.*)$/m.exec(props)
  if (!m) throw new Error('fv5-none.props.txt names no DB host id')
  return m[1]
}

const SIZE = / Size: +(\d+) /

/**
 * `--command=recompress` output against a golden (or, `live`, against the
 * installed sst_dump's output), line by line (timings normalized): every line
 * identical, a golden's sizes corrected for this machine's host name, which
 * 7.8.3 writes into the rebuilt file's properties. kZSTD
 * sizes may differ by `zstdTolerance` (sstkit's zstd-napi bundles zstd 1.5.7,
 * sst_dump links the system's 1.5.4: their frames differ at levels 3 and up).
 * Returns the largest relative zstd size difference seen.
 */
export function expectRecompressOutput(got: string, want: string, opts: { live?: boolean; zstdTolerance?: number } = {}): number {
  const zstdTolerance = opts.zstdTolerance ?? 0.002
  // A live sst_dump ran on this machine; the goldens on goldenHostName().
  const hostDelta = opts.live ? 0 : hostname().length - goldenHostName().length
  const g = normalize(Buffer.from(got, 'latin1')).toString('latin1').split('\n')
  const w = normalize(Buffer.from(want, 'latin1')).toString('latin1').split('\n')
  expect(g.length).toBe(w.length)
  let type = ''
  let worstZstd = 0
  for (let i = 0; i < w.length; i++) {
    type = /^Compression: (\w+)/.exec(w[i])?.[1] ?? type
    const ws = SIZE.exec(w[i])
    if (!ws) {
      expect(g[i]).toBe(w[i])
      continue
    }
    expect(g[i].replace(SIZE, ' Size: N '), `line ${i + 1}`).toBe(w[i].replace(SIZE, ' Size: N '))
    const expected = Number(ws[1]) + hostDelta
    const actual = Number(SIZE.exec(g[i])?.[1])
    if (type === 'kZSTD') {
      const diff = Math.abs(actual - expected) / expected
      worstZstd = Math.max(worstZstd, diff)
      expect(diff, `${type} ${w[i]}`).toBeLessThan(zstdTolerance)
    } else {
      expect(actual, `${type} ${w[i]}`).toBe(expected)
    }
  }
  return worstZstd
}

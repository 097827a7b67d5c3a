/**
 * rewrite interrupted by SIGINT or SIGTERM leaves nothing behind (no temporary file, no OUT) and exits as the
 * signal says (130, 143); a later run clears the temporary files of sstkit's naming that earlier runs left
 * (older than the run, their process gone), and keeps those of a run still going. Through the built CLI.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { encodeInternalKey } from '../../src/format/internal-key.js'
import { ValueType } from '../../src/format/value-type.js'
import { prng } from '../../src/util/prng.js'
import { assertFreshBuild, ROOT, sstkit } from '../helpers.js'
import { writeSyntheticTable } from '../synthetic.js'

assertFreshBuild()
const dir = mkdtempSync(join(tmpdir(), 'sstkit-rewrite-signals-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** About 12 MB of half-random values: zstd level 19 takes seconds over it. */
const input = (() => {
  const random = prng(7)
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel']
  const entries = Array.from({ length: 12_000 }, (_, i) => {
    const v = new Uint8Array(1000)
    for (let p = 0; p < v.length; ) {
      const w = random() < 0.5 ? words[Math.floor(random() * words.length)] : String(Math.floor(random() * 1e9))
      for (let k = 0; k < w.length && p < v.length; k++) v[p++] = w.charCodeAt(k)
      if (p < v.length) v[p++] = 0x20
    }
    return [encodeInternalKey(new TextEncoder().encode(`key${String(i).padStart(8, '0')}`), i + 1, ValueType.Value), v] as [Uint8Array, Uint8Array]
  })
  return writeSyntheticTable(join(dir, 'synthetic-input.sst'), entries)
})()

const temporaries = (out: string) => readdirSync(join(out, '..')).filter((n) => n.includes('.sstkit-') && n.endsWith('.tmp'))

/** Start a rewrite of the input at zstd 19 into `out`; once its temporary file exists, send `signal`; the exit. */
function interrupted(out: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'rewrite', input, '-o', out, '--compression', 'zstd', '--level', '19'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (b) => {
      stderr += b
    })
    const poll = setInterval(() => {
      if (temporaries(out).length > 0) {
        clearInterval(poll)
        child.kill(signal)
      }
    }, 20)
    child.on('error', fail)
    child.on('exit', (code, sig) => {
      clearInterval(poll)
      done({ code, signal: sig, stderr })
    })
  })
}

describe('rewrite and signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s during a rewrite: no temporary file, no output, exit %i',
    async (signal, status) => {
      const outDir = mkdtempSync(join(dir, 'out-'))
      const out = join(outDir, 'out.sst')
      const r = await interrupted(out, signal)
      // Ended by the signal (re-raised after cleaning up), as a shell reports it: 128 + the signal's number.
      expect(r.signal === signal || r.code === status, `code ${r.code}, signal ${r.signal}: ${r.stderr}`).toBe(true)
      expect(temporaries(out)).toEqual([])
      expect(existsSync(out)).toBe(false)
      expect(readdirSync(outDir)).toEqual([])
    },
    120_000,
  )

  it("clears an earlier run's leftovers of sstkit's naming, and keeps a running one's and other files", () => {
    const outDir = mkdtempSync(join(dir, 'out-'))
    const out = join(outDir, 'out.sst')
    const deadPid = 2 ** 22 + 12345 // above Linux's largest pid_max (4194304): no process has it
    const hourAgo = Date.now() - 3_600_000
    const stale = `.out.sst.sstkit-${deadPid}-${hourAgo}.tmp`
    const otherStale = `.other.sst.sstkit-${deadPid}-${hourAgo}.tmp`
    const running = `.out.sst.sstkit-${process.pid}-${hourAgo}.tmp`
    const notOurs = '.out.sst.partial.tmp'
    for (const name of [stale, otherStale, running, notOurs]) {
      writeFileSync(join(outDir, name), 'left behind')
      utimesSync(join(outDir, name), hourAgo / 1000, hourAgo / 1000)
    }
    const r = sstkit(['rewrite', input, '-o', out, '--compression', 'lz4'])
    expect(r.status, r.stderr).toBe(0)
    expect(readdirSync(outDir).sort()).toEqual([running, notOurs, 'out.sst'].sort())
  }, 120_000)
})

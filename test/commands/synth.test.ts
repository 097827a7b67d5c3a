/**
 * `sstkit synth`: --size is read by the one size parser (src/cli/units.ts) — decimal and binary
 * units — and a size it cannot read, or no bytes at all, is a one-line usage error (exit 2).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sstkit } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'sstkit-synth-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('sstkit synth --size', () => {
  it('writes about that many value bytes, in binary units too', () => {
    const out = join(dir, 'synthetic-64k.sst')
    const r = sstkit(['synth', '-o', out, '--size', '64KiB', '--value-size', '1024', '--json'])
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).entries).toBe(64)
    expect(statSync(out).size).toBeGreaterThan(64 * 1024)
  })

  it.each([
    ['10XB', /^sstkit: --size: "10XB" is not a size \(use bytes, or a number with B, kB, MB, GB, KiB, MiB or GiB, e\.g\. 10MB or 512KiB\)$/],
    ['0', /^sstkit: --size: "0" is no bytes at all \(e\.g\. 100MB\)$/],
  ])('--size %s is a usage error in one line', (size, message) => {
    const out = join(dir, `synthetic-bad-${size}.sst`)
    const r = sstkit(['synth', '-o', out, '--size', size])
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toMatch(message)
    expect(() => statSync(out)).toThrow()
  })
})

/** `scan` of several files: a `==> file <==` header only for the files that print lines. */
import { describe, expect, it } from 'vitest'
import { fixturePath, sstkit } from '../helpers.js'

const headers = (s: string) => s.split('\n').filter((l) => l.startsWith('==> '))

describe('scan headers', () => {
  const files = ['examples/sample.sst', fixturePath('fv5-none')]

  it('are printed for each file that has lines', () => {
    const r = sstkit(['scan', ...files, '--limit', '1000000'])
    expect(r.status, r.stderr).toBe(0)
    expect(headers(r.stdout)).toEqual(files.map((f) => `==> ${f} <==`))
  })

  it('are left out for a file with no entry in the range', () => {
    // Only sample.sst holds keys starting with "user:"; fv5-none holds "row…" keys.
    const r = sstkit(['scan', ...files, '--prefix', 'user:'])
    expect(r.status, r.stderr).toBe(0)
    expect(headers(r.stdout)).toEqual(['==> examples/sample.sst <=='])
    expect(r.stdout.split('\n').filter((l) => l.startsWith("'user:")).length).toBe(900)
    const none = sstkit(['scan', ...files, '--prefix', 'nothing-has-this-prefix'])
    expect(none.status, none.stderr).toBe(0)
    expect(none.stdout).toBe('')
  })
})

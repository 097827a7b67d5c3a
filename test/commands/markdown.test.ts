/**
 * Markdown output that renders as meant: in GitHub-flavoured Markdown a line right under a
 * table, pipes or not, is one more row of it, so whatever follows a table (a verdict, a note,
 * a problem, the next file's heading) must come after a blank line.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BAD, sstkit } from '../helpers.js'

/** The lines right under a table that are not blank (each would be read as a row). */
function glued(md: string): string[] {
  const lines = md.split('\n')
  return lines.filter((l, i) => i > 0 && lines[i - 1].startsWith('|') && l !== '' && !l.startsWith('|'))
}

describe('Markdown: nothing glued under a table', () => {
  it('recompress: the legend, the verdict, the notes and the next file each after a blank line', () => {
    const r = sstkit([
      'recompress',
      'examples/sample.sst',
      'examples/db/000009.sst',
      '--levels',
      '3',
      '--dict',
      'none',
      '--checksum',
      'off',
      '--sample',
      '50',
      '--format',
      'markdown',
    ])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^verdict: /m)
    expect(r.stdout).toMatch(/^note: sampled 50%/m)
    expect(r.stdout).toMatch(/\n\nexamples\/db\/000009\.sst:\n\| Setting/)
    expect(glued(r.stdout)).toEqual([])
  })

  it('layout --summary: the problem lines after a blank line', () => {
    const r = sstkit(['layout', join(BAD, 'data-flip-zstd.sst'), '--summary', '--format', 'markdown'])
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/^problem: data at offset 0: /m)
    expect(glued(r.stdout)).toEqual([])
  })
})

/**
 * FileReportStream (src/report/file-reports.ts): several files' reports on one output as each is
 * made. Its JSON must parse as what oclif prints for a returned value (one file: the object; several:
 * the array), and its text must separate and name the files.
 */
import { describe, expect, it } from 'vitest'
import { FileReportStream } from '../../src/report/file-reports.js'

function written(json: boolean, several: boolean, feed: (s: FileReportStream) => void): string {
  let text = ''
  const stream = new FileReportStream((s) => (text += s), json, several)
  feed(stream)
  stream.end()
  return text
}

const a = { file: 'a.sst', blocks: [{ kind: 'data', offset: 0 }] }
const b = { file: 'b.sst', error: { code: 'corruption', message: 'bad magic number' } }

describe('FileReportStream', () => {
  it('--json, several files: the array JSON.stringify(value, null, 2) writes, entry by entry', () => {
    const text = written(true, true, (s) => {
      s.nextEntry()
      s.entry(a)
      s.nextEntry()
      s.entry(b)
    })
    expect(text).toBe(`${JSON.stringify([a, b], null, 2)}\n`)
  })

  it('--json, one file: its object alone; no file at all: nothing', () => {
    expect(
      written(true, false, (s) => {
        s.nextEntry()
        s.entry(a)
      }),
    ).toBe(`${JSON.stringify(a, null, 2)}\n`)
    expect(written(true, false, () => {})).toBe('')
  })

  it('an entry streamed piece by piece sits at the stream indent', () => {
    let text = ''
    const stream = new FileReportStream((s) => (text += s), true, true)
    stream.nextEntry()
    text += `${stream.indent}{\n${stream.indent}  "file": "a.sst"\n${stream.indent}}`
    stream.nextEntry()
    stream.entry(b)
    stream.end()
    expect(JSON.parse(text)).toEqual([{ file: 'a.sst' }, b])
  })

  it('text, several files: a blank line between reports (none where blankLine is false), each under its name', () => {
    const text = written(false, true, (s) => {
      s.nextText('a.sst')
      s.nextText('b.sst', false)
      s.nextText()
      s.nextText('c.sst')
    })
    expect(text).toBe('a.sst:\nb.sst:\n\n\nc.sst:\n')
  })

  it('text, one file: no name, no blank line, nothing at the end', () => {
    expect(written(false, false, (s) => s.nextText('a.sst'))).toBe('')
  })
})

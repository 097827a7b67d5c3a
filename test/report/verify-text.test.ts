/** verify's text report: one printable line per problem and note, and the line that says order was not checked. */
import { describe, expect, it } from 'vitest'
import { printableLine } from '../../src/errors.js'
import { type VerifyJson, verifyText } from '../../src/report/verify.js'

const base: VerifyJson = {
  file: 'f.sst',
  ok: true,
  blocksChecked: 3,
  dataBlocks: 1,
  entries: 2,
  rangeDeletions: 0,
  problems: [],
  comparator: 'leveldb.BytewiseComparator',
  comparatorSource: 'recorded',
  keyFormat: 'internal',
  orderChecked: true,
  notes: [],
}

describe('verifyText', () => {
  it('a problem message with control characters stays one line, escaped', () => {
    const text = verifyText({ ...base, ok: false, problems: [{ block: 'filter (a\nb)', offset: 7, message: 'bad\r\n\x1b[31mred\x7f' }] })
    expect(text.split('\n')).toEqual(['f.sst: CORRUPT (1 problem)', '  filter (a\\x0ab) at offset 7: bad\\x0d\\x0a\\x1b[31mred\\x7f'])
  })

  it('says when order was not checked, but not for an assumed comparator (its notes speak)', () => {
    const reason = 'the comparator "x" is not one sstkit implements'
    expect(verifyText({ ...base, orderChecked: false, orderSkippedReason: reason }).split('\n')[1]).toBe(`  key order not checked: ${reason}`)
    expect(verifyText({ ...base, orderChecked: false, comparatorSource: 'assumed', orderSkippedReason: reason }).split('\n')).toHaveLength(1)
    const note = { block: 'data block', offset: 0, message: 'not in bytewise order: the table may use a custom comparator' }
    expect(verifyText({ ...base, orderChecked: false, comparatorSource: 'assumed', notes: [note] }).split('\n')[1]).toBe(
      '  note: data block at offset 0: not in bytewise order: the table may use a custom comparator',
    )
  })
})

it('printableLine leaves printable text (and non-ASCII file names) alone', () => {
  expect(printableLine('ok: dossier/été.sst (at offset 3)')).toBe('ok: dossier/été.sst (at offset 3)')
  expect(printableLine('a\tb')).toBe('a\\x09b')
})

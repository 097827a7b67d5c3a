/**
 * Steps of `sstkit advise` kept out of the command: the release the options are written for
 * (option-syntax.ts optionsRelease) and today's OPTIONS file with the advice applied
 * (apply-options.ts advisedOptionsFile, addOptionsChanges), on the committed example database.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { addOptionsChanges, advisedOptionsFile } from '../../src/db/apply-options.js'
import { noteText } from '../../src/report/advise-notes.js'
import type { AdviceNote, ColumnFamilyAdvice } from '../../src/types/advice.js'
import { optionsRelease } from '../../src/db/option-syntax.js'
import { dbOptionsFrom, newestOptionsFile, readOptionsFile } from '../../src/db/options.js'
import { parseOptionsFile } from '../../src/format/options-file.js'
import { ROOT } from '../helpers.js'

const newest = newestOptionsFile(join(ROOT, 'examples/db'))!
const today = readOptionsFile(newest)
const text = readFileSync(newest, 'utf8')
const family = (name: string, options: Record<string, string>) => ({ name, options }) as ColumnFamilyAdvice

describe('optionsRelease', () => {
  it("the database's own release wins over --rocksdb-version, with a note saying so", () => {
    const r = optionsRelease({ version: '7.8.3', from: 'OPTIONS' }, '9.1')
    expect(r).toEqual({
      version: [7, 8, 3],
      source: { version: '7.8.3', from: 'OPTIONS' },
      notes: [{ code: 'rocksdb-version-flag-ignored', flag: '9.1', from: 'OPTIONS', version: '7.8.3' }],
    })
    expect(noteText((r as { notes: AdviceNote[] }).notes[0])).toBe(
      "--rocksdb-version 9.1 left aside: the database's OPTIONS says RocksDB 7.8.3, and the options are written for it",
    )
    expect(optionsRelease({ version: '7.8.3', from: 'LOG' }, '7.8.3')).toMatchObject({ notes: [] })
  })

  it('--rocksdb-version where the database says none; no release at all is a note', () => {
    expect(optionsRelease(null, '6.29')).toEqual({ version: [6, 29, 0], source: { version: '6.29', from: 'flag' }, notes: [] })
    const none = optionsRelease(null, undefined)
    expect(none).toMatchObject({ version: null, source: null })
    expect('notes' in none && none.notes).toEqual([{ code: 'rocksdb-version-unknown' }])
    expect('notes' in none && noteText(none.notes[0])).toMatch(/RocksDB release is unknown/)
  })

  it('a --rocksdb-version that is not X.Y[.Z] is a problem, whatever the database says', () => {
    expect(optionsRelease({ version: '7.8.3', from: 'OPTIONS' }, 'latest')).toEqual({ problem: "--rocksdb-version: 'latest' is not a release (X.Y or X.Y.Z)" })
  })
})

describe('advisedOptionsFile and addOptionsChanges', () => {
  it("applies the advice to today's file; a column family without a section is a note, nothing else changes", () => {
    const { text: advised, note } = advisedOptionsFile(text, today, [
      family('default', { compression: 'kZSTD' }),
      family('nosuch', { compression: 'kLZ4Compression' }),
    ])
    expect(note).toEqual({ code: 'write-options-missing-sections', file: newest, columnFamilies: ['nosuch'] })
    expect(noteText(note!)).toBe(`--write-options: ${newest} has no section for column family nosuch: left as is`)
    const cf = readOptionsFileText(advised).columnFamilies.find((c) => c.name === 'default')!
    expect(cf.raw.compression).toBe('kZSTD')
    expect(advisedOptionsFile(text, today, []).note).toBeNull()
  })

  it("each column family's change against its section today", () => {
    const families = [family('default', { compression: 'kZSTD' })]
    addOptionsChanges(families, today)
    expect(families[0].optionsChange).toEqual([{ key: 'compression', today: 'kSnappyCompression', advised: 'kZSTD' }])
    const same = [family('events', { compression: 'kSnappyCompression' })]
    addOptionsChanges(same, today)
    expect(same[0].optionsChange).toEqual([])
  })
})

function readOptionsFileText(t: string) {
  return dbOptionsFrom(parseOptionsFile(t, 'advised'), 'advised')
}

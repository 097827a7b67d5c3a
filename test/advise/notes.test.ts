/** advise/notes.ts: coded notes compared by code and values, whatever the key order, and without the JSON's text. */
import { describe, expect, it } from 'vitest'
import { noteKey, sameNote, uniqueNotes } from '../../src/advise/notes.js'
import type { AdviceNote } from '../../src/types/advice.js'

describe('notes compared as data', () => {
  it('the same code and values are the same note, in any key order and with or without a text', () => {
    const a: AdviceNote = { code: 'only-bottommost-level', columnFamily: 'default', level: 6 }
    expect(sameNote(a, { level: 6, columnFamily: 'default', code: 'only-bottommost-level' } as AdviceNote)).toBe(true)
    expect(sameNote(a, { ...a, text: 'default: only L6, …' } as AdviceNote)).toBe(true)
    expect(sameNote(a, { ...a, level: 5 })).toBe(false)
    expect(sameNote(a, { ...a, columnFamily: 'other' })).toBe(false)
    // Nested values count, in their order.
    const sampled = (levels: number[]): AdviceNote => ({
      code: 'levels-not-sampled',
      levels: levels.map((level) => ({ columnFamily: 'default', level })),
      budgetMs: null,
    })
    expect(noteKey(sampled([5, 6]))).toBe(noteKey(sampled([5, 6])))
    expect(noteKey(sampled([5, 6]))).not.toBe(noteKey(sampled([6, 5])))
  })

  it('uniqueNotes keeps the first of equal notes in its place, without its text', () => {
    const notes = [
      { code: 'no-options-file', text: 'no OPTIONS file: today is what the files themselves say' },
      { code: 'workload-no-log', dir: 'db' },
      { code: 'no-options-file' },
      { dir: 'db', code: 'workload-no-log', text: 'no info LOG in db …' },
      { code: 'workload-no-log', dir: 'other' },
    ] as AdviceNote[]
    expect(uniqueNotes(notes)).toEqual([{ code: 'no-options-file' }, { code: 'workload-no-log', dir: 'db' }, { code: 'workload-no-log', dir: 'other' }])
  })
})

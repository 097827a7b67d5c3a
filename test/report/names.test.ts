import { describe, expect, it } from 'vitest'
import { shortNames, trimMiddle } from '../../src/report/advise.js'
import { escapeName, printable } from '../../src/report/text.js'

describe('names for people', () => {
  it('escapeName: control characters as \\xNN, the backslash doubled, so that no two names look alike', () => {
    expect(escapeName('\x01')).toBe('\\x01')
    expect(escapeName('a\nb\tc\x7f\u0085')).toBe('a\\x0ab\\x09c\\x7f\\x85')
    expect(escapeName('\\x01')).toBe('\\\\x01')
    expect(escapeName('\\x01')).not.toBe(escapeName('\x01'))
    expect(escapeName('événements_日本')).toBe('événements_日本')
  })

  it('printable: one line, a backslash kept', () => {
    expect(printable('a\nb\\c')).toBe('a\\x0ab\\c')
  })

  it('shortNames: middle-trimmed where that keeps them apart, cut where they differ where it does not', () => {
    const names = ['transactions_by_account_hash L0', 'transactions_by_block_hash L0', 'default L0', 'events_by_day L1']
    expect(trimMiddle(names[0], 18)).toBe(trimMiddle(names[1], 18))
    const short = shortNames(names, 18)
    expect([...short.values()].every((s) => s.length <= 18)).toBe(true)
    expect(new Set(short.values()).size).toBe(names.length)
    expect(short.get('default L0')).toBe('default L0')
    expect(short.get('events_by_day L1')).toBe('events_by_day L1')
  })

  it('shortNames: numbered when no cut tells them apart', () => {
    const a = `${'x'.repeat(30)}a${'x'.repeat(30)}`
    const b = `${'x'.repeat(30)}b${'x'.repeat(30)}`
    const short = shortNames([a, b], 10)
    expect(short.get(a)).not.toBe(short.get(b))
    expect([...short.values()].map((s) => s.slice(-2))).toEqual(['#1', '#2'])
    expect([...short.values()].every((s) => s.length <= 10)).toBe(true)
  })
})

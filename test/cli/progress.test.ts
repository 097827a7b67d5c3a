/** recompress's progress bar: the bar, then the time left from the rate so far, redrawn at most every 100 ms. */
import { describe, expect, it } from 'vitest'
import { formatSeconds, progressBar, progressWithEta } from '../../src/cli/progress.js'

describe('progress with an ETA', () => {
  it('formats the time left in seconds, minutes or hours', () => {
    expect(formatSeconds(42.4)).toBe('42s')
    expect(formatSeconds(187)).toBe('3m 07s')
    expect(formatSeconds(3720)).toBe('1h 02m')
  })

  it('says the ETA is unknown for the first second, then extrapolates the rate so far', () => {
    const shown: string[] = []
    let t = 0
    const bar = progressWithEta({ show: (s) => shown.push(s), clear: () => {} }, 'f.sst', () => t)
    bar.update(10, 100)
    expect(shown.at(-1)).toBe(`${progressBar('f.sst', 10, 100)} ETA …`)
    t = 50
    bar.update(11, 100) // within 100 ms of the last drawing: not redrawn
    expect(shown.length).toBe(1)
    t = 2000
    bar.update(25, 100) // 25% in 2 s: 6 s left
    expect(shown.at(-1)).toBe(`${progressBar('f.sst', 25, 100)} ETA 6s`)
    t = 2010
    bar.update(100, 100) // the last one always drawn
    expect(shown.at(-1)).toBe(`${progressBar('f.sst', 100, 100)} ETA 0s`)
  })
})

/** The browser's background task queue (src/tui/scheduler.ts). */
import { describe, expect, it } from 'vitest'
import { SliceScheduler } from '../../src/tui/scheduler.js'

describe('SliceScheduler', () => {
  it('runs tasks in order, each until it says it is finished, and reports each slice that did work', () => {
    const log: string[] = []
    let a = 0
    const taskA = () => {
      log.push(`a${a}`)
      return ++a === 3
    }
    const taskB = () => {
      log.push('b')
      return true
    }
    const s = new SliceScheduler([taskA, taskB], 1000, () => log.push('changed'))
    expect(s.idle).toBe(false)
    expect(s.step()).toBe(false)
    expect(log).toEqual(['a0', 'a1', 'a2', 'b', 'changed'])
    expect(s.idle).toBe(true)
    expect(s.step()).toBe(false)
    expect(log).toHaveLength(5) // an idle slice reports nothing
  })

  it('a slice stops at its time budget; start() runs slices until the queue is empty; close() stops it', async () => {
    let steps = 0
    const slow = () => {
      const end = performance.now() + 2
      while (performance.now() < end);
      return ++steps >= 20
    }
    const s = new SliceScheduler([slow], 1, () => {})
    expect(s.step()).toBe(true)
    expect(steps).toBeLessThan(20)
    s.start()
    while (!s.idle) await new Promise((r) => setImmediate(r))
    expect(steps).toBe(20)

    let never = 0
    const neverDone = () => {
      never++
      return false
    }
    const c = new SliceScheduler([neverDone], 1, () => {})
    c.close()
    c.start()
    await new Promise((r) => setTimeout(r, 20))
    expect(never).toBe(0)
    expect(c.isClosed).toBe(true)
  })
})

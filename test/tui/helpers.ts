/** Rendering the browser with ink-testing-library on real fixtures, and waiting for what it shows. */
import { render } from 'ink-testing-library'
import { createElement } from 'react'
import { openTable, type Table } from '../../src/index.js'
import { App } from '../../src/tui/app.js'
import { BrowseModel } from '../../src/tui/model.js'

export const KEY = {
  tab: '\t',
  shiftTab: '\x1b[Z',
  enter: '\r',
  esc: '\x1b',
  backspace: '\x7f',
  down: '\x1b[B',
  up: '\x1b[A',
  pageDown: '\x1b[6~',
  pageUp: '\x1b[5~',
} as const

export interface Browser {
  table: Table
  model: BrowseModel
  frame(): string
  /** Send keys one at a time, each once the app has drawn the frame after the one before. */
  press(...keys: string[]): Promise<void>
  /** Wait until the screen satisfies `pred` (or contains the string); fails with the last screen after `ms`. */
  waitFor(pred: string | RegExp | ((screen: string) => boolean), ms?: number): Promise<string>
  /** Wait until the screen has not changed for `quietMs` (a key's effects drawn, however loaded the machine); the screen. */
  settle(quietMs?: number): Promise<string>
  rerender(size: { width: number; height: number }): void
  close(): void
}

const open: Browser[] = []

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Open `file` in the browser at a fixed size. Unless `background` is false,
 * waits until the model has finished its background loading, so that what the
 * keys do does not depend on timing.
 */
export async function browse(file: string, opts: { width?: number; height?: number; background?: boolean; settle?: boolean } = {}): Promise<Browser> {
  const table = openTable(file)
  const model = new BrowseModel(file, table, { background: opts.background ?? true })
  const size = { width: opts.width ?? 100, height: opts.height ?? 30 }
  // the app reports each frame it drew with the number of keys handled before it; a key's effects are on the screen once that count reaches it
  let keysWritten = 0
  let keysDrawn = 0
  const onDrawn = (n: number) => {
    keysDrawn = n
  }
  const r = render(createElement(App, { model, ...size, redrawMs: 1, onDrawn }))
  const frame = () => r.lastFrame() ?? ''
  const b: Browser = {
    table,
    model,
    frame,
    async press(...keys) {
      for (const k of keys) {
        r.stdin.write(k)
        keysWritten++
        const end = Date.now() + 10_000
        while (keysDrawn < keysWritten) {
          if (Date.now() > end) throw new Error(`key ${JSON.stringify(k)} not drawn within 10 s; the screen shows:\n${frame()}`)
          await sleep(k === KEY.esc ? 5 : 1) // a lone Esc is told from an escape sequence on the next turn of the event loop
        }
      }
    },
    async waitFor(pred, ms = 5000) {
      const test = typeof pred === 'string' ? (s: string) => s.includes(pred) : pred instanceof RegExp ? (s: string) => pred.test(s) : pred
      const end = Date.now() + ms
      for (;;) {
        const s = frame()
        if (test(s)) return s
        if (Date.now() > end) throw new Error(`screen did not show ${String(pred)} within ${ms} ms; it shows:\n${s}`)
        await sleep(10)
      }
    },
    async settle(quietMs = 200) {
      const end = Date.now() + 10_000
      let s = frame()
      let since = Date.now()
      while (Date.now() - since < quietMs && Date.now() < end) {
        await sleep(10)
        if (frame() !== s) {
          s = frame()
          since = Date.now()
        }
      }
      return s
    },
    rerender(sz) {
      r.rerender(createElement(App, { model, ...sz, redrawMs: 1, onDrawn }))
    },
    close() {
      r.unmount()
      model.close()
      table.close()
    },
  }
  open.push(b)
  if ((opts.background ?? true) && opts.settle !== false) {
    const end = Date.now() + 10_000
    while (!model.idle && Date.now() < end) await sleep(5)
    if (!model.idle) throw new Error(`${file}: background loading did not finish`)
    await sleep(10)
  }
  await b.waitFor('sstkit browse')
  return b
}

export function closeAll(): void {
  while (open.length) open.pop()!.close()
}

/** Lines of the screen, and the selected one (marked ›). */
export function selectedLine(screen: string): string {
  return screen.split('\n').find((l) => l.startsWith('›')) ?? ''
}

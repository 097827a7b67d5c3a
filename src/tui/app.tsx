/**
 * `sstkit browse`: the interactive terminal browser (ink + React).
 *
 * Screens: Overview (footer facts, grouped properties, where the bytes go),
 * Blocks (every block in file order), Entries (keys across the file with the
 * selected entry's value), index handles (Enter on an index block), plus the
 * `/` seek prompt and the help overlay. Everything comes from `BrowseModel`,
 * which reads the file lazily; this module only lays text out and handles keys.
 *
 * Imported only by the browse command (dynamically), so ink and React load
 * only when someone browses.
 */
import { Box, render, Text, useApp, useInput, useStdin, useStdout } from 'ink'
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { bytesText } from './format.js'
import type { BrowseModel, BlockRow, EntryPos, IndexHandleRow } from './model.js'
import {
  blocksListHeight,
  cmpPos,
  dims,
  drawFrame,
  follow,
  INITIAL,
  overviewText,
  resolveBlk,
  type Focus,
  type Line,
  type Screen,
  type UiState,
} from './screens.js'

export interface AppProps {
  readonly model: BrowseModel
  /** Fixed size (tests); otherwise the terminal's, following resizes. */
  readonly width?: number
  readonly height?: number
  /** Milliseconds between redraws caused by background loading (default 80). */
  readonly redrawMs?: number
  /** Called after each drawn frame with the number of keys handled before it, Infinity once unmounted (tests wait on it, not on a clock). */
  readonly onDrawn?: (keysHandled: number) => void
}

interface TerminalSize {
  cols: number
  rows: number
}

/** The given size, else the terminal's, else 100x30. */
function terminalSize(stdout: NodeJS.WriteStream, width?: number, height?: number): TerminalSize {
  return { cols: width ?? (stdout.columns || 100), rows: height ?? (stdout.rows || 30) }
}

function useTerminalSize(width?: number, height?: number): TerminalSize {
  const { stdout } = useStdout()
  const [size, setSize] = useState(() => terminalSize(stdout, width, height))
  useEffect(() => {
    setSize(terminalSize(stdout, width, height))
    if (width !== undefined && height !== undefined) return undefined
    const f = () => setSize(terminalSize(stdout, width, height))
    stdout.on('resize', f)
    return () => {
      stdout.off('resize', f)
    }
  }, [stdout, width, height])
  return size
}

/** Re-render when the model has loaded more, at most every `ms`. */
function useModelTick(model: BrowseModel, ms: number): number {
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let timer: NodeJS.Timeout | null = null
    const off = model.onChange(() => {
      timer ??= setTimeout(() => {
        timer = null
        setTick((t) => t + 1)
      }, ms)
    })
    return () => {
      off()
      if (timer) clearTimeout(timer)
    }
  }, [model, ms])
  return tick
}

export function App({ model, width, height, redrawMs = 80, onDrawn }: AppProps): ReactNode {
  const { exit } = useApp()
  const { isRawModeSupported } = useStdin()
  const { cols, rows } = useTerminalSize(width, height)
  useModelTick(model, redrawMs)

  // UI state lives in a ref so that keys arriving faster than React re-renders
  // (key repeat, pasted text) each see the state the previous key left.
  const st = useRef<UiState>(INITIAL)
  const [, bump] = useState(0)
  const set = (patch: Partial<UiState>) => {
    st.current = { ...st.current, ...patch }
    bump((v) => v + 1)
  }

  const { W, C, listH, listRows } = dims(cols, rows)
  const ovLines = useMemo(() => overviewText(model), [model, model.props, model.propsPending])

  const selectBlock = (rowsNow: BlockRow[], i: number, top: number) => {
    set({ blk: { cursor: i, top: follow(i, top, blocksListHeight(C)), offset: rowsNow[i]?.block.offset ?? null } })
  }

  const push = () => {
    const s = st.current
    set({ back: [...s.back, { screen: s.screen, focus: s.focus, handles: s.handles }] })
  }

  const entriesStart = (): UiState['ent'] => {
    const e = st.current.ent
    if (e.pos) return e
    const p = model.first()
    return { pos: p, top: p }
  }

  const goScreen = (screen: Screen, focus: Focus = 'list') => {
    set({ screen, focus, ...(screen === 'entries' ? { ent: entriesStart() } : {}) })
  }

  const placeEntries = (pos: EntryPos) => {
    set({ ent: { pos, top: model.move(pos, -Math.floor(listRows / 3)) }, detailScroll: 0 })
    model.readAhead(pos.block)
  }

  const followEntries = (pos: EntryPos) => {
    let t = st.current.ent.top ?? pos
    if (cmpPos(pos, t) < 0) t = pos
    else if (!model.window(t, listRows).some((w) => cmpPos(w.pos, pos) === 0)) t = model.move(pos, -(listRows - 1))
    set({ ent: { pos, top: t }, detailScroll: 0 })
    model.readAhead(pos.block)
  }

  const doSeek = (text: string) => {
    let key: Uint8Array
    if (/^0x/i.test(text)) {
      const h = text.slice(2)
      if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) return set({ message: { text: `not a hex key: ${text}`, error: true } })
      key = Uint8Array.from(Buffer.from(h, 'hex'))
    } else key = new TextEncoder().encode(text)
    const r = model.seek(key)
    if ('error' in r) return set({ message: { text: `seek failed: ${r.error}`, error: true } })
    if (st.current.screen !== 'entries') push()
    set({ screen: 'entries', focus: 'list' })
    if ('end' in r) {
      const last = model.last()
      if (last) placeEntries(last)
      return set({ message: { text: `no key >= ${text}: past the last entry (showing the last one)`, error: false } })
    }
    placeEntries(r.pos)
    const e = model.entries(r.pos.block)
    const found = e.ok ? e.entries[r.pos.entry] : undefined
    set({
      message: {
        text: `seek ${text}: first entry >= key is ${found ? bytesText(found.userKey, st.current.hex) : '?'} (data block #${r.pos.block})`,
        error: false,
      },
    })
  }

  const openData = (ordinal: number) => {
    const pos = model.firstFrom(ordinal)
    if (!pos) return set({ message: { text: `data block #${ordinal} has no entries`, error: false } })
    push()
    set({ screen: 'entries', focus: 'list', ent: { pos, top: pos }, detailScroll: 0 })
    model.readAhead(pos.block)
  }

  const openHandles = (b: { kind: 'index' | 'index partition'; name?: string; offset: number; size: number }) => {
    try {
      const list = model.indexHandles(b)
      push()
      set({
        screen: 'handles',
        handles: { title: `${b.kind}${b.name ? ` ${b.name}` : ''} at offset ${b.offset}: ${list.length} handles`, rows: list, cursor: 0, top: 0 },
      })
    } catch (e) {
      set({ message: { text: `cannot open the ${b.kind} block: ${(e as Error).message}`, error: true } })
    }
  }

  const openBlock = (row: BlockRow | undefined) => {
    if (!row) return
    const b = row.block
    if (row.ordinal !== undefined) return openData(row.ordinal)
    if (b.kind === 'index' || b.kind === 'index partition') return openHandles({ kind: b.kind, name: b.name, offset: b.offset, size: b.size })
    set({ message: { text: `Enter opens data and index blocks; this is a ${b.kind} block`, error: false } })
  }

  const openHandle = (h: IndexHandleRow | undefined) => {
    if (!h) return
    if (h.target === 'index partition') return openHandles({ kind: 'index partition', offset: h.handle.offset, size: h.handle.size })
    const ordinal = model.ordinalOfOffset(h.handle.offset)
    if (ordinal === undefined) return set({ message: { text: `no data block at offset ${h.handle.offset}`, error: true } })
    openData(ordinal)
  }

  const goBack = () => {
    const s = st.current
    if (s.screen === 'entries' && s.focus === 'detail') return set({ focus: 'list' })
    const prev = s.back[s.back.length - 1]
    if (prev) return set({ back: s.back.slice(0, -1), screen: prev.screen, focus: prev.screen === 'entries' ? 'list' : prev.focus, handles: prev.handles })
    if (s.screen !== 'overview') goScreen('overview')
  }

  const onKey = (input: string, key: Key): void => {
    const s = st.current
    if (s.help) {
      set({ help: false })
      if (input === 'q') exit()
      return
    }
    if (s.prompt !== null) {
      if (key.return) {
        set({ prompt: null })
        if (s.prompt.length > 0) doSeek(s.prompt)
      } else if (key.escape) set({ prompt: null })
      else if (key.backspace || key.delete) set({ prompt: s.prompt.slice(0, -1) })
      else if (input && !key.ctrl && !key.meta) set({ prompt: s.prompt + input.replace(/[\r\n]/g, '') })
      return
    }
    if (s.message) set({ message: null })
    if (input === 'q' || (key.ctrl && input === 'c')) return exit()
    if (input === 'h' || input === '?') return set({ help: true })
    if (input === '/') return set({ prompt: '' })
    if (input === 'x') return set({ hex: !s.hex })
    if (key.tab) {
      const order: [Screen, Focus][] = [
        ['overview', 'list'],
        ['blocks', 'list'],
        ['entries', 'list'],
        ['entries', 'detail'],
      ]
      const cur = s.screen === 'handles' ? 1 : order.findIndex(([sc, f]) => sc === s.screen && (sc !== 'entries' || f === s.focus))
      const next = order[(cur + (key.shift ? order.length - 1 : 1)) % order.length]
      return goScreen(next[0], next[1])
    }
    if (input === '1') return goScreen('overview')
    if (input === '2') return goScreen('blocks')
    if (input === '3') return goScreen('entries')
    if (key.escape || key.backspace || key.delete) return goBack()

    switch (s.screen) {
      case 'overview': {
        // the properties get the screen less the four lines of file facts and bar, and one for the scroll hint
        const max = Math.max(0, ovLines.length - (C - 5))
        const n = listStep(input, key, s.ovScroll, max + 1, C - 6)
        if (n !== null) set({ ovScroll: n })
        else if (key.return) goScreen('blocks')
        return
      }
      case 'blocks': {
        const rowsNow = model.blockRows()
        const cur = resolveBlk(rowsNow, s.blk)
        if (input === 'n') {
          const i = model.nextProblem(cur.cursor)
          if (i < 0)
            return set({ message: { text: model.progress().sweepDone ? 'no block has a problem' : 'no problem found yet (still checking)', error: false } })
          return selectBlock(rowsNow, i, cur.top)
        }
        const n = listStep(input, key, cur.cursor, rowsNow.length, blocksListHeight(C) - 1)
        if (n !== null) selectBlock(rowsNow, n, cur.top)
        else if (key.return) openBlock(rowsNow[cur.cursor])
        return
      }
      case 'handles': {
        const h = s.handles
        if (!h) return
        const n = listStep(input, key, h.cursor, h.rows.length, C - 4)
        if (n !== null) set({ handles: { ...h, cursor: n, top: follow(n, h.top, C - 3) } })
        else if (key.return) openHandle(h.rows[h.cursor])
        return
      }
      case 'entries': {
        let cur = s.ent.pos
        if (!cur) {
          const start = entriesStart()
          if (!start.pos) return
          set({ ent: start })
          cur = start.pos
        }
        if (s.focus === 'detail') {
          const n = listStep(input, key, s.detailScroll, 1 << 30, Math.max(1, C - listH - 3))
          if (n !== null) set({ detailScroll: n === (1 << 30) - 1 ? 1 << 20 : n })
          return
        }
        if (key.return) return set({ focus: 'detail' })
        if (input === 'G' || key.end) {
          const last = model.last()
          if (last) placeEntries(last)
          return
        }
        let pos: EntryPos | null = null
        if (key.downArrow || input === 'j') pos = model.move(cur, 1)
        else if (key.upArrow || input === 'k') pos = model.move(cur, -1)
        else if (key.pageDown || input === ' ' || (key.ctrl && input === 'f')) pos = model.move(cur, listRows - 1)
        else if (key.pageUp || (key.ctrl && input === 'b')) pos = model.move(cur, -(listRows - 1))
        else if (input === 'g' || key.home) pos = model.first()
        if (pos) followEntries(pos)
        return
      }
    }
  }

  const keysHandled = useRef(0)
  useInput(
    (input, key) => {
      // Keys typed faster than they are read (before ink started, or a paste)
      // arrive as one string: take them one at a time.
      if (input.length > 1 && !key.ctrl && !key.meta) for (const ch of input) onKey(...charKey(ch))
      else onKey(input, key)
      keysHandled.current++
      if (onDrawn) bump((v) => v + 1) // a key that changed nothing is still reported drawn
    },
    { isActive: isRawModeSupported === true },
  )

  const drawnAfter = keysHandled.current
  useEffect(() => onDrawn?.(drawnAfter))
  const drawnRef = useRef(onDrawn)
  drawnRef.current = onDrawn
  useEffect(() => () => drawnRef.current?.(Number.POSITIVE_INFINITY), []) // unmounted: no key will wait on a frame again
  const frame = drawFrame(model, st.current, cols, rows, ovLines)
  return (
    <Box flexDirection="column" width={W}>
      {frame.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a frame line is its row on the screen; rows have no other identity
        <Text key={i} wrap="truncate-end">
          {renderLine(line, W)}
        </Text>
      ))}
    </Box>
  )
}

/**
 * One frame line (already cut to the width) as styled ink text, padded to the
 * full width: ink trims plain trailing spaces, and without the padding a
 * shorter line would leave the end of the longer one drawn before it (the
 * first screen painted before ink loaded). Dim padding survives the trim.
 */
function renderLine(line: Line, width: number): ReactNode[] {
  const used = line.reduce((n, s) => n + s.text.length, 0)
  const out = line.map((s, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: spans are positional within their line; the line is redrawn whole
    <Text key={i} color={s.color} inverse={s.inverse} bold={s.bold} dimColor={s.dim}>
      {s.text}
    </Text>
  ))
  if (used < width)
    out.push(
      <Text key="pad" dimColor>
        {' '.repeat(width - used)}
      </Text>,
    )
  return out
}

type Key = Parameters<Parameters<typeof useInput>[0]>[1]

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
}

/** One character of a multi-character input as the key it stands for. */
export function charKey(ch: string): [string, Key] {
  switch (ch) {
    case '\t':
      return ['', { ...NO_KEY, tab: true }]
    case '\r':
    case '\n':
      return ['', { ...NO_KEY, return: true }]
    case '\x1b':
      return ['', { ...NO_KEY, escape: true, meta: true }]
    case '\x7f':
      return ['', { ...NO_KEY, delete: true }]
    case '\b':
      return ['', { ...NO_KEY, backspace: true }]
    default:
      return [ch, { ...NO_KEY, shift: /[A-Z]/.test(ch) }]
  }
}

/** Step a list cursor: the new index, or null for keys that are not movement. */
function listStep(input: string, key: Key, cursor: number, count: number, page: number): number | null {
  if (count <= 0) return null
  if (key.downArrow || input === 'j') return Math.min(count - 1, cursor + 1)
  if (key.upArrow || input === 'k') return Math.max(0, cursor - 1)
  if (key.pageDown || input === ' ' || (key.ctrl && input === 'f')) return Math.min(count - 1, cursor + Math.max(1, page))
  if (key.pageUp || (key.ctrl && input === 'b')) return Math.max(0, cursor - Math.max(1, page))
  if (input === 'g' || key.home) return 0
  if (input === 'G' || key.end) return count - 1
  return null
}

/**
 * Run the browser until the user quits. The caller owns the terminal set-up:
 * it has switched to the alternate screen and may have painted the first frame
 * already (see the browse command), so ink starts drawing at the top left.
 */
export async function runBrowser(model: BrowseModel): Promise<void> {
  const instance = render(<App model={model} />, { exitOnCtrlC: true, patchConsole: true })
  await instance.waitUntilExit()
}

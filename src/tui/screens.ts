/**
 * The browser's screens as plain text lines with styles: what each screen
 * shows for a UI state, at a terminal size. No ink and no React here, so the
 * browse command can paint the first screen (as ANSI text) before ink has even
 * loaded, and ink's components only turn these lines into <Text>.
 */
import { formatBytes } from '../report/text.js'
import { propsText } from '../report/props.js'
import { barSegments, bytesText, cell, clip, kindColor, legend, typeText, valueLines, wrap } from './format.js'
import type { BrowseModel, BlockRow, ByteSplit, EntryPos, EntryRow, IndexHandleRow } from './model.js'

export type Screen = 'overview' | 'blocks' | 'entries' | 'handles'
export type Focus = 'list' | 'detail'

export interface HandlesView {
  readonly title: string
  readonly rows: IndexHandleRow[]
  readonly cursor: number
  readonly top: number
}

export interface Snapshot {
  readonly screen: Screen
  readonly focus: Focus
  readonly handles: HandlesView | null
}

/** A piece of a line with its style. */
export interface Seg {
  readonly text: string
  readonly color?: string
  readonly inverse?: boolean
  readonly bold?: boolean
  readonly dim?: boolean
}
export type Line = Seg[]

export const SCREENS: { id: Screen; label: string }[] = [
  { id: 'overview', label: '1 Overview' },
  { id: 'blocks', label: '2 Blocks' },
  { id: 'entries', label: '3 Entries' },
]

export const HELP_LINES = [
  'Keys',
  '',
  '  ↑ ↓  j k        move the selection (or scroll the focused pane)',
  '  PgUp PgDn       a page up / down (also Ctrl+B / Ctrl+F, space)',
  '  g G  Home End   first / last',
  '  Tab  Shift+Tab  next / previous pane: Overview → Blocks → Entries → value → Overview',
  '  1 2 3           Overview, Blocks, Entries',
  "  Enter           open: a data block's entries, an index block's handles;",
  '                  on an entry, focus its value pane',
  '  Esc  Backspace  back',
  '  /               seek: type a key (text, or 0x… for hex), Enter jumps to the',
  '                  first entry >= key through the index',
  '  x               show keys and values as hex / as text',
  '  n               Blocks: next block with a problem',
  '  h  ?            this help (any key but q closes it; q quits)',
  '  q               quit',
  '',
  'Colours: data green, index cyan, filter magenta, range deletions yellow,',
  'other meta blocks blue, gaps grey; problems red.',
]

export interface UiState {
  readonly screen: Screen
  readonly focus: Focus
  readonly back: Snapshot[]
  readonly hex: boolean
  readonly help: boolean
  /** The seek prompt's text while it is open. */
  readonly prompt: string | null
  readonly message: { text: string; error: boolean } | null
  readonly ovScroll: number
  /** Blocks list: cursor row, first row shown, and the selected block's offset (rows shift while the layout loads). */
  readonly blk: { cursor: number; top: number; offset: number | null }
  readonly ent: { pos: EntryPos | null; top: EntryPos | null }
  readonly detailScroll: number
  readonly handles: HandlesView | null
}

export const INITIAL: UiState = {
  screen: 'overview',
  focus: 'list',
  back: [],
  hex: false,
  help: false,
  prompt: null,
  message: null,
  ovScroll: 0,
  blk: { cursor: 0, top: 0, offset: null },
  ent: { pos: null, top: null },
  detailScroll: 0,
  handles: null,
}

/** Sizes derived from the terminal: one spare row so the frame never fills the screen (ink then redraws in place). */
export function dims(cols: number, rows: number): { W: number; H: number; C: number; listH: number; listRows: number } {
  const H = Math.max(8, rows - 1)
  const C = H - 2
  const listH = Math.max(3, Math.floor(C * 0.5)) // entries list incl. its header
  return { W: Math.max(40, cols), H, C, listH, listRows: listH - 1 }
}

/** The Overview's property lines (grouped, from the shared props report). */
export function overviewText(model: BrowseModel): string[] {
  const text = propsText(model.props).split('\n').slice(1)
  return text.map((l) => (model.propsPending && /^\s+filter\s/.test(l) ? l.replace(/none$/, '(identifying…)') : l))
}

/** Every line of the screen for state `s`: header, content, status. */
export function drawFrame(model: BrowseModel, s: UiState, cols: number, rows: number, ovLines: string[] = overviewText(model)): Line[] {
  const { W, C, listH } = dims(cols, rows)
  const { screen, focus, hex, help, prompt, message, ovScroll, blk, handles, detailScroll } = s
  const blockRows = model.blockRows()
  const header: Line = [{ text: ' sstkit browse ', bold: true, inverse: true }, { text: ' ' }]
  for (const sc of SCREENS) {
    const active = sc.id === screen || (sc.id === 'blocks' && screen === 'handles')
    header.push({ text: ` ${sc.label} `, inverse: active, bold: active }, { text: ' ' })
  }
  header.push({ text: ` ${model.file}`, dim: true })

  let content: Line[]
  if (help) content = HELP_LINES.map((l) => [{ text: l }])
  else if (screen === 'overview') content = overviewLines(model, ovLines, ovScroll, W, C)
  else if (screen === 'blocks') content = blocksLines(model, blockRows, resolveBlk(blockRows, blk), W, C)
  else if (screen === 'handles' && handles) content = handlesLines(model, handles, hex, W, C)
  else {
    const first = s.ent.pos ? null : model.first()
    const view = s.ent.pos ? s.ent : { pos: first, top: first }
    content = entriesLines(model, view.pos, view.top ?? view.pos, focus, hex, detailScroll, W, C, listH)
  }
  content = content.slice(0, C)
  while (content.length < C) content.push([{ text: '' }])

  const status: Line =
    prompt !== null
      ? [{ text: 'Seek to key (text, or 0x… for hex), Enter to jump, Esc to cancel: ', bold: true }, { text: prompt }, { text: '█' }]
      : message
        ? [{ text: message.text, color: message.error ? 'red' : 'yellow' }]
        : statusLine(model, screen, focus, hex)
  return [header, ...content, status].map((l) => clipLine(l, W))
}

/** Cut a line's segments to `width` characters. */
export function clipLine(line: Line, width: number): Line {
  const out: Seg[] = []
  let left = width
  for (const seg of line) {
    if (left <= 0) break
    if (seg.text.length === 0) continue
    const text = seg.text.length > left ? clip(seg.text, left) : seg.text
    left -= text.length
    out.push({ ...seg, text })
  }
  return out
}

const SGR_COLORS: Record<string, number> = { black: 30, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, white: 37, gray: 90, grey: 90 }

/** A frame as ANSI text (to paint the first screen before ink has loaded). */
export function frameAnsi(lines: Line[]): string {
  return lines
    .map((line) =>
      line
        .map((seg) => {
          const codes: number[] = []
          if (seg.bold) codes.push(1)
          if (seg.dim) codes.push(2)
          if (seg.inverse) codes.push(7)
          if (seg.color && SGR_COLORS[seg.color]) codes.push(SGR_COLORS[seg.color])
          return codes.length ? `\x1b[${codes.join(';')}m${seg.text}\x1b[0m` : seg.text
        })
        .join(''),
    )
    .join('\r\n')
}

/** Plain text of a frame (tests, captures). */
export function frameText(lines: Line[]): string {
  return lines.map((l) => l.map((s) => s.text).join('')).join('\n')
}

/** The Blocks cursor on the same block as before, though rows were added in front of it meanwhile. */
export function resolveBlk(rows: BlockRow[], blk: UiState['blk']): { cursor: number; top: number } {
  if (blk.offset === null || rows[blk.cursor]?.block.offset === blk.offset) return blk
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (rows[mid].block.offset < blk.offset) lo = mid + 1
    else hi = mid
  }
  const cursor = Math.min(lo, Math.max(0, rows.length - 1))
  return { cursor, top: blk.top + (cursor - blk.cursor) }
}

export function cmpPos(a: EntryPos, b: EntryPos): number {
  return a.block - b.block || a.entry - b.entry
}

/** Top row that keeps `cursor` visible in a list of `height` rows. */
export function follow(cursor: number, top: number, height: number): number {
  if (cursor < top) return cursor
  if (cursor >= top + height) return cursor - height + 1
  return top
}

export function statusLine(model: BrowseModel, screen: Screen, focus: Focus, hex: boolean): Line {
  const p = model.progress()
  const keys =
    screen === 'blocks'
      ? 'Enter open  n next problem'
      : screen === 'entries'
        ? focus === 'detail'
          ? '↑↓ scroll  Esc list'
          : 'Enter value'
        : screen === 'handles'
          ? 'Enter open  Esc back'
          : '↑↓ scroll'
  const bg = !p.indexDone
    ? `reading index: ${p.dataBlocksKnown} blocks…`
    : !p.sweepDone
      ? `checking ${p.sweepChecked}/${p.dataBlocksKnown} blocks…`
      : `${p.dataBlocksKnown} data blocks`
  const parts: Seg[] = []
  if (p.problems > 0) parts.push({ text: `${p.problems} problem${p.problems === 1 ? '' : 's'}  `, color: 'red', bold: true })
  parts.push({ text: `${bg} │ `, dim: true }, { text: `Tab pane  ${keys}  / seek  x ${hex ? 'text' : 'hex'}  ? help  q quit`, dim: true })
  return parts
}

/** Each part of the byte bar has its own glyph as well as its colour, so it reads without colour too. */
const BAR_GLYPH: Record<ByteSplit['parts'][number]['name'], string> = { data: '█', index: '▓', filter: '▒', meta: '░', gap: '·' }

export function overviewLines(model: BrowseModel, props: string[], scroll: number, W: number, C: number): Line[] {
  const split = model.byteSplit()
  const barW = Math.max(10, W - 10)
  const bar: Line = [{ text: 'Bytes     ', bold: true }]
  for (const s of barSegments(split, barW)) bar.push({ text: BAR_GLYPH[s.name].repeat(s.cells), color: kindColor(s.name) })
  const leg: Line = [{ text: '          ' }]
  for (const l of legend(split)) leg.push({ text: `${BAR_GLYPH[l.name]} `, color: kindColor(l.name) }, { text: `${l.text}  ` })
  const t = model.table
  const lines: Line[] = [
    [{ text: 'File      ', bold: true }, { text: `${model.file}  ` }, { text: `${formatBytes(t.fileSize)} (${t.fileSize} bytes)`, dim: true }],
    bar,
    leg,
    [{ text: `          ${split.source === 'layout' ? 'measured from the blocks' : 'from the table properties (measuring the blocks…)'}`, dim: true }],
  ]
  if (model.filterProblem) lines.push([{ text: `filter: ${model.filterProblem}`, color: 'red' }])
  const room = C - lines.length - 1
  const shown = props.slice(scroll, scroll + room)
  for (const l of shown) {
    const heading = /^\S/.test(l)
    lines.push([{ text: clip(l, W), bold: heading, color: heading ? 'cyan' : undefined }])
  }
  const more = props.length - scroll - shown.length
  lines.push([{ text: more > 0 ? `  ↓ ${more} more lines (j/k, PgDn)` : scroll > 0 ? '  (end)' : '', dim: true }])
  return lines
}

export const BLOCK_COLS = { mark: 2, ord: 7, kind: 17, offset: 12, size: 10, comp: 13, ratio: 7, sum: 10 }

export function blocksLines(model: BrowseModel, rows: BlockRow[], blk: { cursor: number; top: number }, W: number, C: number): Line[] {
  const c = BLOCK_COLS
  const rest = Math.max(8, W - (c.mark + c.ord + c.kind + c.offset + c.size + c.comp + c.ratio + c.sum))
  const head =
    ' '.repeat(c.mark) +
    cell('#', c.ord - 1, 'right') +
    ' ' +
    cell('kind', c.kind) +
    cell('offset', c.offset - 1, 'right') +
    ' ' +
    cell('on disk', c.size - 1, 'right') +
    ' ' +
    cell('compression', c.comp) +
    cell('ratio', c.ratio - 1, 'right') +
    ' ' +
    cell('checksum', c.sum) +
    cell('name / problem', rest)
  const lines: Line[] = [[{ text: head, bold: true }]]
  const listH = blocksListHeight(C)
  if (rows.length === 0) {
    lines.push([{ text: model.indexError ? `index unreadable: ${model.indexError}` : 'reading the index…', color: model.indexError ? 'red' : undefined }])
    return lines
  }
  const cursor = Math.min(blk.cursor, rows.length - 1)
  const top = follow(cursor, Math.min(blk.top, Math.max(0, rows.length - 1)), listH)
  let selected: BlockRow | undefined
  for (let i = top; i < Math.min(rows.length, top + listH); i++) {
    const r = model.describe(rows[i])
    const b = r.block
    if (i === cursor) selected = r
    const ratio = b.uncompressedSize && b.sizeOnDisk > 0 && b.kind !== 'gap' ? (b.uncompressedSize / b.sizeOnDisk).toFixed(2) : ''
    const sum = b.kind === 'gap' ? '' : b.checksum === 'mismatch' ? 'MISMATCH' : b.checksum
    const text =
      (i === cursor ? '› ' : '  ') +
      cell(r.ordinal !== undefined ? String(r.ordinal) : '', c.ord - 1, 'right') +
      ' ' +
      cell(b.kind, c.kind) +
      cell(String(b.offset), c.offset - 1, 'right') +
      ' ' +
      cell(String(b.sizeOnDisk), c.size - 1, 'right') +
      ' ' +
      cell(b.compression ?? (r.described ? '' : '…'), c.comp) +
      cell(ratio, c.ratio - 1, 'right') +
      ' ' +
      cell(sum, c.sum) +
      cell(b.problem ? `✗ ${b.problem}` : b.name, rest)
    lines.push([{ text, color: b.problem ? 'red' : kindColor(b.kind), inverse: i === cursor, bold: b.problem !== undefined }])
  }
  while (lines.length < 1 + listH) lines.push([{ text: '' }])
  // Two lines about the selected block: what Enter does, or the whole reason it is bad.
  const p = model.progress()
  const count = `${cursor + 1}/${rows.length}${p.indexDone ? '' : '+'} blocks`
  if (selected?.block.problem) {
    const text = wrap(`${count}  ✗ ${selected.block.problem}`, W)
    lines.push(...text.slice(0, 2).map((t) => [{ text: t, color: 'red' }]))
  } else if (selected) {
    const b = selected.block
    const what =
      selected.ordinal !== undefined
        ? `data block #${selected.ordinal}: Enter shows its entries`
        : b.kind === 'index' || b.kind === 'index partition'
          ? `${b.kind}: Enter shows its handles`
          : `${b.kind}${b.name ? ` ${b.name}` : ''}`
    lines.push([{ text: `${count}  ${what}`, dim: true }])
    const sum = b.storedChecksum !== null ? `, stored checksum 0x${(b.storedChecksum >>> 0).toString(16).padStart(8, '0')} ${b.checksum}` : ''
    lines.push([
      {
        text: `${formatBytes(b.sizeOnDisk)} on disk at offset ${b.offset}${b.uncompressedSize ? `, ${formatBytes(b.uncompressedSize)} uncompressed` : ''}${sum}`,
        dim: true,
      },
    ])
  }
  return lines
}

/** Rows of the Blocks list: the screen minus its header line and two lines about the selection. */
export function blocksListHeight(C: number): number {
  return Math.max(1, C - 3)
}

export function handlesLines(model: BrowseModel, v: HandlesView, hex: boolean, W: number, C: number): Line[] {
  const lines: Line[] = [[{ text: v.title, bold: true, color: 'cyan' }]]
  const keyW = Math.max(10, W - 2 - 7 - 12 - 10 - 16)
  lines.push([
    {
      text:
        '  ' + cell('#', 6, 'right') + ' ' + cell('separator key', keyW) + cell('offset', 11, 'right') + ' ' + cell('size', 9, 'right') + ' ' + cell('→', 16),
      bold: true,
    },
  ])
  const listH = C - 3
  const top = follow(v.cursor, v.top, listH)
  for (let i = top; i < Math.min(v.rows.length, top + listH); i++) {
    const h = v.rows[i]
    const text =
      (i === v.cursor ? '› ' : '  ') +
      cell(String(i), 6, 'right') +
      ' ' +
      cell(bytesText(h.key, hex), keyW) +
      cell(String(h.handle.offset), 11, 'right') +
      ' ' +
      cell(String(h.handle.size), 9, 'right') +
      ' ' +
      cell(h.target === 'data' ? `data #${model.ordinalOfOffset(h.handle.offset) ?? '?'}` : 'index partition', 16)
    lines.push([{ text, inverse: i === v.cursor, color: h.target === 'data' ? 'green' : 'cyan' }])
  }
  while (lines.length < C - 1) lines.push([{ text: '' }])
  const sel = v.rows[v.cursor]
  lines.push([{ text: sel ? `${v.cursor + 1}/${v.rows.length}  Enter opens the ${h2(sel)}; separator ${bytesText(sel.key, hex)}` : 'no handles', dim: true }])
  return lines
}

export function h2(h: IndexHandleRow): string {
  return h.target === 'data' ? `data block at ${h.handle.offset}` : `index partition at ${h.handle.offset}`
}

export function entriesLines(
  model: BrowseModel,
  pos: EntryPos | null,
  top: EntryPos | null,
  focus: Focus,
  hex: boolean,
  detailScroll: number,
  W: number,
  C: number,
  listH: number,
): Line[] {
  const seqW = 12
  const typeW = 24
  const blkW = 8
  const keyW = Math.max(10, W - 2 - blkW - seqW - typeW - 2)
  const lines: Line[] = [
    [
      {
        text:
          '  ' +
          cell('block', blkW - 1, 'right') +
          ' ' +
          cell(hex ? 'key (hex)' : 'key', keyW) +
          ' ' +
          cell('seq', seqW - 1, 'right') +
          '  ' +
          cell('type', typeW),
        bold: true,
        dim: focus === 'detail',
      },
    ],
  ]
  if (!pos || !top) {
    const p = model.progress()
    lines.push([
      model.indexError
        ? { text: `index unreadable: ${model.indexError}`, color: 'red' }
        : { text: p.indexDone ? 'the file has no entries' : 'reading the index…' },
    ])
    return lines
  }
  let rows = model.window(top, listH - 1)
  const current = rows.find((r) => cmpPos(r.pos, pos) === 0)?.row
  const body = valuePaneBody(model, pos, current, hex, W)
  // A value shorter than its pane gives the rows it does not need to the list (below the
  // ones navigation pages through), instead of blank lines under the value.
  const spare = C - listH - 1 - body.length
  if (spare > 0) rows = model.window(top, listH - 1 + spare)
  for (const { pos: p, row } of rows) {
    const sel = cmpPos(p, pos) === 0
    const mark = sel ? (focus === 'list' ? '› ' : '· ') : '  '
    if ('problem' in row) {
      const ref = model.refs[p.block]
      lines.push([
        {
          text: `${mark}${cell(`#${p.block}`, blkW - 1, 'right')} ✗ corrupt data block at ${ref.handle.offset} (${ref.handle.size} bytes): ${row.problem}`,
          color: 'red',
          bold: true,
          inverse: sel,
        },
      ])
      continue
    }
    const text =
      mark +
      cell(`#${p.block}`, blkW - 1, 'right') +
      ' ' +
      cell(bytesText(row.userKey, hex), keyW) +
      ' ' +
      cell(String(row.seq), seqW - 1, 'right') +
      '  ' +
      cell(typeText(row.type), typeW)
    lines.push([{ text, inverse: sel && focus === 'list', bold: sel }])
  }
  while (lines.length < listH) lines.push([{ text: '' }])

  // Detail pane
  const detailTitle = focus === 'detail' ? '━━ value (↑↓ scroll, Esc back) ' : '── value (Tab or Enter to scroll) '
  lines.push([{ text: detailTitle + '─'.repeat(Math.max(0, W - detailTitle.length)), color: focus === 'detail' ? 'cyan' : undefined, dim: focus !== 'detail' }])
  const room = C - lines.length
  const scroll = Math.min(detailScroll, Math.max(0, body.length - room))
  const visible = body.slice(scroll, scroll + room)
  const hidden = body.length - scroll - visible.length
  if (hidden > 0 && visible.length > 0)
    visible[visible.length - 1] = [{ text: `  ↓ ${hidden + 1} more lines${focus === 'detail' ? '' : ' (Tab to scroll)'}`, dim: true }]
  lines.push(...visible)
  return lines
}

/** The value pane's lines for the selected entry: key, seq and type, block, and the value. */
function valuePaneBody(model: BrowseModel, pos: EntryPos, current: EntryRow | { problem: string } | undefined, hex: boolean, W: number): Line[] {
  const ref = model.refs[pos.block]
  const info = model.dataInfo(pos.block, false)
  const n = model.blockCount
  const where = `data block #${pos.block}${n !== null ? ` of ${n}` : ''} at offset ${ref.handle.offset} (${ref.handle.size} bytes${info.compression ? `, ${info.compression}` : ''})`
  const body: Line[] = []
  if (!current) body.push([{ text: '' }])
  else if ('problem' in current) {
    body.push([{ text: where }], [{ text: 'This block cannot be read; the rest of the file stays browsable.', color: 'red' }])
    for (const l of wrap(current.problem, W - 2)) body.push([{ text: `  ${l}`, color: 'red' }])
  } else {
    const keyText = bytesText(current.userKey, hex)
    const keyLines = wrap(keyText, W - 6)
    body.push([{ text: 'key   ', bold: true }, { text: keyLines[0] ?? '' }, { text: `  (${current.userKey.length} bytes)`, dim: true }])
    for (const l of keyLines.slice(1, 3)) body.push([{ text: `      ${l}` }])
    if (keyLines.length > 3) body.push([{ text: `      … ${keyText.length - 3 * (W - 6)} more characters`, dim: true }])
    body.push([
      { text: 'seq   ', bold: true },
      { text: `${current.seq}  ` },
      { text: 'type ', bold: true },
      { text: `${typeText(current.type)} (${current.type})` },
    ])
    body.push([{ text: 'block ', bold: true }, { text: where }])
    body.push([
      { text: 'value ', bold: true },
      { text: `${current.value.length} bytes, shown as ${hex ? 'hex' : 'text'} (x toggles)`, dim: true },
    ])
    for (const l of valueLines(current, hex, W - 2)) body.push([{ text: `  ${l}` }])
  }
  return body
}

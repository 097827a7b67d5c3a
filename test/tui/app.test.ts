/**
 * The browser's screens and keys, rendered with ink-testing-library on real
 * fixtures: what a person sees after each key.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BAD, fixturePath, ROOT } from '../helpers.js'
import { browse, closeAll, KEY, selectedLine } from './helpers.js'

const SAMPLE = join(ROOT, 'examples/sample.sst')

afterEach(() => closeAll())

describe('Overview', () => {
  it('shows footer facts, grouped properties and where the bytes go', async () => {
    const b = await browse(SAMPLE)
    const s = b.frame()
    expect(s).toContain('1 Overview')
    expect(s).toMatch(/File\s+.*sample\.sst\s+56\.4 KiB \(57785 bytes\)/)
    expect(s).toMatch(/table\s+BlockBasedTable, format_version 5, checksum kCRC32c/)
    expect(s).toMatch(/filter\s+fastLocalBloom, 6 probes/)
    expect(s).toMatch(/^Counts$/m)
    expect(s).toMatch(/rocksdb\.num\.entries\s+900/)
    // the bar and its legend, measured from the blocks once they are known
    expect(s).toMatch(/Bytes\s+█{80,}▓▒{2}░{2}/) // 94 cells: data, index, filter, meta in proportion
    expect(s).toMatch(/█ data 95\.3% 53\.8 KiB\s+▓ index 0\.9% 521 B\s+▒ filter 2\.0% 1\.13 KiB\s+░ meta 1\.8%/)
    expect(s).toContain('measured from the blocks')
    // scrolls to the groups further down
    expect(s).not.toMatch(/^Identity and times$/m)
    await b.press(KEY.pageDown, KEY.pageDown)
    expect(b.frame()).toMatch(/^Identity and times$/m)
  })

  it('paints from the properties before any block is read, then measures', async () => {
    const b = await browse(fixturePath('index-partitioned'), { background: false })
    expect(b.frame()).toContain('from the table properties (measuring the blocks…)')
    expect(b.frame()).toContain('reading index: 0 blocks')
    expect(b.model.refs.length).toBe(0)
    b.model.runAll()
    await b.waitFor('measured from the blocks')
    expect(b.frame()).toContain('40 data blocks')
  })
})

describe('Blocks', () => {
  it('lists every block in file order with kind, offset, size, compression, ratio and checksum', async () => {
    const b = await browse(SAMPLE)
    await b.press(KEY.tab)
    const s = await b.waitFor('compression')
    expect(s).toMatch(/#\s+kind\s+offset\s+on disk\s+compression\s+ratio\s+checksum/)
    expect(selectedLine(s)).toMatch(/^›\s+0 data\s+0\s+1327 ZSTD\s+3\.\d\d ok/)
    expect(s).toMatch(/1 data\s+1327\s+1302 ZSTD/)
    expect(s).toContain('1/48 blocks  data block #0: Enter shows its entries')
    expect(s).toMatch(/1\.30 KiB on disk at offset 0, 3\.99 KiB uncompressed, stored checksum 0x[0-9a-f]{8} ok/)
    // the end of the file: index, filter, properties, metaindex, footer
    await b.press('G')
    const end = b.frame()
    expect(selectedLine(end)).toMatch(/footer\s+57732\s+53/)
    for (const kind of ['index', 'filter', 'properties', 'metaindex']) expect(end).toMatch(new RegExp(`^\\s+${kind}\\s+\\d+`, 'm'))
    await b.press('g', 'j', 'j')
    expect(selectedLine(b.frame())).toMatch(/^›\s+2 data\s+2629/)
    await b.press(KEY.pageDown) // a page is the list's height less one row (23 rows at 30 lines)
    expect(selectedLine(b.frame())).toMatch(/^›\s+25 data/)
    await b.press(KEY.up, 'k')
    expect(selectedLine(b.frame())).toMatch(/^›\s+23 data/)
  })

  it('Enter on a data block opens its entries; Esc comes back to the same block', async () => {
    const b = await browse(SAMPLE)
    await b.press('2', 'j', 'j', KEY.enter)
    const s = await b.waitFor('data block #2 of 43')
    expect(s).toMatch(/block key\s+seq\s+type/)
    const first = b.model.entries(2)
    expect(first.ok).toBe(true)
    if (first.ok) expect(selectedLine(s)).toContain(Buffer.from(first.entries[0].userKey).toString())
    await b.press(KEY.esc)
    const back = await b.waitFor('compression')
    expect(selectedLine(back)).toMatch(/^›\s+2 data\s+2629/)
  })

  it('Enter on the index block lists its handles; on a partitioned index, partition then data block', async () => {
    const b = await browse(fixturePath('index-partitioned'))
    await b.press('2', 'G', 'k', 'k', 'k')
    expect(selectedLine(b.frame())).toMatch(/index\s+10501/)
    await b.press(KEY.enter)
    let s = await b.waitFor('index at offset 10501: 7 handles')
    expect(selectedLine(s)).toMatch(/^›\s+0 key0000005\s+9858\s+71 index partition/)
    await b.press('j', KEY.enter)
    s = await b.waitFor('index partition at offset 9934: 6 handles')
    expect(selectedLine(s)).toMatch(/^›\s+0 key0000006\s+1111\s+204 data #5/)
    await b.press(KEY.enter)
    s = await b.waitFor('data block #5 of 40')
    expect(selectedLine(s)).toMatch(/#5 key00000050\s+51\s+kTypeValue/)
    // back, back, back: partition, top index, blocks
    await b.press(KEY.esc)
    await b.waitFor('index partition at offset 9934')
    await b.press(KEY.backspace)
    await b.waitFor('index at offset 10501: 7 handles')
    await b.press(KEY.esc)
    await b.waitFor('compression')
  })

  it('a non-partitioned index lists one handle per data block', async () => {
    const b = await browse(SAMPLE)
    await b.press('2', 'G', 'k', 'k', 'k') // footer, metaindex, properties, index
    expect(selectedLine(b.frame())).toMatch(/index\s+56222/)
    await b.press(KEY.enter)
    const s = await b.waitFor('index at offset 56222: 43 handles')
    expect(selectedLine(s)).toMatch(/^›\s+0 user:000\d+\s+0\s+1322 data #0/)
  })

  it('shows a corrupt block as corrupt with the reason, and `n` finds it', async () => {
    const b = await browse(join(BAD, 'data-flip-none.sst'))
    await b.press('2')
    const s = await b.waitFor('MISMATCH')
    expect(s).toMatch(/1 data\s+984\s+1007\s+MISMATCH\s+✗ data block checksum/)
    expect(s).toMatch(/1 problem/)
    await b.press('n')
    const sel = b.frame()
    expect(selectedLine(sel)).toMatch(/1 data\s+984/)
    // the full reason under the list
    expect(sel).toMatch(/^2\/13 blocks\s+✗ data block checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}/m)
    expect(sel.replace(/\n/g, '')).toMatch(/computed 0x[0-9a-f]{8} \(kXXH3, block size 1002\) \(at offset 984\)/) // wrapped onto a second line
    // the next block is fine and opens
    await b.press('j', KEY.enter)
    await b.waitFor('data block #2 of 9')
  })
})

describe('Entries', () => {
  it('shows keys across the file with seq and type, and the selected value as text or hex', async () => {
    const b = await browse(SAMPLE)
    await b.press('3')
    let s = await b.waitFor('── value')
    expect(selectedLine(s)).toMatch(/^›\s+#0 user:000006\s+1\s+kTypeValue/)
    expect(s).toContain('key   user:000006  (11 bytes)')
    expect(s).toContain('seq   1  type kTypeValue (1)')
    expect(s).toContain('block data block #0 of 43 at offset 0 (1322 bytes, ZSTD)')
    expect(s).toMatch(/\{"id":6,"name":"frances hopper"/)
    await b.press('x')
    s = b.frame()
    expect(s).toContain('key   0x757365723a303030303036')
    expect(s).toMatch(/00000000 {2}7b 22 69 64 22 3a 36 2c/)
    expect(s).toContain('shown as hex (x toggles)')
    await b.press('x')
    expect(b.frame()).toContain('key   user:000006')
  })

  it('a short value leaves no blank lines under its pane: the list takes the rows it does not need', async () => {
    const b = await browse(SAMPLE, { width: 100, height: 30 })
    await b.press('3')
    const s = await b.waitFor('── value')
    const lines = s.split('\n')
    // the last content line (above the status line) is the value, not padding
    expect(lines[lines.length - 2].trim()).not.toBe('')
    expect(lines.slice(-4, -1).every((l) => l.trim() !== '')).toBe(true)
    // more entries listed than the half screen the list has with a long value
    expect(lines.filter((l) => /#\d+ user:\d{6}/.test(l)).length).toBeGreaterThan(13)
  })

  it('moves across block boundaries, by page, to the last and first entry', async () => {
    const b = await browse(SAMPLE)
    await b.press('3')
    await b.waitFor('── value')
    const n0 = b.model.rowCount(0)
    for (let i = 0; i < n0; i++) await b.press('j')
    expect(selectedLine(b.frame())).toMatch(/^›\s+#1 /)
    expect(b.frame()).toContain('data block #1 of 43')
    await b.press('k')
    expect(selectedLine(b.frame())).toMatch(/^›\s+#0 /)
    await b.press(KEY.pageDown)
    const afterPage = selectedLine(b.frame())
    expect(afterPage).toMatch(/^›\s+#[01] user:/)
    await b.press('G')
    let s = b.frame()
    const it = b.table.iterator()
    let last = ''
    for (it.seekToFirst(); it.valid; it.next()) last = Buffer.from(it.key.subarray(0, it.key.length - 8)).toString()
    expect(selectedLine(s)).toMatch(new RegExp(`^›\\s+#42 ${last}`))
    await b.press('j')
    expect(selectedLine(b.frame())).toMatch(new RegExp(`^›\\s+#42 ${last}`)) // stays on the last entry
    await b.press('g')
    s = b.frame()
    expect(selectedLine(s)).toMatch(/^›\s+#0 user:000006/)
  })

  it('Tab or Enter focuses the value pane, which scrolls a long value; Esc returns to the list', async () => {
    const b = await browse(fixturePath('big-value'))
    await b.press('3')
    let s = await b.waitFor('── value')
    // find an entry with a value longer than the pane
    for (let i = 0; i < 50 && !/↓ \d+ more lines/.test(s); i++) {
      await b.press('j')
      s = b.frame()
    }
    expect(s).toMatch(/↓ \d+ more lines \(Tab to scroll\)/)
    const more = Number(/↓ (\d+) more lines/.exec(s)![1])
    await b.press(KEY.enter)
    s = b.frame()
    expect(s).toContain('━━ value (↑↓ scroll, Esc back)')
    await b.press('j', 'j', 'j')
    const scrolled = Number(/↓ (\d+) more lines/.exec(b.frame())?.[1] ?? '0')
    expect(scrolled).toBe(more - 3)
    await b.press(KEY.esc)
    expect(b.frame()).toContain('── value (Tab or Enter to scroll)')
    // Tab: list → value → overview
    await b.press(KEY.tab)
    expect(b.frame()).toContain('━━ value')
    await b.press(KEY.tab)
    expect(b.frame()).toContain('File ')
  })

  it('decodes blob indexes and wide-column entities', async () => {
    let b = await browse(fixturePath('v11-fv7-blob'))
    await b.press('3')
    let s = await b.waitFor('kTypeBlobIndex (17)')
    expect(s).toContain('blob index:')
    expect(s).toMatch(/\[blob ref\] file:13 offset:70 size:32 compression: LZ4/)
    b.close()
    b = await browse(fixturePath('wide-columns'))
    await b.press('3')
    await b.waitFor('── value')
    // each key once the one before is drawn: on a busy machine two quick keys can land before the list does
    await b.press('j')
    await b.waitFor((x) => selectedLine(x).includes('ent0001'))
    await b.press('j')
    s = await b.waitFor((x) => selectedLine(x).includes('ent0002') && x.includes('wide columns:'))
    expect(s).toContain('kTypeWideColumnEntity (22)')
    expect(s).toMatch(/'' = default-2/)
    expect(s).toMatch(/color = blue/)
  })

  it('shows a corrupt data block as one row with the reason, and the rest stays browsable', async () => {
    const b = await browse(join(BAD, 'data-flip-zstd.sst'))
    await b.press('3')
    let s = await b.waitFor('✗ corrupt data block')
    expect(selectedLine(s)).toMatch(/^›\s+#0 ✗ corrupt data block at 0 \(537 bytes\): data block checksum mismatch/)
    expect(s).toContain('This block cannot be read; the rest of the file stays browsable.')
    await b.press('j')
    s = b.frame()
    expect(selectedLine(s)).toMatch(/^›\s+#1 row000020\s+21\s+kTypeValue/)
    expect(s).toContain('data block #1 of 9')
    await b.press('G')
    expect(selectedLine(b.frame())).toMatch(/^›\s+#8 row\d+/)
  })

  it('lists entry types: merges, deletions, single deletions', async () => {
    const b = await browse(fixturePath('entry-types'))
    await b.press('3')
    const s = await b.waitFor('── value')
    expect(s).toMatch(/item0001\s+387\s+kTypeMerge/)
    expect(s).toMatch(/item0003\s+344\s+kTypeDeletion/)
    expect(s).toMatch(/item0005\s+371\s+kTypeSingleDeletion/)
    await b.press('j', 'j', 'j', 'j', 'j', 'j')
    expect(b.frame()).toContain('(a deletion: no value)')
  })
})

describe('Seek', () => {
  it('`/` then a text key jumps to the first entry >= key', async () => {
    const b = await browse(SAMPLE)
    await b.press('/')
    expect(b.frame()).toContain('Seek to key (text, or 0x… for hex)')
    await b.press('u', 's', 'e', 'r', ':', '0', '0', '0', '5')
    expect(b.frame()).toContain('Esc to cancel: user:0005█')
    await b.press(KEY.enter)
    const s = await b.waitFor('seek user:0005')
    expect(selectedLine(s)).toMatch(/^›\s+#2 user:000508\s+57\s+kTypeValue/)
    expect(s).toContain('first entry >= key is user:000508 (data block #2)')
    expect(s).toContain('key   user:000508')
  })

  it('takes 0x hex keys, pasted text, and says when the key is past the end', async () => {
    const b = await browse(SAMPLE)
    await b.press('/', '0x757365723a303030383030', KEY.enter) // user:000800, pasted in one go
    let s = await b.waitFor('seek 0x757365723a303030383030')
    expect(selectedLine(s)).toMatch(/user:0008\d\d/)
    await b.press('/', 'zzz', KEY.enter)
    s = await b.waitFor('no key >= zzz')
    expect(selectedLine(s)).toMatch(/^›\s+#42 /)
    await b.press('/', '0x7', KEY.enter)
    await b.waitFor('not a hex key: 0x7')
    // Esc cancels, Backspace edits
    await b.press('/', 'a', 'b', KEY.backspace)
    expect(b.frame()).toContain('Esc to cancel: a█')
    await b.press(KEY.esc)
    expect(b.frame()).not.toContain('Seek to key')
  })

  it('seeks in a file with a partitioned index and with a corrupt block before the target', async () => {
    let b = await browse(fixturePath('index-partitioned'))
    await b.press('/', 'key00000333', KEY.enter)
    let s = await b.waitFor('seek key00000333')
    expect(selectedLine(s)).toMatch(/key00000333\s+334\s+kTypeValue/)
    b.close()
    b = await browse(join(BAD, 'data-flip-none.sst'))
    await b.press('/', 'row000150', KEY.enter)
    s = await b.waitFor('seek row000150')
    expect(selectedLine(s)).toMatch(/row000150/)
    await b.press('/', 'row000025', KEY.enter) // inside the damaged block
    s = await b.waitFor('seek failed')
    expect(s).toMatch(/seek failed: data block checksum mismatch/)
  })
})

describe('keys and terminal', () => {
  it('the help says what closes it and what quits, and does so: q quits from the help too', async () => {
    const b = await browse(SAMPLE)
    await b.press('?')
    expect(b.frame()).toContain('this help (any key but q closes it; q quits)')
    await b.press('q')
    const last = await b.settle()
    await b.press('2')
    expect(await b.settle()).toBe(last)
  })

  it('h and ? show the help; any key but q closes it; q quits', async () => {
    const b = await browse(SAMPLE)
    await b.press('?')
    let s = b.frame()
    expect(s).toMatch(/^Keys$/m)
    expect(s).toContain('seek: type a key (text, or 0x… for hex)')
    await b.press('j')
    expect(b.frame()).not.toMatch(/^Keys$/m)
    await b.press('h')
    expect(b.frame()).toMatch(/^Keys$/m)
    await b.press(KEY.esc)
    s = b.frame()
    expect(s).toContain('rocksdb.num.entries')
    await b.press('q')
    // after q the app has unmounted: further keys change nothing
    const last = await b.settle()
    await b.press('2')
    expect(await b.settle()).toBe(last)
  })

  it('follows the terminal size: narrower screens cut keys and values with an ellipsis', async () => {
    const b = await browse(fixturePath('long-prefix'))
    await b.press('3')
    let s = await b.waitFor('── value')
    const wide = s.split('\n')
    expect(Math.max(...wide.map((l) => l.length))).toBeLessThanOrEqual(100)
    b.rerender({ width: 60, height: 20 })
    s = await b.waitFor((f) => f.split('\n').length <= 19)
    const lines = s.split('\n')
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60)
    expect(selectedLine(s)).toContain('…') // the long key is cut
    expect(lines.length).toBe(19)
    b.rerender({ width: 140, height: 40 })
    s = await b.waitFor((f) => f.split('\n').length === 39)
    expect(Math.max(...s.split('\n').map((l) => l.length))).toBeGreaterThan(100)
  })
})

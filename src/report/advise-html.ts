/**
 * The `advise` report as one self-contained HTML page: inline CSS, charts as
 * inline SVG rendered by Apache ECharts' server-side renderer (advise-chart.ts),
 * no scripts, and a Content-Security-Policy that forbids every request.
 *
 * Per column family and level: a size-against-CPU chart of every evaluated
 * setting (x = compression CPU, log scale; y = change against today's bytes,
 * with the 95% intervals as error bars), today's and the recommended setting
 * marked and labelled, the Pareto front as a line; then the tables.
 */
import { blobSummaryLine } from './advise-blob.js'
import { costSentence, costTable, renderCostChart, COST_LEGEND, anyReferenceSpeeds, checkLines } from './advise-cost.js'
import { blockSizeHtml } from './advise-block-size.js'
import { noteText } from './advise-notes.js'
import { escapeHtml, renderedLevelChart } from './advise-chart.js'
import type { Advice, LevelAdvice, SettingEstimate } from '../types/advice.js'
import {
  blobLines,
  escapeName,
  estimateFigures,
  formatChange,
  NOT_SAMPLED_CELL,
  notSampled,
  samplingLine,
  formatCpu,
  formatProjected,
  formatSize,
  formatSpeed,
  leftOutLines,
  levelDbLines,
  levelLabel,
  maxBytesVerdict,
  NOISY_MARK,
  optionsCode,
  optionsDiffer,
  optionsFootnotes,
  releaseLine,
  printable,
  versionLine,
  sharePercent,
  stopText,
  todayBytes,
  todayLabel,
  unreadableRows,
} from './advise.js'

export { CHART_COLORS, CHART_HEIGHT, CHART_WIDTH, escapeHtml, SERIES } from './advise-chart.js'

// ---------------------------------------------------------------------------
// Tables

interface HtmlColumn {
  header: string
  numeric?: boolean
}

/** Cells are HTML already escaped by the caller (see `text`). */
function htmlTable(columns: HtmlColumn[], rows: string[][], rowClasses: string[] = []): string {
  const cls = (c: HtmlColumn) => (c.numeric ? ' class="num"' : '')
  const head = columns.map((c) => `<th${cls(c)}>${escapeHtml(c.header)}</th>`).join('')
  const body = rows
    .map((r, i) => `<tr${rowClasses[i] ? ` class="${rowClasses[i]}"` : ''}>${r.map((c, j) => `<td${cls(columns[j])}>${c}</td>`).join('')}</tr>`)
    .join('\n')
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`
}

const text = (s: string | number) => escapeHtml(String(s))
/** A column family's name, its control bytes escaped (report/text.ts escapeName). */
const cfName = (name: string) => text(escapeName(name))

function databaseTable(advice: Advice): string {
  const rows = advice.columnFamilies.flatMap((cf) =>
    cf.levels.map((l) => [
      `<code>${cfName(cf.name)}</code>`,
      text(levelLabel(l)),
      text(l.files),
      text(formatSize(l.fileBytes)),
      text(formatSize(l.dataBytes)),
      text(l.entries ?? 'unknown'),
      text(l.todayCompression),
      l.todayOptions ? text(l.todayOptions.label) + (optionsDiffer(l) ? ' <span class="warn">(differs)</span>' : '') : '',
      text(l.todayRatio.toFixed(2)),
    ]),
  )
  rows.push(
    ...unreadableRows(advice, (n, first) => (first ? `<code>${cfName(n)}</code>` : ''), 9, 6).map((r) => r.map((c) => (typeof c === 'number' ? text(c) : c))),
  )
  for (const name of advice.source.emptyColumnFamilies ?? []) rows.push([`<code>${cfName(name)}</code>`, 'empty', '0', '', '', '', '', '', ''])
  return htmlTable(
    [
      { header: 'Column family' },
      { header: 'Level' },
      { header: 'Files', numeric: true },
      { header: 'Size', numeric: true },
      { header: 'Data blocks', numeric: true },
      { header: 'Entries', numeric: true },
      { header: 'Compression (files)' },
      { header: 'OPTIONS' },
      { header: 'Ratio', numeric: true },
    ],
    rows,
  )
}

function estimateCells(e: SettingEstimate, l?: LevelAdvice): string[] {
  return estimateFigures(e, false, l).map(text)
}

function recommendationTable(l: LevelAdvice): string {
  const rows = [
    [
      'today',
      text(todayLabel(l)),
      text(formatSize(todayBytes(l))),
      '',
      text(formatCpu(l.today?.compressSecPerGB)),
      text(formatSpeed(l.today?.decompressMBps)),
      '',
    ],
  ]
  const classes = ['today']
  rows.push([
    'recommended',
    `<strong>${text(l.recommended.estimate.setting.label)}</strong>`,
    ...estimateCells(l.recommended.estimate, l),
    text(l.recommended.reason),
  ])
  classes.push('recommended')
  if (l.runnerUp) {
    rows.push(['runner-up', text(l.runnerUp.estimate.setting.label), ...estimateCells(l.runnerUp.estimate), text(l.runnerUp.reason)])
    classes.push('runner-up')
  }
  return htmlTable(
    [
      { header: '' },
      { header: 'Setting' },
      { header: 'Projected', numeric: true },
      { header: 'Change vs today (95%)', numeric: true },
      { header: 'CPU s/GB', numeric: true },
      { header: 'Decompress MB/s', numeric: true },
      { header: 'Why' },
    ],
    rows,
    classes,
  )
}

function matrixTable(l: LevelAdvice): string {
  const rec = l.recommended.estimate.setting.label
  const rows = l.matrix.map((e) => [
    text(e.setting.label),
    ...estimateCells(e).slice(0, 2),
    text(e.ratio.toFixed(2)),
    ...estimateCells(e).slice(2),
    text(sharePercent(e.rejectedShare)),
    text(formatSize(e.dictBytes)),
    [e.setting.label === rec ? 'recommended' : '', e.pareto ? 'Pareto' : ''].filter(Boolean).join(', '),
  ])
  return htmlTable(
    [
      { header: 'Setting' },
      { header: 'Projected', numeric: true },
      { header: 'Change vs today (95%)', numeric: true },
      { header: 'Ratio', numeric: true },
      { header: 'CPU s/GB', numeric: true },
      { header: 'Decompress MB/s', numeric: true },
      { header: 'Rejected', numeric: true },
      { header: 'Dictionaries', numeric: true },
      { header: 'Marks' },
    ],
    rows,
    l.matrix.map((e) => (e.setting.label === rec ? 'recommended' : e.pareto ? 'pareto' : '')),
  )
}

function samplingTable(advice: Advice): string {
  const rows = advice.columnFamilies.flatMap((cf) =>
    cf.levels.map((l) => [
      `<code>${cfName(cf.name)}</code>`,
      text(levelLabel(l)),
      text(`${l.sample.blocks} of ${l.dataBlocks}`),
      text(formatSize(l.sample.uncompressedBytes)),
      text(sharePercent(l.sample.share)),
      text(stopText(l)),
    ]),
  )
  return htmlTable(
    [
      { header: 'Column family' },
      { header: 'Level' },
      { header: 'Blocks sampled', numeric: true },
      { header: 'Sampled', numeric: true },
      { header: 'Share', numeric: true },
      { header: 'Stopped' },
    ],
    rows,
  )
}

// ---------------------------------------------------------------------------
// The page

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; background: #f6f7f9; margin: 0; }
header, main, footer { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 28px 0 10px; border-bottom: 1px solid #d5d9e0; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dl.facts dt { color: #5b6475; }
dl.facts dd { margin: 0; }
table { border-collapse: collapse; background: #fff; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #dfe3ea; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f6; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr.recommended td { background: #fdf0f3; }
tr.today td { background: #fdf6ee; }
tr.pareto td:first-child { color: #255e3b; }
.level { background: #fff; border: 1px solid #dfe3ea; border-radius: 6px; padding: 4px 16px 8px; margin: 14px 0; }
figure.chart { margin: 6px 0; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #5b6475; font-size: 12px; }
.warn { color: #a0521b; }
pre { background: #fff; border: 1px solid #dfe3ea; padding: 10px 12px; overflow-x: auto; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
ul.notes li { margin: 2px 0; }
footer { color: #5b6475; font-size: 12px; padding-bottom: 24px; }
`

function levelSection(l: LevelAdvice, cfIndex: number, levelIndex: number): string {
  const id = `cf${cfIndex}-l${levelIndex}`
  const noisy = l.matrix.filter((e) => e.compressSecPerGB.noisy || e.decompressMBps.noisy).map((e) => e.setting.label)
  if (notSampled(l))
    return [
      `<article class="level" id="${id}" data-level="${text(levelLabel(l))}" data-settings="0" data-pareto="0" data-sampled="false">`,
      `<h3>${text(levelLabel(l))}: ${text(l.files)} files, ${text(formatSize(l.fileBytes))}, ${text(l.todayCompression)} today</h3>`,
      `<p class="warn">${text(NOT_SAMPLED_CELL)}: ${text(l.recommended.reason)}</p>`,
      recommendationTable(l),
      '</article>',
    ].join('\n')
  const chart = renderedLevelChart(l, id)
  const caption = [
    `${l.matrix.length} settings; x: compression CPU (settings without compression at the left edge); y: projected size against today's ${formatSize(todayBytes(l))}; bars: 95% intervals.`,
    ' Labelled: the recommendation, today and the Pareto front',
    chart.unlabelled.length > 0 ? ` (but ${chart.unlabelled.map(escapeHtml).join(', ')}: no room)` : '',
    '; every point names its setting on hover.',
    noisy.length > 0 ? ` Noisy timing (${noisy.map(escapeHtml).join(', ')}; a dashed CPU bar where compression's was): shown but not ranked on.` : '',
  ].join('')
  return [
    `<article class="level" id="${id}" data-level="${text(levelLabel(l))}" data-settings="${l.matrix.length}" data-pareto="${l.matrix.filter((e) => e.pareto).length}">`,
    `<h3>${text(levelLabel(l))}: ${text(l.files)} files, ${text(formatSize(l.fileBytes))}, ${text(l.todayCompression)} today</h3>`,
    `<figure class="chart">\n${chart.svg}\n<figcaption>${caption}</figcaption>\n</figure>`,
    recommendationTable(l),
    ...costHtml(l),
    l.autoSkip ? `<p class="warn">${text(l.autoSkip.note)}</p>` : '',
    `<details><summary>Every evaluated setting (${l.matrix.length})</summary>\n${matrixTable(l)}\n</details>`,
    '</article>',
  ]
    .filter(Boolean)
    .join('\n')
}

/** A level's cost at the measured write rate: its sentence, the flush and compaction CPU checks and every setting's cost. */
function costHtml(l: LevelAdvice): string[] {
  const sentence = costSentence(l)
  if (!sentence) return []
  const table = costTable(l)
  return [
    `<p class="cost">${text(sentence)}</p>`,
    ...checkLines(l).map((check) => `<p class="cost-check">${text(check)}</p>`),
    table
      ? `<details><summary>Every evaluated setting at the measured rate</summary>\n${htmlTable(
          table.columns,
          table.rows.map((r) => r.map((c) => text(c))),
        )}\n</details>`
      : '',
  ]
}

/** The workload section: what the info LOG measured, and where compression CPU goes (a chart). */
function workloadSection(advice: Advice): string {
  const w = advice.workload
  if (!w) return ''
  const chart = renderCostChart(advice)
  return [
    '<section id="workload">',
    '<h2>Workload</h2>',
    `<p>${text(noteText(w.note))}</p>`,
    w.measured ? `<p>${text(noteText(w.readsNote))}</p>` : '',
    chart
      ? `<figure class="chart">\n${chart}\n<figcaption>Compression cores per level at the write rate the info LOG measured: today's setting and the recommendation (bars); bytes written per day today (line).${anyReferenceSpeeds(advice) ? ` ${text(COST_LEGEND)}.` : ''}</figcaption>\n</figure>`
      : '',
    '</section>',
  ]
    .filter(Boolean)
    .join('\n')
}

function facts(advice: Advice): string {
  const s = advice.source
  const o = advice.objective
  const t = advice.total
  const limits = Object.entries(o.limits).map(([k, v]) => `${k}=${v}`)
  const rows: [string, string][] = [
    [
      'Source',
      `${s.paths.map((p) => `<code>${text(p)}</code>`).join(', ')} (${text(s.kind === 'database' ? [s.manifest, s.optionsFile ?? 'no OPTIONS file'].filter(Boolean).join(', ') : 'SST files, levels unknown')})`,
    ],
    ...(versionLine(advice) ? ([['Version', text(versionLine(advice) as string)]] as [string, string][]) : []),
    ['Objective', `${text(o.name)}: ${text(o.description)}${limits.length > 0 ? ` (${text(limits.join(', '))})` : ''}`],
    ['Sampling', text(samplingLine(advice))],
    ['Total', text(`${formatSize(t.todayBytes)} → ${formatProjected(t.projected)}, ${formatChange(t.change)}`)],
  ]
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`
}

function notesList(advice: Advice): string {
  const notes: string[] = []
  for (const cf of advice.columnFamilies) for (const l of cf.levels) if (l.autoSkip) notes.push(`${escapeName(cf.name)} ${levelLabel(l)}: ${l.autoSkip.note}`)
  const unlisted = advice.source.unlistedFiles
  if (unlisted.length > 0) notes.push(`${unlisted.length} SST file(s) on disk that the MANIFEST does not list were left out: ${unlisted.join(', ')}`)
  notes.push(...(advice.blobs ?? []).map((b) => blobSummaryLine(b)), ...blobLines(advice), ...advice.notes.map(noteText))
  if (notes.length === 0) return ''
  return `<ul class="notes">${notes.map((n) => `<li>${text(printable(n))}</li>`).join('')}</ul>`
}

/** A LevelDB database's one option. */
function levelDbSection(advice: Advice): string {
  if (advice.source.engine !== 'leveldb') return ''
  return `<section id="leveldb">\n<h2>LevelDB option to set</h2>\n${levelDbLines(advice)
    .map((l) => `<p>${text(l)}</p>`)
    .join('\n')}\n</section>\n`
}

/** The files left out of the run, named in the page itself. */
function leftOutSection(advice: Advice): string {
  const lines = leftOutLines(advice)
  if (lines.length === 0) return ''
  return `<section id="left-out">\n<h2>Left out (${lines.length} file${lines.length === 1 ? '' : 's'}: not in the advice)</h2>\n<ul class="notes">${lines.map((n) => `<li>${text(n)}</li>`).join('')}</ul>\n</section>\n`
}

/** The whole report as one HTML page that needs nothing from the network. */
export function renderAdviceHtml(advice: Advice): string {
  const title = `sstkit advise: ${advice.source.paths.join(', ')}`
  const cfs = advice.columnFamilies.map((cf, i) =>
    [
      `<section class="cf" id="cf${i}" data-name="${cfName(cf.name)}">`,
      `<h2>Column family <code>${cfName(cf.name)}</code></h2>`,
      ...cf.levels.map((l, j) => levelSection(l, i, j)),
      ...(cf.blockSize ? [blockSizeHtml(cf.blockSize)] : []),
      '</section>',
    ].join('\n'),
  )
  const release = releaseLine(advice)
  const options =
    (release ? `<p>${text(release)}</p>\n` : '') +
    advice.columnFamilies
      .map((cf) => {
        const { code } = optionsCode(cf)
        const notes = optionsFootnotes(advice, cf, (b) => formatSize(b))
        return `<h3><code>${cfName(cf.name)}</code></h3>\n${code.trim() === '' ? '<p>Nothing to change.</p>' : `<pre><code>${text(code)}</code></pre>`}${notes.length ? `\n<ul>${notes.map((n) => `<li>${text(n)}</li>`).join('')}</ul>` : ''}`
      })
      .join('\n')
  const noisyNote = `${NOISY_MARK} before a timing: noisy, its 95% interval is too wide to rank on.`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${text(title)}</h1>
${facts(advice)}
</header>
<main>
<section id="today">
<h2>The database today</h2>
${databaseTable(advice)}
</section>
${workloadSection(advice)}
${leftOutSection(advice)}${cfs.join('\n')}
<section id="total">
<h2>Total</h2>
<p>Data blocks of every column family and level: ${text(formatSize(advice.total.todayBytes))} today, ${text(formatProjected(advice.total.projected))} projected, change ${text(formatChange(advice.total.change))}.</p>${advice.total.maxBytes ? `\n<p>--max-bytes ${text(formatSize(advice.total.maxBytes.bytes))}: the projected total ${text(maxBytesVerdict(advice.total.maxBytes))}.</p>` : ''}
</section>
<section id="sampling">
<h2>Sampling</h2>
${samplingTable(advice)}
${notesList(advice)}
<p>${text(noisyNote)}</p>
</section>
${levelDbSection(advice)}<section id="options">
<h2>${advice.source.engine === 'leveldb' ? 'RocksDB options, for a migration to RocksDB (a separate suggestion)' : 'RocksDB options to set'}</h2>
${options}
</section>
</main>
<footer>Generated by sstkit advise. Charts rendered by Apache ECharts as inline SVG; the page loads nothing.</footer>
</body>
</html>
`
}

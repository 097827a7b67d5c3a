/** The `advise` report as GitHub-flavoured Markdown for a pull-request comment (deterministic for the same advice). */
import { blobCandidatesModel, blobSummaryLine } from './advise-blob.js'
import { BLOCK_SIZE_LEGEND, blockSizeModel, blockSizeSummaryLine } from './advise-block-size.js'
import { noteText } from './advise-notes.js'
import { anyReferenceSpeeds, COST_LEGEND, costLines, costTable } from './advise-cost.js'
import type { Advice, LevelAdvice, SettingEstimate } from '../types/advice.js'
import { renderTable, type Cell, type TableModel } from './table.js'
import { escapeName, formatBytes, formatSize } from './text.js'
import {
  formatChange,
  formatProjected,
  formatCpu,
  formatSpeed,
  levelLabel,
  todayBytes,
  todayLabel,
  optionsDiffer,
  sourceLine,
  versionLine,
  optionsCode,
  releaseLine,
  optionsFootnotes,
  objectiveLine,
  samplingLine,
  noteLines,
  MIGRATION,
  levelDbLines,
  leftOutLines,
  anyNoisy,
  NOISY_LEGEND,
  recommendationEstimates,
  mdText,
  mdCode,
} from './advise-format.js'
import {
  LEVEL_COLUMNS,
  type NameCell,
  emptyRows,
  unreadableRows,
  levelRows,
  notSampled,
  NOT_SAMPLED_CELL,
  estimateCells,
  matrixModel,
  totalModel,
  maxBytesVerdict,
  samplingModel,
} from './advise.js'

const mdName: NameCell = (cf) => mdCode(escapeName(cf.name))

/** A fence longer than any backtick run inside the text. */
function fence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length))
  return '`'.repeat(Math.max(3, longest + 1))
}

function mdTable(model: TableModel): string {
  return renderTable(model, 'markdown')
}

function mdDatabaseModel(advice: Advice): TableModel {
  const rows = levelRows(advice, mdName, (l) => [
    l.files,
    formatBytes(l.fileBytes),
    formatBytes(l.dataBytes),
    l.entries ?? 'unknown',
    mdText(l.todayCompression),
    l.todayOptions ? mdText(l.todayOptions.label) + (optionsDiffer(l) ? ' (differs)' : '') : '',
    l.todayRatio.toFixed(2),
  ])
  rows.push(...(unreadableRows(advice, (n) => mdName({ name: n }, true), 9, 6) as Cell[][]), ...emptyRows(advice, mdName, 9))
  return {
    columns: [
      ...LEVEL_COLUMNS,
      { header: 'Files', align: 'right' },
      { header: 'Size', align: 'right' },
      { header: 'Data blocks', align: 'right' },
      { header: 'Entries', align: 'right' },
      { header: 'Compression (files)' },
      { header: 'OPTIONS' },
      { header: 'Ratio', align: 'right' },
    ],
    rows,
  }
}

function mdEstimateCells(e: SettingEstimate, l?: LevelAdvice): Cell[] {
  return estimateCells(e, false, l).map((c) => mdText(String(c)))
}

function mdRecommendationModel(levels: LevelAdvice[]): TableModel {
  const rows: Cell[][] = []
  for (const l of levels) {
    const today = l.today
    rows.push([
      levelLabel(l),
      'today',
      mdText(todayLabel(l)),
      formatBytes(todayBytes(l)),
      '',
      mdText(formatCpu(today?.compressSecPerGB)),
      mdText(formatSpeed(today?.decompressMBps)),
      '',
    ])
    const rec = l.recommended
    rows.push(['', '**recommended**', `**${mdText(rec.estimate.setting.label)}**`, ...mdEstimateCells(rec.estimate, l), mdText(rec.reason)])
    if (l.runnerUp) rows.push(['', 'runner-up', mdText(l.runnerUp.estimate.setting.label), ...mdEstimateCells(l.runnerUp.estimate), mdText(l.runnerUp.reason)])
  }
  return {
    columns: [
      { header: 'Level' },
      { header: '' },
      { header: 'Setting' },
      { header: 'Projected', align: 'right' },
      { header: 'Change vs today (95%)', align: 'right' },
      { header: 'CPU s/GB', align: 'right' },
      { header: 'Decompress MB/s', align: 'right' },
      { header: 'Why' },
    ],
    rows,
  }
}

/** The text matrix with one-line headers and every cell escaped. */
function mdMatrixModel(l: LevelAdvice): TableModel {
  const m = matrixModel(l, { width: Infinity, color: false, exact: false })
  return {
    columns: m.columns.map((c) => ({ ...c, header: c.header.replace('\n', ' ') || 'Marks' })),
    rows: m.rows.map((r) => r.map((c) => mdText(String(c)))),
  }
}

/** The advice as GitHub-flavoured Markdown (deterministic for the same advice). */
export function renderAdviceMarkdown(advice: Advice): string {
  const out: string[] = []
  out.push(`## sstkit advise: ${advice.source.paths.map(mdCode).join(', ')}`, '')
  out.push(`- **Source:** ${mdText(sourceLine(advice))}`)
  const version = versionLine(advice)
  if (version) out.push(`- **Version:** ${mdText(version)}`)
  out.push(`- **Objective:** ${mdText(objectiveLine(advice))}`)
  out.push(`- **Sampling:** ${mdText(samplingLine(advice))}`)
  const t = advice.total
  out.push(`- **Total:** ${formatBytes(t.todayBytes)} → ${formatProjected(t.projected)}, ${formatChange(t.change)}`)
  if (t.maxBytes) out.push(`- **--max-bytes:** ${formatBytes(t.maxBytes.bytes)}: the projected total ${maxBytesVerdict(t.maxBytes)}`)

  out.push('', '### The database today', '', mdTable(mdDatabaseModel(advice)))
  const leftOut = leftOutLines(advice)
  if (leftOut.length > 0)
    out.push('', `### Left out (${leftOut.length} file${leftOut.length === 1 ? '' : 's'}: not in the advice)`, '', ...leftOut.map((n) => `- ${mdText(n)}`))

  out.push('', advice.source.engine === 'leveldb' ? `### Recommendation per level, ${MIGRATION}` : '### Recommendation per level')
  for (const cf of advice.columnFamilies) {
    out.push('', `#### ${mdName(cf, true)}`, '', mdTable(mdRecommendationModel(cf.levels)))
    const lines = costLines(cf.levels)
    if (lines.length > 0) out.push('', ...lines.map((n) => `- ${mdText(n)}`))
  }
  const all = advice.columnFamilies.flatMap((c) => c.levels)
  if (anyNoisy([...all.flatMap(recommendationEstimates), ...all.flatMap((l) => l.matrix)])) out.push('', mdText(NOISY_LEGEND))

  out.push('', '<details><summary>Every evaluated setting (→ recommended, * on the size-against-CPU Pareto front)</summary>')
  for (const cf of advice.columnFamilies) {
    for (const l of cf.levels) {
      if (notSampled(l)) out.push('', `**${mdName(cf, true)} ${levelLabel(l)}**: ${NOT_SAMPLED_CELL}, keeps today's setting`)
      else {
        out.push('', `**${mdName(cf, true)} ${levelLabel(l)}**`, '', mdTable(mdMatrixModel(l)))
        const costs = costTable(l)
        if (costs)
          out.push(
            '',
            mdTable({
              columns: costs.columns.map((c) => ({ header: c.header, align: c.numeric ? 'right' : undefined })),
              rows: costs.rows.map((r) => r.map((c) => mdText(c))),
            }),
          )
      }
    }
  }
  if (anyReferenceSpeeds(advice)) out.push('', mdText(COST_LEGEND))
  out.push('', '</details>')

  out.push('', '### Total', '', mdTable(totalModel(advice, false)))

  out.push('', '### Sampling', '')
  out.push(mdTable(samplingModel(advice, false, mdName)))
  const notes = noteLines(advice)
  if (notes.length > 0) out.push('', ...notes.map((n) => `- ${mdText(n)}`))

  if (advice.blobs?.length) {
    out.push('', '### Blob files (blob_compression_type)')
    for (const b of advice.blobs) {
      out.push('', mdText(blobSummaryLine(b)))
      if (b.candidates.length) out.push('', mdTable(blobCandidatesModel(b)))
    }
  }

  const blockSizes = advice.columnFamilies.flatMap((cf) => (cf.blockSize ? [cf.blockSize] : []))
  if (blockSizes.length) {
    out.push('', '### Block size per column family (block_size)')
    for (const b of blockSizes) {
      const m = blockSizeModel(b)
      out.push('', mdText(blockSizeSummaryLine(b)), '', mdTable({ ...m, rows: m.rows.map((r) => r.map((c) => mdText(String(c)))) }))
      if (b.notes.length) out.push('', ...b.notes.map((n) => `- ${mdText(noteText(n))}`))
    }
    out.push('', mdText(BLOCK_SIZE_LEGEND))
  }

  if (advice.source.engine === 'leveldb') out.push('', '### LevelDB option to set', '', ...levelDbLines(advice).map((l) => `- ${mdText(l)}`))
  out.push('', advice.source.engine === 'leveldb' ? `### RocksDB options, ${MIGRATION}` : '### RocksDB options to set')
  const release = releaseLine(advice)
  if (release) out.push('', mdText(release))
  for (const cf of advice.columnFamilies) {
    const { code: text, diff } = optionsCode(cf)
    out.push('', `#### ${mdName(cf, true)}`, '')
    if (text.trim() === '') out.push('Nothing to change.')
    else out.push(`${fence(text)}${diff ? 'diff' : 'ini'}`, text, fence(text))
    const notes = optionsFootnotes(advice, cf, (b) => formatSize(b, false))
    if (notes.length) out.push('', ...notes.map((n) => `- ${mdText(n)}`))
  }
  return `${out.join('\n')}\n`
}

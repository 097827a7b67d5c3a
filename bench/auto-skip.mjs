#!/usr/bin/env node
// Benchmark (not a test): the auto-skip regime table. Generates four synthetic SSTs with
// `sstkit synth` (16 KiB values, about one value per block) and runs
// `sstkit recompress --auto-skip rate,ratio` (zstd level 3, no dictionary) on each, printing
// compression CPU s/GB and resulting data bytes for baseline / rate / ratio.
//
//   node bench/auto-skip.mjs [--size 64MB] [--level 3] [--json]
//
// Regimes: 1 incompressible; 2 compressible; 3 marginal-payoff mix (50/50, the compressible
// half barely clears the 896/1024 bar); 4 high-payoff mix (50/50, compressible half ~0.3).

import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const RUN_JS = join(resolve(HERE, '..'), 'bin', 'run.cjs')
const args = process.argv.slice(2)
const opt = (n, d) => (args.includes(`--${n}`) ? args[args.indexOf(`--${n}`) + 1] : d)
const size = opt('size', '64MB')
const level = opt('level', '3')
const dir = join(HERE, 'data', 'auto-skip')
mkdirSync(dir, { recursive: true })

const regimes = [
  { name: '1 incompressible', fraction: 0, ratio: 0.3 },
  { name: '2 compressible', fraction: 1, ratio: 0.3 },
  { name: '3 marginal mix', fraction: 0.5, ratio: 0.86 },
  { name: '4 high-payoff mix', fraction: 0.5, ratio: 0.3 },
]

function run(argv) {
  const r = spawnSync(process.execPath, [RUN_JS, ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`sstkit ${argv.join(' ')} failed:\n${r.stderr}`)
  return r.stdout
}

const table = []
for (const g of regimes) {
  const file = join(dir, `${g.name.replace(/\W+/g, '-')}-${size}.sst`)
  run(['synth', '-o', file, '--size', size, '--compressible-fraction', String(g.fraction), '--compressible-ratio', String(g.ratio), '--force'])
  const j = JSON.parse(
    run(['recompress', file, '--levels', level, '--dict', 'none', '--checksum', 'off', '--auto-skip', 'rate,ratio', '--jobs', '1', '--json']),
  )
  const base = j.results.find((r) => r.autoSkip === null)
  for (const r of j.results) {
    const gb = r.uncompressedBytes / 1e9
    table.push({
      regime: g.name,
      strategy: r.autoSkip ?? 'baseline',
      cpuSecondsPerGB: r.compressMs / 1000 / gb,
      cpuVsBaselinePct: (100 * (r.compressMs - base.compressMs)) / base.compressMs,
      dataBytes: r.dataBytes,
      bytesVsBaselinePct: (100 * (r.dataBytes - base.dataBytes)) / base.dataBytes,
      attempted: r.blocksAttempted,
      skipped: r.blocksBypassed,
      blocks: r.blocks,
    })
  }
}

if (args.includes('--json')) console.log(JSON.stringify(table, null, 2))
else {
  console.log(`zstd level ${level}, ${size} of 16 KiB values per regime, max_compressed_bytes_per_kb 896 (bound: 12.5% of skipped bytes)`)
  console.log('| regime | strategy | CPU s/GB | CPU vs baseline | data bytes | bytes vs baseline | attempted / blocks |')
  console.log('|---|---|---:|---:|---:|---:|---:|')
  for (const t of table) {
    const p = (v) => (t.strategy === 'baseline' ? '' : `${v > 0 ? '+' : ''}${v.toFixed(1)}%`)
    console.log(
      `| ${t.regime} | ${t.strategy} | ${t.cpuSecondsPerGB.toFixed(2)} | ${p(t.cpuVsBaselinePct)} | ${t.dataBytes} | ${p(t.bytesVsBaselinePct)} | ${t.attempted} / ${t.blocks} |`,
    )
  }
}

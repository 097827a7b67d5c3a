#!/usr/bin/env node
// Benchmark (not a test): `sstkit recompress FILE` with its default matrix (zstd 1,3,6,9,12,15,19 ×
// none/raw/finalize/train × checksum off/on: 56 settings) on a ~67 MB file of 4 KiB LZ4 blocks
// written by db_bench 7.8.3, this build against another (--compare OTHER_CHECKOUT, e.g. the
// commit before a change), interleaved round by round: wall, CPU, peak RSS (GNU time), and
// whether both give the same sizes for every setting (exactness kept).
//
//   node bench/recompress-default.mjs --compare OTHER_CHECKOUT [--rounds 1] [--keys 620000] [--matrix 'FLAGS']
//
// --matrix runs another matrix than the default on the same file, e.g. --matrix '--types zstd
// --levels 3 --dict none' (zstd 3 with and without the frame checksum).
//
// The file: test/fixtures/compaction-cpu.mjs writes a database (filluniquerandom, seed 42, 200-byte
// values of ratio 0.5, LZ4, 4 KiB blocks) and compacts it into one table file, under bench/data/.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compactedTable, tableFiles, writeDatabase } from '../test/fixtures/compaction-cpu.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const rounds = Number(opt('rounds', '1'))
const keys = Number(opt('keys', '620000'))
const compare = opt('compare')
const matrix = (opt('matrix') ?? '').split(' ').filter(Boolean)
const GNU_TIME = '/usr/bin/time'

const data = join(HERE, 'data')
mkdirSync(data, { recursive: true })
const db = join(data, `recompress-db-${Math.round(keys / 1000)}k`)
if (!existsSync(db)) writeDatabase(db, keys)
const out = `${db}-lz4`
const file = existsSync(out) && tableFiles(out).length === 1 ? tableFiles(out)[0] : compactedTable(db, out)

function run(checkout) {
  // the package's bin: run.cjs, or run.js in a checkout from before it
  const runJs = existsSync(join(checkout, 'bin', 'run.cjs')) ? join(checkout, 'bin', 'run.cjs') : join(checkout, 'bin', 'run.js')
  const t0 = performance.now()
  const r = spawnSync(GNU_TIME, ['-f', '__TIME__ %U %S %M', runJs, 'recompress', file, ...matrix, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 })
  const wall = (performance.now() - t0) / 1000
  if (r.status !== 0) throw new Error(`${runJs} recompress failed: ${(r.stderr || '').trim().split('\n').at(-1)}`)
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr)
  const json = JSON.parse(r.stdout)
  const sizes = new Map(
    json.results.map((x) => [`${x.type} ${x.level} ${x.dict} ${x.checksum}`, `${x.dataBytes}/${x.dictBytes}/${x.indexBytes}/${x.fileBytes}`]),
  )
  return { wall, cpu: Number(m[1]) + Number(m[2]), rssMB: Number(m[3]) / 1024, sizes, settings: json.results.length }
}

const builds = [{ name: 'this build', checkout: resolve(HERE, '..') }, ...(compare ? [{ name: 'compare', checkout: resolve(compare) }] : [])]
const results = builds.map(() => [])
for (let i = 0; i < rounds; i++)
  for (const [k, b] of builds.entries()) {
    const r = run(b.checkout)
    results[k].push(r)
    process.stderr.write(`round ${i + 1} ${b.name}: ${r.wall.toFixed(1)} s wall, ${r.cpu.toFixed(1)} s CPU, ${r.rssMB.toFixed(0)} MB peak\n`)
  }
// The middle value; of an even count, the mean of the middle two (two rounds: their mean, not the larger).
const median = (a) => {
  const b = [...a].sort((x, y) => x - y)
  const m = Math.floor(b.length / 2)
  return b.length % 2 ? b[m] : (b[m - 1] + b[m]) / 2
}
console.log(
  `recompress ${matrix.length ? matrix.join(' ') : 'default matrix'} on ${file} (${results[0][0].settings} settings), ${rounds} interleaved round(s), medians:`,
)
for (const [k, b] of builds.entries()) {
  const rs = results[k]
  console.log(
    `  ${b.name}: ${median(rs.map((r) => r.wall)).toFixed(1)} s wall, ${median(rs.map((r) => r.cpu)).toFixed(1)} s CPU, ${Math.max(...rs.map((r) => r.rssMB)).toFixed(0)} MB peak RSS`,
  )
}
if (compare) {
  const wall = median(results[0].map((r) => r.wall)) / median(results[1].map((r) => r.wall))
  const a = results[0][0].sizes
  const b = results[1][0].sizes
  const differ = [...a].filter(([key, v]) => b.get(key) !== v).map(([key]) => key)
  // Each round's ratio too: the two builds of a round ran back to back, on the machine as it was then.
  const byRound = results[0].map((r, i) => (r.wall / results[1][i].wall).toFixed(3)).join(', ')
  console.log(
    `  wall this / compare: ${wall.toFixed(3)}x (round by round: ${byRound}); sizes ${differ.length === 0 && a.size === b.size ? 'identical for every setting' : `differ: ${differ.join(', ')}`}`,
  )
}

#!/usr/bin/env node
// Benchmark (not a test): the text rendering of `advise` reports, in-process, with sstkit's cell
// truncation (src/report/table-truncate.ts) against cli-table3's own in the same run, interleaved
// round by round, and whether both give the same text. A 100-column terminal (its wrapping).
//
//   node bench/render.mjs [--rounds 15] [--db DIR]...
//
// The advice: `advise DB --json` of each database once (default: examples/db and
// test/fixtures/db-medium), rendered by dist/report/advise.js. Run `npm run build` first.

import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')
const args = process.argv.slice(2)
const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 15) || 15
const dbs = args.flatMap((a, i) => (args[i - 1] === '--db' ? [resolve(a)] : []))
if (dbs.length === 0) dbs.push(join(ROOT, 'examples/db'), join(ROOT, 'test/fixtures/db-medium'))

const { renderAdviceText } = await import(pathToFileURL(join(ROOT, 'dist/report/advise.js')).href)
// The utils module cli-table3's cells call (patched by dist/report/table.js), and a pristine copy.
const require = createRequire(join(ROOT, 'dist/report/table.js'))
const path = require.resolve('cli-table3/src/utils.js')
const utils = require(path)
const patched = utils.truncate
delete require.cache[path]
const pristine = require(path).truncate
require.cache[path] = { ...require.cache[path], exports: utils }

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const time = (f) => {
  const t0 = performance.now()
  f()
  return performance.now() - t0
}

console.log(`advise reports rendered as text, ${rounds} interleaved rounds, medians (node ${process.version})`)
for (const db of dbs) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/run.cjs'), 'advise', db, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 })
  if (r.status !== 0 && r.status !== 1) throw new Error(`advise ${db} exited ${r.status}: ${r.stderr.split('\n')[0]}`)
  const advice = JSON.parse(r.stdout)
  const text = { sstkit: [], cliTable3: [] }
  let same = true
  for (let k = 0; k < rounds; k++) {
    let a = ''
    let b = ''
    utils.truncate = patched
    text.sstkit.push(time(() => (a = renderAdviceText(advice, { color: false, width: 100 }))))
    utils.truncate = pristine
    text.cliTable3.push(time(() => (b = renderAdviceText(advice, { color: false, width: 100 }))))
    utils.truncate = patched
    same &&= a === b
  }
  const s = median(text.sstkit)
  const c = median(text.cliTable3)
  console.log(
    `  ${db.replace(`${ROOT}/`, '')}: ${s.toFixed(1)} ms with sstkit's truncation, ${c.toFixed(1)} ms with cli-table3's (${(c / s).toFixed(1)}x); the same text: ${same ? 'yes' : 'NO'}`,
  )
}

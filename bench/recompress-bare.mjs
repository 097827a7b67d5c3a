// Bare zstd-napi compress + decompress of the blocks `sstkit recompress --block-size 16384`
// evaluates, with the same dictionaries: the floor sstkit's CPU time is compared with.
// Blocks and dictionaries are prepared untimed with sstkit's own library (dist/).
//
//   node bench/recompress-bare.mjs FILE LEVELS DICTS   -> {"cpuSeconds": ...}

import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const zstd = require('zstd-napi/binding.js')
const { openTable } = await import(join(ROOT, 'dist/index.js'))
const { BlockBuilder, FlushBySizePolicy } = await import(join(ROOT, 'dist/table/block-builder.js'))
const { collectSamples, trainedDictionary, finalizedDictionary } = await import(join(ROOT, 'dist/recompress/dictionary.js'))

const [file, levelsArg, dictsArg] = process.argv.slice(2)
const levels = levelsArg.split(',').map(Number)
const dicts = dictsArg.split(',')
const MAX_DICT = 16384

// The 16 KiB blocks, cut as RocksDB's builder cuts them.
const table = openTable(file)
const blocks = []
const builder = new BlockBuilder()
const policy = new FlushBySizePolicy(16384)
const it = table.iterator({ applyGlobalSeqno: false })
for (it.seekToFirst(); it.valid; it.next()) {
  if (policy.shouldFlush(builder, it.key.length, it.value.length)) blocks.push(builder.finish())
  builder.add(it.key, it.value)
}
if (!builder.empty) blocks.push(builder.finish())

const dictStart = process.cpuUsage()
const source = { blockSize: 16384, samplePercent: 100 }
const dopts = { maxDictBytes: MAX_DICT, trainBytes: 100 * MAX_DICT, maxDictBufferBytes: 64 * 1024 * 1024 }
const raw = collectSamples(table, source, dopts, MAX_DICT).bytes
const trainSamples = collectSamples(table, source, dopts, 100 * MAX_DICT)
const trained = trainedDictionary(trainSamples, MAX_DICT)
table.close()

const finalized = new Map(levels.map((l) => [l, finalizedDictionary(trainSamples, MAX_DICT, l)]))
const dictUsed = process.cpuUsage(dictStart)

const dctx = new zstd.DCtx()
const start = process.cpuUsage()
for (const d of dicts) {
  for (const level of levels) {
    const dict = d === 'raw' ? raw : d === 'train' ? trained : d === 'finalize' ? finalized.get(level) : null
    const cctx = new zstd.CCtx()
    cctx.setParameter(zstd.CParameter.compressionLevel, level)
    if (dict?.length) cctx.loadDictionary(dict)
    const ddict = dict?.length ? new zstd.DDict(dict) : null
    for (const b of blocks) {
      const dst = Buffer.allocUnsafe(zstd.compressBound(b.length))
      const n = cctx.compress2(dst, b)
      const out = Buffer.allocUnsafe(b.length)
      if (ddict) dctx.decompressUsingDDict(out, dst.subarray(0, n), ddict)
      else dctx.decompress(out, dst.subarray(0, n))
    }
  }
}
const used = process.cpuUsage(start)
console.log(
  JSON.stringify({ cpuSeconds: (used.user + used.system) / 1e6, dictionaryCpuSeconds: (dictUsed.user + dictUsed.system) / 1e6, blocks: blocks.length }),
)

/**
 * The layer map of docs/architecture.md, checked against the imports in src/: a folder may import
 * only folders of a lower layer. The few imports that break the rule today are listed by name, so
 * a new one fails here and a fixed one must be taken off the list.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers.js'

const SRC = join(ROOT, 'src')

/** Lower imports nothing above it. Top-level files count as their own "folder". */
const LAYERS: Record<string, number> = {
  'errors.ts': 0,
  util: 0,
  // the advice's data shapes (types/advice.ts): imports nothing, read by every layer
  types: 0,
  format: 1,
  io: 1,
  codec: 2,
  wasm: 3,
  table: 4,
  // blob files of the integrated BlobDB, beside the tables: format/, io/ and codec/ only
  blob: 4,
  // the decision core: estimates, the rule, settings, the CPU model, prices; below recompress and advise, both of which decide with it
  decide: 4,
  db: 5,
  verify: 5,
  rewrite: 6,
  synth: 6,
  // recompress writes tables with rewrite's writer options
  recompress: 7,
  advise: 8,
  'reader.ts': 9,
  'index.ts': 10,
  report: 11,
  cli: 11,
  scan: 12,
  tui: 12,
  ci: 12,
  // the drop-in prints through scan's WebAssembly block printer and parallel driver
  sstdump: 13,
  // command lines bin/run.cjs runs without oclif, their work shared with the oclif command
  entry: 13,
  commands: 14,
}

/** Imports that point the wrong way today (file → imported file); see docs/architecture.md. */
const KNOWN_EXCEPTIONS = ['reader.ts → report/sst-dump-text.js']

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

function folderOf(pathInSrc: string): string {
  const [first, ...rest] = pathInSrc.split('/')
  return rest.length > 0 ? first : first.replace(/\.js$/, '.ts')
}

interface Edge {
  from: string
  to: string
  /** A worker thread's entry (`new URL('./worker.js', …)`): a file the thread runs, not a module this one loads. */
  worker: boolean
}

/** Every relative import (static, dynamic, `export … from`, worker `new URL`) inside src/. */
function edges(): Edge[] {
  const out: Edge[] = []
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8')
    const specs = text.matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)|new URL\(\s*'(\.[^']+)'/g)
    for (const m of specs) {
      const to = relative(SRC, resolve(dirname(file), m[1] ?? m[2] ?? m[3]))
      if (to.startsWith('..')) continue // package.json and the like, outside src/
      out.push({ from: relative(SRC, file), to, worker: m[3] !== undefined })
    }
  }
  return out
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function circles(next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  let counter = 0
  const visit = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) out.push(component.sort())
    }
  }
  for (const v of next.keys()) if (!index.has(v)) visit(v)
  return out
}

describe('layering of src/ (docs/architecture.md)', () => {
  const all = edges()

  it('sees the imports of every folder', () => {
    const folders = new Set(all.map((e) => folderOf(e.from)))
    for (const f of Object.keys(LAYERS)) if (f !== 'errors.ts' && f !== 'util' && f !== 'types') expect(folders, f).toContain(f)
    expect(all.length).toBeGreaterThan(500)
  })

  it('every folder of src/ has a layer', () => {
    const top = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory() || /\.tsx?$/.test(n))
    expect(top.filter((n) => LAYERS[n] === undefined)).toEqual([])
  })

  it('imports point down the layers only (or are listed exceptions)', () => {
    const upward = all
      .filter((e) => {
        const from = folderOf(e.from)
        const to = folderOf(e.to)
        return from !== to && LAYERS[to] >= LAYERS[from]
      })
      .map((e) => `${e.from} → ${e.to}`)
    expect([...new Set(upward)].sort()).toEqual([...KNOWN_EXCEPTIONS].sort())
  })

  it('no file of src/ is over 700 lines (one concern each)', () => {
    const long = sourceFiles(SRC)
      .filter((f) => !f.endsWith('.generated.ts'))
      .map((f) => ({ file: relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((x) => x.lines > 700)
    expect(long).toEqual([])
  })

  it('types/ imports nothing', () => {
    for (const file of sourceFiles(join(SRC, 'types'))) {
      const text = readFileSync(file, 'utf8')
      expect(text, relative(SRC, file)).not.toMatch(/^\s*(import|export)\b[^\n]*\bfrom\s+'/m)
      expect(text, relative(SRC, file)).not.toMatch(/\bimport\(/)
    }
  })

  it('no import circles: the files of src/ import one another without a cycle', () => {
    const next = new Map<string, string[]>()
    for (const e of all.filter((x) => !x.worker)) {
      const to = e.to.replace(/\.js$/, '.ts')
      const target = existsSync(join(SRC, to)) ? to : to.replace(/\.ts$/, '.tsx')
      next.set(e.from, [...(next.get(e.from) ?? []), target])
    }
    expect(circles(next)).toEqual([])
  })

  it('no module of src/ takes values from the library entries (index.ts, reader.ts): each loads every feature', () => {
    // recompress's command took its flag parsers from index.ts and loaded advise, the database reader
    // and verify at every start (~260 KB more to compile); props' report took its names from reader.ts.
    const barrels = new Set(['index.js', 'reader.js'])
    const offenders: string[] = []
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file)
      if (name === 'index.ts' || name === 'reader.ts') continue
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/\bimport\s+(type\s+)?\{([^}]*)\}\s+from\s+'(\.[^']+)'/g)) {
        const target = relative(SRC, resolve(dirname(file), m[3]))
        if (m[1] || !barrels.has(target)) continue
        const values = m[2]
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x && !x.startsWith('type '))
        if (values.length) offenders.push(`${name}: ${values.join(', ')} from ${target}`)
      }
    }
    expect(offenders).toEqual([])
  })

  it('format/ and io/ import only each other, errors.ts', () => {
    for (const e of all.filter((x) => ['format', 'io'].includes(folderOf(x.from)))) {
      expect(['format', 'io', 'errors.ts'], `${e.from} → ${e.to}`).toContain(folderOf(e.to))
    }
  })

  it('format/ is pure: no file system, process or console', () => {
    for (const file of sourceFiles(join(SRC, 'format'))) {
      const text = readFileSync(file, 'utf8')
      expect(text, relative(SRC, file)).not.toMatch(/from 'node:(fs|child_process|worker_threads)'|\bconsole\.|\bprocess\./)
    }
  })
})

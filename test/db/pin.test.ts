import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase, tableFileName } from '../../src/db/database.js'
import { pinDatabase } from '../../src/db/pin.js'
import { openTable } from '../../src/table/reader.js'
import { ROOT } from '../helpers.js'
import { dbFixture } from './ldb.js'
import { DB_BENCH, startWriter } from './live-writer.js'

const tmp = mkdtempSync(join(tmpdir(), 'sstkit-pin-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A copy of a fixture database in its own directory (`parent/db`), so tests can delete its files. */
function copyOf(name: string): string {
  const parent = mkdtempSync(join(tmp, `${name}-`))
  const dir = join(parent, 'db')
  cpSync(dbFixture(name), dir, { recursive: true })
  return dir
}

const liveFiles = (view: ReturnType<typeof openDatabase>) => view.columnFamilies.flatMap((cf) => cf.levels.flat())

/** Every data block of every held file reads back (the held copy is the whole file the MANIFEST named). */
function readAll(paths: string[]): number {
  let blocks = 0
  for (const p of paths) {
    const t = openTable(p)
    try {
      for (const _ of t.dataHandles()) blocks++
    } finally {
      t.close()
    }
  }
  return blocks
}

describe('pinDatabase', () => {
  it('holds the version of a database being written and compacted by db_bench, whole, while RocksDB deletes its files', async () => {
    expect(DB_BENCH).not.toBeNull()
    const dir = join(mkdtempSync(join(tmp, 'live-')), 'db')
    const writer = await startWriter(dir, 20, { minFiles: 10 })
    try {
      const pin = pinDatabase(dir)
      try {
        expect(pin.info.method).toBe('hard-links')
        expect(pin.info.location).not.toBeNull()
        expect(dirname(pin.info.location as string)).toBe(tmpdir())
        const files = liveFiles(pin.view)
        expect(files.length).toBeGreaterThan(0)
        expect(pin.info.pinnedFiles).toBe(files.length)
        for (const f of files) {
          expect(f.path.startsWith(`${pin.info.location}/`)).toBe(true)
          expect(pin.originalPath(f.path)).toBe(join(dir, f.path.slice((pin.info.location as string).length + 1)))
          expect(statSync(f.path).size).toBe(f.fileSize)
        }
        // Wait until compaction has deleted some of the version's files and written new ones, then read
        // all of them. A compaction's outputs may already be on disk when the pin is taken (written, not
        // yet installed): those count as neither, so deletions alone can come first.
        const deadline = Date.now() + 20_000
        const both = () => {
          const c = pin.changes()
          return c.deletedFiles > 0 && c.addedFiles > 0
        }
        while (!both() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
        const changes = pin.changes()
        expect(changes.deletedFiles).toBeGreaterThan(0)
        expect(changes.addedFiles).toBeGreaterThan(0)
        expect(readAll(files.map((f) => f.path))).toBeGreaterThan(0)
        for (const f of files) expect(statSync(f.path).size).toBe(f.fileSize)
        // Nothing of the pin's inside the database directory.
        expect(readdirSync(dir).filter((n) => n.includes('sstkit'))).toEqual([])
      } finally {
        pin.release()
      }
      expect(existsSync(pin.info.location as string)).toBe(false)
    } finally {
      await writer.stop()
    }
  })

  it('links next to the database (never inside it) when the temporary directory is another filesystem', () => {
    expect(statSync('/dev/shm').dev).not.toBe(statSync(tmp).dev)
    const dir = copyOf('layered')
    const pin = pinDatabase(dir, { linkBases: ['/dev/shm', dir, dirname(dir)] })
    try {
      expect(pin.info.method).toBe('hard-links')
      expect(dirname(pin.info.location as string)).toBe(dirname(dir))
      expect(pin.info.location).toMatch(/\/\.sstkit-pin-\d+-\w+$/)
      expect(readdirSync('/dev/shm').filter((n) => n.includes('sstkit-pin'))).toEqual([])
    } finally {
      pin.release()
    }
    expect(readdirSync(dirname(dir))).toEqual(['db'])
  })

  it("puts every held path in a text back to the database's own, as the longest held path at each place", () => {
    const dir = copyOf('layered')
    const pin = pinDatabase(dir)
    try {
      expect(pin.info.method).toBe('hard-links')
      const files = liveFiles(pin.view)
      expect(files.length).toBeGreaterThan(1)
      const own = (f: { path: string }) => join(dir, basename(f.path))
      const text = JSON.stringify({ files: files.map((f) => f.path), note: `${files[0].path}.tmp and ${pin.info.location}/999999.sst, "${files[1].path}"` })
      const back = JSON.parse(pin.originalPaths(text)) as { files: string[]; note: string }
      expect(back.files).toEqual(files.map(own))
      expect(back.note).toBe(`${own(files[0])}.tmp and ${pin.info.location}/999999.sst, "${own(files[1])}"`)
    } finally {
      pin.release()
    }
  })

  it('holds open descriptors when no link can be made, read through /proc/self/fd after the files are deleted', () => {
    const dir = copyOf('layered')
    const pin = pinDatabase(dir, { methods: ['descriptors'] })
    try {
      expect(pin.info.method).toBe('descriptors')
      const files = liveFiles(pin.view)
      for (const f of files) expect(f.path).toMatch(/^\/proc\/self\/fd\/\d+$/)
      for (const f of files) unlinkSync(pin.originalPath(f.path))
      expect(readAll(files.map((f) => f.path))).toBeGreaterThan(0)
      expect(pin.changes().deletedFiles).toBe(files.length)
      expect(pin.originalPaths(`cannot read ${files[0].path}: x`)).toBe(`cannot read ${join(dir, tableFileName(files[0].fileNumber))}: x`)
    } finally {
      pin.release()
    }
  })

  it('reads in place past the open-file limit, and says how many', () => {
    const dir = copyOf('layered')
    const all = liveFiles(openDatabase(dir)).length
    const pin = pinDatabase(dir, { methods: ['descriptors'], spareDescriptors: 0, maxAttempts: 1 })
    pin.release()
    expect(pin.info.unpinnedFiles + pin.info.pinnedFiles).toBe(all)
  })

  it('removes pin directories a killed run left behind (its process gone), not those of a running one', () => {
    const base = mkdtempSync(join(tmp, 'base-'))
    const dead = join(base, 'sstkit-pin-999999999-abc')
    const alive = join(base, `sstkit-pin-${process.ppid}-abc`)
    mkdirSync(dead)
    mkdirSync(alive)
    const pin = pinDatabase(copyOf('layered'), { linkBases: [base] })
    pin.release()
    expect(existsSync(dead)).toBe(false)
    expect(existsSync(alive)).toBe(true)
  })

  it('a database whose live file is really missing keeps it as missing (the MANIFEST did not move on)', () => {
    const dir = copyOf('churn-missing')
    const pin = pinDatabase(dir)
    try {
      expect(pin.info.attempts).toBe(1)
      expect(pin.view.missingFiles.length).toBeGreaterThan(0)
      expect(pin.info.vanished).toEqual([])
    } finally {
      pin.release()
    }
  })

  it('leaves nothing behind when advise is stopped by SIGTERM or SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const own = mkdtempSync(join(tmp, 'tmpdir-'))
      const child = spawn(
        process.execPath,
        [join(ROOT, 'bin/run.js'), 'advise', join(ROOT, 'test/fixtures/db-medium'), '--time-budget', '60s', '--precision', '0.0001', '--jobs', '1'],
        {
          env: { ...process.env, TMPDIR: own },
          stdio: 'ignore',
        },
      )
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)))
      const deadline = Date.now() + 20_000
      while (!readdirSync(own).some((n) => n.startsWith('sstkit-pin-')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(readdirSync(own).some((n) => n.startsWith('sstkit-pin-'))).toBe(true)
      child.kill(signal)
      expect(await exited).toBe(signal)
      expect(readdirSync(own)).toEqual([])
    }
  })
})

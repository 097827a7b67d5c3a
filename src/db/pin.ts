/**
 * A live database held still for the length of a run. RocksDB keeps writing while a tool reads:
 * compactions delete table files the MANIFEST named a moment ago, flushes add new ones, and CURRENT
 * may switch to a new MANIFEST. RocksDB's own Checkpoint (utilities/checkpoint) keeps a consistent
 * version by hard-linking its live files into another directory on the same filesystem; a pin does
 * the same, privately and for the run only:
 *
 * 1. read CURRENT, hard-link the MANIFEST it names into a private directory, replay that link up to
 *    the size it had (a version of the database: the MANIFEST's name and position);
 * 2. hard-link every table file that version lists; a link that fails because RocksDB deleted the
 *    file meanwhile, or a live file already gone, while CURRENT or the MANIFEST moved on, means the
 *    version is stale: start again (a few times) from the newer one;
 * 3. the run reads the links; `changes()` says how many table files RocksDB deleted and added under
 *    it; `release()` removes the private directory (also on exit and on SIGINT/SIGTERM/SIGHUP).
 *
 * Where the links go: a fresh directory under the system's temporary directory (TMPDIR); when
 * that is another filesystem (EXDEV), a hidden directory next to the database (its parent
 * directory, never inside it); when neither can link, descriptors held open and read through
 * /proc/self/fd (Linux), as many as the open-file limit allows with room to spare; files past that
 * are read in place and unpinned. A directory left by a process killed with SIGKILL is removed by
 * the next pin in the same place once that process is gone.
 *
 * Nothing in the database directory is written, no LOCK is taken, no file is modified (a hard link
 * changes only the file's link count, as a checkpoint does). While pinned, files RocksDB deletes
 * keep their space until the pin is released.
 */
import { closeSync, linkSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, constants as fsConstants } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { cleanupOnExit } from '../util/cleanup.js'
import { currentManifest, type DatabaseView, type LiveFile, openDatabase, tableFilesOnDisk } from './database.js'
import { processAlive } from '../util/process-alive.js'

export type PinMethod = 'hard-links' | 'descriptors' | 'none'

export interface PinInfo {
  /** The MANIFEST CURRENT named (original path) and how many of its bytes this version is. */
  manifest: string
  manifestBytes: number
  /** VersionEdits replayed up to that position. */
  manifestRecords: number
  lastSequence: bigint
  method: PinMethod
  /** The private directory holding the links (null for descriptors or none). */
  location: string | null
  /** Live table files held; files read in place (past the open-file limit, or no way to pin). */
  pinnedFiles: number
  unpinnedFiles: number
  /** Versions tried before one could be held whole (1: the first). */
  attempts: number
  /** Live files of the version RocksDB deleted before they could be pinned (left out). */
  vanished: LiveFile[]
}

export interface RunChanges {
  /** Table files of the advised version that RocksDB has deleted since. */
  deletedFiles: number
  /** Table files RocksDB has written since (not in the version, not on disk at the start). */
  addedFiles: number
  /** The MANIFEST CURRENT names now, and its size (null when it cannot be read). */
  manifestNow: string | null
  manifestBytesNow: number | null
}

export interface PinnedDatabase {
  /** The version held: live files' `path` point at the pinned copies (see `originalPath`). */
  view: DatabaseView
  info: PinInfo
  /** The database's own path of a pinned path (other paths unchanged). */
  originalPath(path: string): string
  /** Rewrite every pinned path inside `text` to the database's own. */
  originalPaths(text: string): string
  changes(): RunChanges
  release(): void
}

/**
 * A pinned database without its view, for a run that has read what it needs of it (advise): the
 * view's records of every live file (keys, sequence numbers, ~0.5 KB a file) are not kept for the run.
 */
export type HeldVersion = Omit<PinnedDatabase, 'view'>

export function withoutView(pin: PinnedDatabase): HeldVersion {
  const { view: _, ...held } = pin
  return held
}

export interface PinOptions {
  /** Methods to try, in order (default: hard links, then descriptors). */
  methods?: PinMethod[]
  /** Where the private link directory may go, in order (default: TMPDIR, then the database's parent). */
  linkBases?: string[]
  /** Descriptors to keep free for the run itself (default 256). */
  spareDescriptors?: number
  /** Versions to try before accepting files deleted under the pin (default 8). */
  maxAttempts?: number
}

const PIN_PREFIX = 'sstkit-pin-'
const DEFAULT_SPARE_DESCRIPTORS = 256
const DEFAULT_MAX_ATTEMPTS = 8

class StaleVersion extends Error {}

/** Hold the version of `dir` CURRENT names now (see the file comment). */
export function pinDatabase(dir: string, options: PinOptions = {}): PinnedDatabase {
  const methods = options.methods ?? ['hard-links', 'descriptors']
  const absDir = resolve(dir)
  const bases = options.linkBases ?? [tmpdir(), dirname(absDir)]
  for (const method of methods) {
    if (method === 'hard-links') {
      for (const base of bases) {
        if (isInside(resolve(base), absDir)) continue
        const pinned = tryPin(dir, new LinkHolder(base, base === dirname(absDir)), options)
        if (pinned) return pinned
      }
    } else if (method === 'descriptors') {
      if (!procFdWorks()) continue
      const pinned = tryPin(dir, new DescriptorHolder(descriptorBudget(options.spareDescriptors ?? DEFAULT_SPARE_DESCRIPTORS)), options)
      if (pinned) return pinned
    }
  }
  const pinned = tryPin(dir, new NoHolder(), options)
  if (!pinned) throw new Error('unreachable: reading in place cannot fail to pin')
  return pinned
}

/** A way to hold files: `hold` returns the path to read, null when this file is read in place, or throws ENOENT. */
interface Holder {
  method: PinMethod
  location: string | null
  /** false: this holder cannot work here (e.g. another filesystem); the next one is tried. */
  start(): boolean
  hold(path: string): string | null
  clear(): void
  release(): void
  readonly pinnedPaths: Map<string, string>
}

class LinkHolder implements Holder {
  method: PinMethod = 'hard-links'
  location: string | null = null
  readonly pinnedPaths = new Map<string, string>()
  constructor(
    private readonly base: string,
    private readonly hidden: boolean,
  ) {}

  start(): boolean {
    const prefix = (this.hidden ? '.' : '') + PIN_PREFIX
    removeAbandoned(this.base, prefix)
    try {
      this.location = mkdtempSync(join(this.base, `${prefix}${process.pid}-`))
      return true
    } catch {
      return false
    }
  }

  hold(path: string): string | null {
    const to = join(this.location as string, basename(path))
    linkSync(path, to)
    this.pinnedPaths.set(to, path)
    return to
  }

  clear(): void {
    for (const p of this.pinnedPaths.keys()) rmSync(p, { force: true })
    this.pinnedPaths.clear()
  }

  release(): void {
    if (this.location) rmSync(this.location, { recursive: true, force: true })
    this.pinnedPaths.clear()
  }
}

class DescriptorHolder implements Holder {
  method: PinMethod = 'descriptors'
  location: string | null = null
  readonly pinnedPaths = new Map<string, string>()
  private readonly fds: number[] = []
  constructor(private readonly budget: number) {}

  start(): boolean {
    return this.budget > 0
  }

  hold(path: string): string | null {
    if (this.fds.length >= this.budget) return null
    const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK)
    this.fds.push(fd)
    const at = `/proc/self/fd/${fd}`
    this.pinnedPaths.set(at, path)
    return at
  }

  clear(): void {
    for (const fd of this.fds.splice(0)) closeSync(fd)
    this.pinnedPaths.clear()
  }

  release(): void {
    this.clear()
  }
}

class NoHolder implements Holder {
  method: PinMethod = 'none'
  location: string | null = null
  readonly pinnedPaths = new Map<string, string>()
  start(): boolean {
    return true
  }
  hold(): string | null {
    return null
  }
  clear(): void {}
  release(): void {}
}

function tryPin(dir: string, holder: Holder, options: PinOptions): PinnedDatabase | null {
  // Registered before the directory exists: a signal from then on finds the handler that removes it.
  const unregister = cleanupOnExit(() => holder.release())
  if (!holder.start()) {
    unregister()
    return null
  }
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  try {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts
      try {
        const held = holdVersion(dir, holder, last)
        if (held) return finish(dir, holder, held, attempt, unregister)
      } catch (e) {
        if (!(e instanceof StaleVersion) || last) throw e
      }
      holder.clear()
    }
  } catch (e) {
    unregister()
    if (isCannotLink(e) && holder.method === 'hard-links') return null
    throw e
  }
}

interface Held {
  view: DatabaseView
  vanished: LiveFile[]
  unpinned: number
  startFiles: Set<number>
}

/** One attempt: the version CURRENT names now, every live file held; null when it went stale under us and `last` is false. */
function holdVersion(dir: string, holder: Holder, last: boolean): Held | null {
  let manifest: string
  let readFrom: string | null
  try {
    manifest = currentManifest(dir)
    readFrom = holder.hold(manifest)
  } catch (e) {
    // CURRENT switched and the old MANIFEST was deleted between reading one and linking the other.
    if (isGone(e) && !last) throw new StaleVersion()
    throw e
  }
  const view = openDatabase(dir, { path: manifest, readFrom: readFrom ?? manifest })
  const startFiles = new Set(tableFilesOnDisk(dir).keys())
  const vanished: LiveFile[] = []
  let unpinned = 0
  for (const f of view.columnFamilies.flatMap((cf) => cf.levels.flat())) {
    if (!f.exists) continue
    try {
      const at = holder.hold(f.path)
      if (at === null) unpinned++
      else f.path = at
    } catch (e) {
      if (!isGone(e)) throw e
      vanished.push(f)
    }
  }
  const missing = view.missingFiles.length > 0 || vanished.length > 0
  if (missing && !last && moved(dir, manifest, view.manifestBytes)) return null
  for (const f of vanished) f.exists = false
  return { view, vanished, unpinned, startFiles }
}

/** Whether the database has moved on from the version read (another MANIFEST, or this one grew). */
function moved(dir: string, manifest: string, bytes: number): boolean {
  try {
    return currentManifest(dir) !== manifest || statSync(manifest).size !== bytes
  } catch {
    return true
  }
}

function finish(dir: string, holder: Holder, held: Held, attempts: number, unregister: () => void): PinnedDatabase {
  // No closure here may name `held` or `view`: the returned ones would keep it (V8 gives them one
  // context), and with it every live file's record, for the run (withoutView lets go of it).
  const { view, startFiles } = held
  const manifestPath = view.manifestPath
  const liveNumbers = new Set(view.columnFamilies.flatMap((cf) => cf.levels.flat().map((f) => f.fileNumber)))
  const pinnedFiles = [...holder.pinnedPaths.values()].filter((p) => p !== manifestPath).length
  const info: PinInfo = {
    manifest: view.manifestPath,
    manifestBytes: view.manifestBytes,
    manifestRecords: view.manifestRecords,
    lastSequence: view.lastSequence,
    method: holder.method,
    location: holder.location,
    pinnedFiles,
    unpinnedFiles: held.unpinned,
    attempts,
    vanished: held.vanished,
  }
  const paths = holder.pinnedPaths
  const pattern = heldPathPattern([...paths.keys()])
  return {
    view,
    info,
    originalPath: (p) => paths.get(p) ?? p,
    originalPaths: (text) => (pattern ? text.replace(pattern, (m) => longestHeld(m, paths)) : text),
    changes: () => runChanges(dir, liveNumbers, startFiles),
    release: unregister,
  }
}

const escapeRegExp = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** What a database's files are named (NNNNNN.sst, MANIFEST-NNNNNN, OPTIONS-NNNNNN, ...). */
const NAME = /^[A-Za-z0-9._-]+$/

/**
 * A pattern that finds every held path in a text: the holder's directory (one, or /proc/self/fd) and
 * a file name, which longestHeld maps; as the longest held path at each place in it would. Not one
 * alternative per path: at 20,000 files that expression (1.6 MB) took ~20 MB of RSS and 0.14 s to use.
 */
function heldPathPattern(held: string[]): RegExp | null {
  if (held.length === 0) return null
  if (!held.every((p) => NAME.test(basename(p))))
    return new RegExp(
      held
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    )
  const dirs = [...new Set(held.map((p) => dirname(p)))].sort((a, b) => b.length - a.length)
  return new RegExp(`(?:${dirs.map((d) => escapeRegExp(d)).join('|')})/[A-Za-z0-9._-]+`, 'g')
}

/** `m`'s longest start that is a held path, as the database's own, with the rest of `m` after it. */
function longestHeld(m: string, paths: Map<string, string>): string {
  for (let k = m.length; k > 0; k--) {
    const original = paths.get(k === m.length ? m : m.slice(0, k))
    if (original !== undefined) return original + m.slice(k)
  }
  return m
}

function runChanges(dir: string, live: Set<number>, atStart: Set<number>): RunChanges {
  let now: Set<number>
  try {
    now = new Set(tableFilesOnDisk(dir).keys())
  } catch {
    now = new Set()
  }
  let deletedFiles = 0
  // a live file missing from the start (the MANIFEST lists it, the disk never had it) was not deleted during the run
  for (const n of live) if (atStart.has(n) && !now.has(n)) deletedFiles++
  let addedFiles = 0
  for (const n of now) if (!live.has(n) && !atStart.has(n)) addedFiles++
  let manifestNow: string | null = null
  let manifestBytesNow: number | null = null
  try {
    manifestNow = currentManifest(dir)
    manifestBytesNow = statSync(manifestNow).size
  } catch {
    // A MANIFEST switching right now: say nothing about it.
  }
  return { deletedFiles, addedFiles, manifestNow, manifestBytesNow }
}

function isGone(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT'
}

/** Errors that say hard links cannot be made from here (another filesystem, no permission, read-only, unsupported). */
function isCannotLink(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code
  return code === 'EXDEV' || code === 'EPERM' || code === 'EACCES' || code === 'EROFS' || code === 'EMLINK' || code === 'ENOSPC' || code === 'ENOTSUP'
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`)
}

/** Remove pin directories under `base` whose process is gone (one killed by SIGKILL leaves its links). */
function removeAbandoned(base: string, prefix: string): void {
  let names: string[]
  try {
    names = readdirSync(base)
  } catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1])
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue
    rmSync(join(base, name), { recursive: true, force: true })
  }
}

function procFdWorks(): boolean {
  try {
    return statSync('/proc/self/fd').isDirectory()
  } catch {
    return false
  }
}

/** Descriptors a pin may hold: the soft open-file limit (Linux /proc/self/limits) less the spare and those open now. */
function descriptorBudget(spare: number): number {
  let limit = 1024
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'latin1'))
    if (m) limit = m[1] === 'unlimited' ? 1 << 20 : Number(m[1])
  } catch {
    // Not Linux: the common default.
  }
  let open = 0
  try {
    open = readdirSync('/proc/self/fd').length
  } catch {}
  return Math.max(0, limit - spare - open)
}

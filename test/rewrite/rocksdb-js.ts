/**
 * A thin wrapper over the RocksDB 11.8.1 N-API binding in
 * `@harperfast/rocksdb-js-linux-x64-glibc` (see /work/shared/reference/real-rocksdb.md and
 * test/fixtures/write-v11.mjs), driven directly as the fixture writer does. Test-only.
 *
 * The binding is found under .cache/rocksdb11 (scripts/install-rocksdb11.mjs, `npm run rocksdb11`; .ci/run
 * runs it), or under the npm prefix in ROCKSDB_JS_PREFIX. `null` when neither has it.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ROOT } from '../helpers.js'

const PACKAGE = '@harperfast/rocksdb-js-linux-x64-glibc'

/** The binding is untyped (a native addon without declarations). */
type Binding = any

function load(): Binding | null {
  const places = [join(ROOT, '.cache', 'rocksdb11', 'node_modules', 'x.js')]
  if (process.env.ROCKSDB_JS_PREFIX) places.push(join(process.env.ROCKSDB_JS_PREFIX, 'node_modules', 'x.js'))
  for (const p of places) {
    try {
      return createRequire(p)(PACKAGE)
    } catch {
      // try the next place
    }
  }
  return null
}

export const rocksdbJs: Binding | null = process.platform === 'linux' && process.arch === 'x64' ? load() : null

export interface Entry {
  key: string
  value: string
}

/** One open RocksDB 11 database. */
export class Rocks {
  private readonly db: Binding
  private readonly key = Buffer.allocUnsafeSlow(4096)
  private readonly value = Buffer.allocUnsafeSlow(1 << 20)
  private readonly state = Buffer.allocUnsafeSlow(8)

  constructor(dir: string, options: Record<string, unknown> = {}) {
    if (!rocksdbJs) throw new Error(`${PACKAGE} is not installed`)
    this.db = new rocksdbJs.Database()
    this.db.open(dir, { name: 'default', compression: 'zstd', disableWAL: true, ...options })
    this.db.setDefaultKeyBuffer(this.key)
    this.db.setDefaultValueBuffer(this.value)
    this.db.setIteratorState(this.state)
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.db.putSync(Buffer.from(key), Buffer.from(value))
  }

  remove(key: Uint8Array): void {
    this.db.removeSync(Buffer.from(key))
  }

  flush(): void {
    this.db.flushSync()
  }

  /** Every live entry, in order, through a RocksDB iterator (checksums verified as it reads). */
  entries(): Entry[] {
    const C = rocksdbJs.constants
    const st = new Uint32Array(this.state.buffer, this.state.byteOffset, 2)
    const it = new rocksdbJs.Iterator(this.db, C.ITERATOR_INCLUDE_VALUES_FLAG | C.ITERATOR_NEEDS_STABLE_VALUE_BUFFER_FLAG, 0, 0, 0)
    const out: Entry[] = []
    for (;;) {
      const r = it.next()
      if (r === C.ITERATOR_RESULT_DONE) break
      if (r === C.ITERATOR_RESULT_FAST) out.push({ key: this.key.toString('hex', 0, st[0]), value: this.value.toString('hex', 0, st[1]) })
      else out.push({ key: Buffer.from(r.key).toString('hex'), value: Buffer.from(r.value).toString('hex') })
    }
    return out
  }

  /** A DB property (e.g. rocksdb.aggregated-table-properties, rocksdb.sstables). */
  property(name: string): string {
    return String(this.db.getDBProperty(name))
  }

  /** Compact the whole key range (RocksDB reads every entry of every file and writes new ones). */
  compact(): void {
    this.db.compactSync()
  }

  close(): void {
    this.db.close()
  }
}

/**
 * rewrite's files written on a worker thread (worker.ts), so that this thread's event loop stays
 * free while a file is compressed: a SIGINT or SIGTERM is then handled at once, its temporary
 * file removed (util/cleanup.ts, util/temp-file.ts) and the process ended by the signal, where a
 * rewrite on this thread would hold the signal until the file was done (or, with no handler,
 * die leaving the temporary file behind).
 */
import { Worker } from 'node:worker_threads'
import { errorFromTransfer } from '../errors.js'
import type { RewriteOptions, RewriteResult } from './rewrite.js'
import { cleanupOnExit } from '../util/cleanup.js'
import { removeOwnTemporaries } from '../util/temp-file.js'
import { DEFAULT_LIMITS } from '../util/worker-pool.js'
import type { BlobRequest, CompareRequest, RewriteReply, RewriteRequest } from './worker.js'
import type { TableCompared, TablePair } from './db-verify.js'
import type { BlobFileWritten } from './blob-files.js'

const WORKER_URL = new URL('./worker.js', import.meta.url)

/** Errors the worker met opening an input that is not a table at all (table/rewrite.ts isUnopenableInput). */
const unopenable = new WeakSet<object>()

/** Whether RewriteThread.rewrite failed because its input could not be opened as a table (exit 2). */
export function isUnopenableRewriteInput(e: unknown): boolean {
  return typeof e === 'object' && e !== null && unopenable.has(e)
}

export class RewriteThread {
  // A worker's small young generation (util/worker-pool.ts): seconds of work per file, less peak RSS.
  private readonly worker = new Worker(WORKER_URL, { resourceLimits: DEFAULT_LIMITS })
  private dead: Error | null = null

  constructor() {
    this.worker.on('error', (e) => {
      this.dead = e
    })
  }

  /** rewriteFile(input, output, options) on the worker; on a signal meanwhile, output's temporary file is removed. */
  async rewrite(input: string, output: string, options: RewriteOptions): Promise<RewriteResult> {
    if (this.dead) throw this.dead
    const done = cleanupOnExit(() => removeOwnTemporaries(output))
    try {
      const reply = await this.ask({ input, output, options })
      if ('result' in reply) return reply.result
      throw this.failure(reply)
    } finally {
      // The worker removed its temporary file on any failure, and renamed it on success: nothing to remove.
      done()
    }
  }

  /** recompressBlobFile on the worker (output is a new file in a directory its caller removes on a failure or a signal). */
  async recompressBlob(input: string, output: string, fileNumber: number, compression: number): Promise<BlobFileWritten> {
    if (this.dead) throw this.dead
    const reply = await this.ask({ blob: { input, output, fileNumber, compression } })
    if ('blob' in reply) return reply.blob
    throw this.failure(reply)
  }

  /** compareTables on the worker. */
  async compareTable(pair: TablePair): Promise<TableCompared> {
    const reply = await this.checked({ compare: pair })
    if ('compared' in reply && typeof reply.compared !== 'number') return reply.compared
    throw this.failure(reply)
  }

  /** compareBytes on the worker: the bytes compared. */
  async compareFile(original: string, copy: string, label: string, prefix: boolean): Promise<number> {
    const reply = await this.checked({ compare: { original, copy, label, prefix } })
    if ('compared' in reply && typeof reply.compared === 'number') return reply.compared
    throw this.failure(reply)
  }

  private checked(request: CompareRequest): Promise<RewriteReply> {
    if (this.dead) throw this.dead
    return this.ask(request)
  }

  private failure(reply: RewriteReply): Error {
    if (!('error' in reply)) return new Error('unexpected reply from the rewrite thread')
    const error = errorFromTransfer(reply.error)
    if (reply.unopenable) unopenable.add(error)
    return error
  }

  private ask(request: RewriteRequest | BlobRequest | CompareRequest): Promise<RewriteReply> {
    return new Promise<RewriteReply>((resolve, reject) => {
      const onError = (e: Error) => {
        this.worker.off('message', onMessage)
        reject(e)
      }
      const onMessage = (m: RewriteReply) => {
        this.worker.off('error', onError)
        resolve(m)
      }
      this.worker.once('message', onMessage)
      this.worker.once('error', onError)
      this.worker.postMessage(request)
    })
  }

  /** Let the worker end: it closes its port and its thread ends by itself. */
  async close(): Promise<void> {
    if (this.dead) return
    const exited = new Promise((resolve) => this.worker.once('exit', resolve))
    this.worker.postMessage(null)
    await exited
  }
}

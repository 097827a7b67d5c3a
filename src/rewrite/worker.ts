/**
 * The worker thread of thread.ts: rewrites one file per message, as rewriteFile does on
 * any thread (or a blob file, as recompressBlobFile does), and answers with its result or its
 * error (as data: errors.ts errorToTransfer).
 */
import { parentPort } from 'node:worker_threads'
import { errorToTransfer, type TransferredError } from '../errors.js'
import { type BlobFileWritten, recompressBlobFile } from './blob-files.js'
import { compareBytes, compareTables, type TableCompared, type TablePair } from './db-verify.js'
import { isUnopenableInput, type RewriteOptions, type RewriteResult, rewriteFile } from './rewrite.js'

export interface RewriteRequest {
  input: string
  output: string
  options: RewriteOptions
}

/** A blob file written again under another compression (blob-files.ts). */
export interface BlobRequest {
  blob: { input: string; output: string; fileNumber: number; compression: number }
}

/** A written table compared with a second read of its source, or a copied file with its original (db-verify.ts). */
export interface CompareRequest {
  compare: TablePair | { original: string; copy: string; label: string; prefix: boolean }
}

export type RewriteReply =
  | { result: RewriteResult }
  | { blob: BlobFileWritten }
  | { compared: TableCompared | number }
  | { error: TransferredError; unopenable: boolean }

const port = parentPort
if (port) {
  port.on('message', (r: RewriteRequest | BlobRequest | CompareRequest | null) => {
    // null: no more files. Closing the port lets the thread end by itself (never terminated inside a native call).
    if (r === null) return port.close()
    let reply: RewriteReply
    try {
      if ('blob' in r) reply = { blob: recompressBlobFile(r.blob.input, r.blob.output, r.blob.fileNumber, r.blob.compression) }
      else if ('compare' in r) {
        const c = r.compare
        reply = { compared: 'source' in c ? compareTables(c) : compareBytes(c.original, c.copy, c.label, c.prefix) }
      } else reply = { result: rewriteFile(r.input, r.output, r.options) }
    } catch (e) {
      reply = { error: errorToTransfer(e), unopenable: isUnopenableInput(e) }
    }
    port.postMessage(reply)
  })
}

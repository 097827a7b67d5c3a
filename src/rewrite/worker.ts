/**
 * The worker thread of thread.ts: rewrites one file per message, as rewriteFile does on
 * any thread, and answers with its result or its error (as data: errors.ts errorToTransfer).
 */
import { parentPort } from 'node:worker_threads'
import { errorToTransfer, type TransferredError } from '../errors.js'
import { isUnopenableInput, type RewriteOptions, type RewriteResult, rewriteFile } from './rewrite.js'

export interface RewriteRequest {
  input: string
  output: string
  options: RewriteOptions
}

export type RewriteReply = { result: RewriteResult } | { error: TransferredError; unopenable: boolean }

const port = parentPort
if (port) {
  port.on('message', (r: RewriteRequest | null) => {
    // null: no more files. Closing the port lets the thread end by itself (never terminated inside a native call).
    if (r === null) return port.close()
    let reply: RewriteReply
    try {
      reply = { result: rewriteFile(r.input, r.output, r.options) }
    } catch (e) {
      reply = { error: errorToTransfer(e), unopenable: isUnopenableInput(e) }
    }
    port.postMessage(reply)
  })
}

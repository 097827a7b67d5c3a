/** The sst_dump emulation: `runSstDump(argv, io)` and its parts. */
export { runSstDump, DEFAULT_ENV_POINTER } from './run.js'
export type { SstDumpIo } from './run.js'
export { parseSstDumpArgs } from './args.js'
export type { SstDumpArgs, ParseResult } from './args.js'
export { helpText } from './help.js'
export { CollectingWriter } from './sink.js'
export { SstDumpStatus } from './status.js'
export type { SequentialOptions } from './sequential.js'

/**
 * Which BlockChecker (block-checker.ts) does a caller's checks here: the native kernel
 * where it loads, else the portable checker where the checks are verify's own (it does
 * no others), else none. A caller's own path does every block the checker leaves.
 */
import { BlockCheck, type BlockChecker, type BlockChecks, type TableFacts, VERIFY_CHECKS } from './block-checker.js'
import { NativeBlockChecker } from './native.js'
import { WasmBlockChecker } from './wasm.js'

export interface CheckerChoice {
  /** false: not the native kernel (tests hold the two checkers to the same findings). */
  readonly native?: boolean
}

/** The fastest checker of `checks` over `table`'s data blocks here, or null where none does them. */
export function createBlockChecker(table: TableFacts, checks: BlockChecks, choice: CheckerChoice = {}): BlockChecker | null {
  const native = choice.native === false ? null : NativeBlockChecker.create(checks, table)
  if (native) return native
  return portableDoes(checks) ? WasmBlockChecker.create(table) : null
}

/** Whether the portable checker does exactly `checks`. */
function portableDoes(checks: BlockChecks): boolean {
  return checks.validTypes === undefined && checks.flags === VERIFY_CHECKS.flags && (checks.flags & BlockCheck.RawBlocks) === 0
}

/** `sstkit advise ... --json` for the command tests: exit 0, nothing on stderr, the advice parsed. */
import { expect } from 'vitest'
import type { Advice } from '../../src/types/advice.js'
import { sstkit } from '../helpers.js'

export function adviseJson(args: string[]): Advice {
  const r = sstkit(['advise', ...args, '--json'])
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout) as Advice
}

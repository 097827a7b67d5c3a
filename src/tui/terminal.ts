/**
 * The terminal while `browse` runs: the alternate screen with the cursor hidden, keys in raw mode,
 * a first frame painted before ink loads, and the screen given back however the browser ends.
 */
import type { BrowseModel } from './model.js'
import { drawFrame, frameAnsi, INITIAL } from './screens.js'

const ALT_SCREEN_ON = '\x1b[?1049h'
const ALT_SCREEN_OFF = '\x1b[?1049l'
const HIDE_CURSOR = '\x1b[?25l'
const SHOW_CURSOR = '\x1b[?25h'
const HOME = '\x1b[H'
const CLEAR = '\x1b[2J'

/** Status line of the first screen, until ink takes over and keys work. */
const STARTING = { text: 'starting… (keys work in a moment)', error: false }

/** The standard stream that is not an interactive terminal (stdout first), or undefined when both are. */
export function notInteractive(): 'stdout' | 'stdin' | undefined {
  if (process.stdout.isTTY !== true) return 'stdout'
  if (process.stdin.isTTY !== true) return 'stdin'
  return undefined
}

/**
 * Run the browser on `model` until the user quits (needs an interactive terminal: `notInteractive`).
 * `model` is started here, once ink is loaded; the caller closes it.
 */
export async function browseInTerminal(model: BrowseModel): Promise<void> {
  // ink checks CI variables when it is imported and then draws only the last
  // frame; a person at a terminal should get the live screen.
  delete process.env.CI
  delete process.env.CONTINUOUS_INTEGRATION
  // React's production build: smaller to load, no development checks.
  process.env.NODE_ENV ??= 'production'
  const out = process.stdout
  // Paint the first screen now, from what openTable already read, and only
  // then load ink and React (hundreds of milliseconds of module loading on a
  // slow machine). Raw mode at once, so keys typed meanwhile are neither
  // echoed nor lost: ink reads them when it starts.
  out.write(`${ALT_SCREEN_ON}${HIDE_CURSOR}${HOME}${CLEAR}${frameAnsi(drawFrame(model, { ...INITIAL, message: STARTING }, out.columns, out.rows))}${HOME}`)
  process.stdin.setRawMode(true)
  try {
    const { runBrowser } = await import('./app.js')
    // Background loading starts once ink is in: its chunks would otherwise
    // slow down the many small reads of loading ink's modules.
    model.start()
    await runBrowser(model)
  } finally {
    out.write(`${SHOW_CURSOR}${ALT_SCREEN_OFF}`)
  }
}

/**
 * Several files' reports on one output, each printed as it is made. For a command whose report of
 * one file streams (layout prints a file's blocks as it reads them), so that nothing waits for
 * the last file: with --json one file's object alone and several files' objects in an array (each
 * entry indented under it), in text a blank line between files' reports and, with several files,
 * each under its name. Commands whose reports are whole objects (props, verify) return them to
 * oclif instead; scan's JSON Lines need no array.
 */
export class FileReportStream {
  /** Indent of each entry's lines: inside the array of several files, or none. */
  readonly indent: string
  private printed = 0

  constructor(
    private readonly write: (text: string) => void,
    private readonly json: boolean,
    private readonly several: boolean,
  ) {
    this.indent = json && several ? '  ' : ''
    if (json && several) write('[')
  }

  /** Before a file's JSON entry: the separator from the one before it. */
  nextEntry(): void {
    this.write(this.printed++ > 0 ? ',\n' : this.several ? '\n' : '')
  }

  /** A whole JSON entry in one piece (a file that could not be read, a blob file), after `nextEntry`. */
  entry(value: unknown): void {
    this.write(`${this.indent}${JSON.stringify(value, null, 2).replace(/\n/g, `\n${this.indent}`)}`)
  }

  /**
   * Before a file's text: a blank line after the report before it (`blankLine` false: none, as
   * between CSV tables) and, with several files, `heading` (the file's name) on its own line.
   */
  nextText(heading?: string, blankLine = true): void {
    const after = this.printed++ > 0 && blankLine ? '\n' : ''
    this.write(`${after}${heading !== undefined && this.several ? `${heading}:\n` : ''}`)
  }

  /** After the last file: the array closed (several files), or the one entry's line ended. */
  end(): void {
    if (this.json) this.write(this.several ? '\n]\n' : this.printed > 0 ? '\n' : '')
  }
}

/**
 * A key given on the command line (scan's --from, --to, --prefix): scan's own escaped form, as it
 * prints keys (printable ASCII, \xNN, \\ and \'; the quotes around it optional), `0x` and hex digits
 * (as browse takes them), or with --input-hex, hex with or without 0x. Text is taken as UTF-8.
 */

/** Why a key argument cannot be read: the caller words it as a usage error. */
export class KeyArgumentError extends Error {}

export function parseKeyArgument(text: string, inputHex: boolean): Uint8Array {
  if (inputHex || /^0x/i.test(text)) {
    const h = /^0x/i.test(text) ? text.slice(2) : text
    if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new KeyArgumentError(`not a hex key: ${text}`)
    return Uint8Array.from(Buffer.from(h, 'hex'))
  }
  const quoted = text.length >= 2 && text.startsWith("'") && text.endsWith("'")
  return unescapeKey(quoted ? text.slice(1, -1) : text)
}

/** scan's escapes undone: \xNN is the byte, \\ and \' the character; any other backslash is itself. */
function unescapeKey(s: string): Uint8Array {
  if (!s.includes('\\')) return new TextEncoder().encode(s)
  const out: number[] = []
  const text = (part: string) => out.push(...new TextEncoder().encode(part))
  let from = 0
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') continue
    const next = s[i + 1]
    if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 2, i + 4))) {
      text(s.slice(from, i))
      out.push(Number.parseInt(s.slice(i + 2, i + 4), 16))
      i += 3
      from = i + 1
    } else if (next === '\\' || next === "'") {
      text(s.slice(from, i))
      out.push(next.charCodeAt(0))
      i += 1
      from = i + 1
    }
  }
  text(s.slice(from))
  return Uint8Array.from(out)
}

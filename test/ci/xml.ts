/**
 * A strict little XML well-formedness checker for the JUnit report (no
 * dependency): one root, balanced and properly nested tags, quoted unique
 * attributes, no stray `<` or `&` in text or attribute values. Returns the
 * element tree; throws with the offset on the first problem.
 */
export interface XmlElement {
  name: string
  attrs: Record<string, string>
  children: XmlElement[]
  text: string
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/
const ENTITY = /^&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/

function decode(s: string, at: number): string {
  for (let i = s.indexOf('&'); i !== -1; i = s.indexOf('&', i + 1)) {
    if (!ENTITY.test(s.slice(i))) throw new Error(`bad entity reference at ${at + i}`)
  }
  if (s.includes('<')) throw new Error(`stray < at ${at + s.indexOf('<')}`)
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
}

export function parseXml(doc: string): XmlElement {
  let i = 0
  if (doc.startsWith('<?xml')) {
    i = doc.indexOf('?>')
    if (i < 0) throw new Error('unterminated XML declaration')
    i += 2
  }
  const stack: XmlElement[] = []
  let root: XmlElement | null = null
  while (i < doc.length) {
    const lt = doc.indexOf('<', i)
    const text = doc.slice(i, lt < 0 ? doc.length : lt)
    if (stack.length === 0) {
      if (text.trim() !== '') throw new Error(`text outside the root element at ${i}`)
    } else stack[stack.length - 1].text += decode(text, i)
    if (lt < 0) break
    i = lt
    if (doc.startsWith('</', i)) {
      const m = NAME.exec(doc.slice(i + 2))
      const close = doc.indexOf('>', i)
      if (!m || close < 0 || doc.slice(i + 2 + m[0].length, close).trim() !== '') throw new Error(`bad end tag at ${i}`)
      const open = stack.pop()
      if (!open || open.name !== m[0]) throw new Error(`</${m[0]}> at ${i} does not close <${open?.name ?? 'nothing'}>`)
      i = close + 1
      continue
    }
    const m = NAME.exec(doc.slice(i + 1))
    if (!m) throw new Error(`bad tag at ${i}`)
    const el: XmlElement = { name: m[0], attrs: {}, children: [], text: '' }
    let j = i + 1 + m[0].length
    for (;;) {
      const ws = /^\s*/.exec(doc.slice(j))![0]
      j += ws.length
      if (doc.startsWith('/>', j) || doc.startsWith('>', j)) break
      if (ws.length === 0) throw new Error(`expected whitespace before an attribute at ${j}`)
      const a = /^([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*"([^"]*)"/.exec(doc.slice(j))
      if (!a) throw new Error(`bad attribute at ${j}`)
      if (a[1] in el.attrs) throw new Error(`duplicate attribute ${a[1]} at ${j}`)
      el.attrs[a[1]] = decode(a[2], j)
      j += a[0].length
    }
    const selfClosing = doc.startsWith('/>', j)
    i = j + (selfClosing ? 2 : 1)
    if (stack.length > 0) stack[stack.length - 1].children.push(el)
    else if (root) throw new Error(`second root element at ${lt}`)
    else root = el
    if (!selfClosing) stack.push(el)
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1].name}> is never closed`)
  if (!root) throw new Error('no root element')
  return root
}

export function findAll(el: XmlElement, name: string): XmlElement[] {
  return [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => findAll(c, name))]
}

/**
 * The advice's coded notes compared as data (types/advice.ts): by code and values, in any key
 * order, leaving out the `text` that `advise --json` writes beside each (a shard read back has it).
 */

/** The note's code and values as one string: equal notes, equal keys. */
export function noteKey(note: object): string {
  return JSON.stringify(note, (_, value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .filter((k) => k !== 'text')
            .sort()
            .map((k) => [k, value[k]]),
        )
      : value,
  )
}

export function sameNote(a: object, b: object): boolean {
  return noteKey(a) === noteKey(b)
}

/** Each note once, the first of equal ones kept in its place; without a `text` (the renderers write it). */
export function uniqueNotes<T extends object>(notes: readonly T[]): T[] {
  const seen = new Map<string, T>()
  for (const n of notes) {
    const key = noteKey(n)
    if (!seen.has(key)) seen.set(key, withoutText(n))
  }
  return [...seen.values()]
}

/** A note as the engine writes it: its `text` (added by `advise --json`) dropped. */
export function withoutText<T extends object>(note: T): T {
  if (!('text' in note)) return note
  const { text: _, ...rest } = note as T & { text: unknown }
  return rest as T
}

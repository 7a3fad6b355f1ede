// The Ctrl/Cmd+K palette's search: sessions by title, first message and
// folder, and the window's commands by name. Pure, so Vitest covers it.
import type { Session } from '../bridge'

export interface PaletteCommand {
  id: string
  label: string
  // Other words that find it ("permissions" finds Grants).
  words?: string
  hint?: string
}

// Where a session matched: its title, its first message, its folder, or
// the words spread over them.
export type Where = 'title' | 'message' | 'folder' | 'all'

export type PaletteItem =
  | { kind: 'session'; session: Session; where: Where; snippet: string }
  | { kind: 'command'; command: PaletteCommand }

// What a session is found by, best first.
function fields(s: Session): [Where, string][] {
  return [
    ['title', s.title || 'Untitled session'],
    ['message', s.first_message ?? ''],
    ['folder', s.workspace],
  ]
}

const norm = (s: string) => s.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '')

// snippetAround is the part of text around the first hit of word, on one
// line, at most width characters.
export function snippetAround(text: string, word: string, width = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (flat.length <= width) return flat
  const at = norm(flat).indexOf(norm(word))
  const start = Math.max(0, Math.min(at < 0 ? 0 : at - Math.floor(width / 3), flat.length - width))
  return (start > 0 ? '…' : '') + flat.slice(start, start + width).trim() + (start + width < flat.length ? '…' : '')
}

// search lists what the query finds: every word of it must be in one of a
// session's fields (or a command's label and words). An empty query lists
// the sessions in their order, then the commands.
export function search(query: string, sessions: readonly Session[], commands: readonly PaletteCommand[], limit = 30): PaletteItem[] {
  const words = norm(query).split(/\s+/).filter(Boolean)
  if (!words.length) {
    return [
      ...sessions.map((s): PaletteItem => ({ kind: 'session', session: s, where: 'all', snippet: s.first_message ? snippetAround(s.first_message, '') : s.workspace })),
      ...commands.map((c): PaletteItem => ({ kind: 'command', command: c })),
    ].slice(0, limit)
  }
  const hits: { item: PaletteItem; rank: number }[] = []
  sessions.forEach((s, order) => {
    const fs = fields(s)
    const all = norm(fs.map(([, t]) => t).join('\n'))
    if (!words.every((w) => all.includes(w))) return
    // The best field is the first that holds every word; else "all".
    const best = fs.findIndex(([, t]) => words.every((w) => norm(t).includes(w)))
    const where = best < 0 ? 'all' : fs[best]![0]
    const text = best === 1 || (best < 0 && s.first_message) ? (s.first_message ?? '') : best === 2 ? s.workspace : s.first_message || s.workspace
    hits.push({
      item: { kind: 'session', session: s, where, snippet: snippetAround(text, words[0]!) },
      rank: (best < 0 ? 3 : best) * 10000 + order,
    })
  })
  commands.forEach((c, order) => {
    const hay = norm(`${c.label} ${c.words ?? ''}`)
    if (words.every((w) => hay.includes(w))) hits.push({ item: { kind: 'command', command: c }, rank: (norm(c.label).startsWith(words[0]!) ? 5000 : 35000) + order })
  })
  return hits
    .sort((a, b) => a.rank - b.rank)
    .slice(0, limit)
    .map((h) => h.item)
}

// Showing a command exactly as the shell will read it. A prompt is only worth
// its answer if the human sees what runs: characters that render as nothing
// (zero-width, bidi controls), that reorder what is around them (U+202E), that
// look like ordinary spaces (U+00A0) or that push the dangerous part out of
// view (a run of 4,000 spaces, 60 blank lines) are drawn as visible badges.
import { escapeHtml, highlight } from './html'
import { codePointLabel, invisibleName } from './invisible'

// A piece of one line: visible text, or a badge standing for a run of one
// invisible character (or of more ordinary spaces than a human can count).
export type Piece = { text: string } | { badge: string; title: string }

// Runs of ordinary spaces or tabs longer than this become a badge.
const maxSpaceRun = 8

export function revealLine(line: string): Piece[] {
  const out: Piece[] = []
  let text = ''
  const flush = () => {
    if (text) out.push({ text })
    text = ''
  }
  const cps = Array.from(line)
  for (let i = 0; i < cps.length; ) {
    const ch = cps[i]!
    const cp = ch.codePointAt(0)!
    let j = i + 1
    while (j < cps.length && cps[j] === ch) j++
    const run = j - i
    const name = invisibleName(cp)
    if (name) {
      flush()
      const label = codePointLabel(cp)
      out.push({ badge: run > 1 ? `⟨${label} ×${run}⟩` : `⟨${label}⟩`, title: run > 1 ? `${run} × ${name}` : name })
    } else if ((ch === ' ' || ch === '\t') && run > maxSpaceRun) {
      flush()
      const what = ch === ' ' ? 'spaces' : 'tabs'
      out.push({ badge: `⟨${run} ${what}⟩`, title: `${run} ${what} in a row` })
    } else {
      text += ch.repeat(run)
    }
    i = j
  }
  flush()
  return out
}

// Every invisible or control character of s (counted once per code point).
export function invisibleChars(s: string): { label: string; name: string; count: number }[] {
  const seen = new Map<number, number>()
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (cp !== 0x0a && invisibleName(cp)) seen.set(cp, (seen.get(cp) ?? 0) + 1)
  }
  return [...seen.entries()].map(([cp, count]) => ({ label: codePointLabel(cp), name: invisibleName(cp)!, count }))
}

// revealHtml escapes s, draws its invisible characters as badges and keeps
// its line breaks (optionally highlighting it as code).
export function revealHtml(s: string, hl = false): string {
  return s.split('\n').map((line) => revealLineHtml(line, hl)).join('\n')
}

function revealLineHtml(s: string, hl: boolean): string {
  return revealLine(s)
    .map((p) =>
      'text' in p
        ? hl
          ? highlight(p.text)
          : escapeHtml(p.text)
        : `<span class="inv" title="${escapeHtml(p.title)}">${escapeHtml(p.badge)}</span>`,
    )
    .join('')
}

// A line of a command as shown: its number in the command, whether it holds
// the risky part, and its HTML (escaped, highlighted, badges), or a badge
// for a run of blank lines.
export interface ShownLine {
  n: number
  html: string
  risky: boolean
  blank?: number
}

export interface ShownCommand {
  lines: ShownLine[]
  total: number
  invisible: { label: string; name: string; count: number }[]
}

// Blank lines in a row that are shown one by one; longer runs are a badge.
const maxBlankRun = 2

// showCommand splits cmd into lines, folds runs of blank lines into a
// badge, reveals invisible characters and marks the lines that hold a risky
// program (the programs named by the reasons of the ask).
export function showCommand(cmd: string, risky: string[] = []): ShownCommand {
  const raw = cmd.replace(/\r\n?/g, '\n').split('\n')
  const lines: ShownLine[] = []
  for (let i = 0; i < raw.length; ) {
    if (raw[i]!.trim() === '' && raw.length > 1) {
      let j = i
      while (j < raw.length && raw[j]!.trim() === '' && !hasInvisible(raw[j]!)) j++
      const run = j - i
      if (run > maxBlankRun) {
        lines.push({ n: i + 1, html: `<span class="inv" title="${run} blank lines">⟨${run} blank lines⟩</span>`, risky: false, blank: run })
        i = j
        continue
      }
    }
    const line = raw[i]!
    lines.push({ n: i + 1, html: revealLineHtml(line, true), risky: lineIsRisky(line, risky) })
    i++
  }
  return { lines, total: raw.length, invisible: invisibleChars(cmd) }
}

function hasInvisible(s: string): boolean {
  for (const ch of s) if (invisibleName(ch.codePointAt(0)!)) return true
  return false
}

// A line is risky when one of its simple commands starts with a risky
// program (after sudo/env-style wrappers, by base name).
function lineIsRisky(line: string, risky: string[]): boolean {
  if (!risky.length) return false
  const wrappers = new Set(['sudo', 'env', 'command', 'exec', 'nice', 'nohup', 'time', 'timeout', 'xargs', 'builtin'])
  for (const seg of line.split(/&&|\|\||[;|&(){}`]|\$\(/)) {
    const words = seg.trim().split(/\s+/).filter((w) => w && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
    for (const w of words) {
      const base = w.replace(/^["']|["']$/g, '').split('/').pop() ?? w
      if (risky.includes(base)) return true
      if (!wrappers.has(base) && !/^-/.test(w) && !/^\d+[smhd]?$/.test(w)) break
    }
  }
  return false
}

// The programs a decision names as risky, from the trace's approval step
// ("on-request; destructive-effect: rm -r: removes a whole tree").
export function riskyPrograms(trace: readonly { step: string; saw: string; concluded?: string }[]): string[] {
  const out = new Set<string>()
  for (const s of trace) {
    if (s.step !== 'approval') continue
    for (const m of s.saw.matchAll(/(?:destructive-effect|network-request|unknown-command|protected-path): ([^;:]+)/g)) {
      const prog = m[1]!.trim().split(/\s+/)[0]
      if (prog && /^[\w.+-]+$/.test(prog)) out.add(prog)
    }
  }
  return [...out]
}

// Lines shown while a long command is folded: its head, its tail and every
// risky line, so the end of a command is never out of sight.
export const foldAbove = 12

export function foldedLines(all: ShownLine[], head = 3, tail = 5): (ShownLine | { gap: number })[] {
  if (all.length <= foldAbove) return all
  const keep = new Set<number>()
  all.forEach((l, i) => {
    if (i < head || i >= all.length - tail || l.risky) keep.add(i)
  })
  const out: (ShownLine | { gap: number })[] = []
  let gap = 0
  all.forEach((l, i) => {
    if (keep.has(i)) {
      if (gap) out.push({ gap })
      gap = 0
      out.push(l)
    } else gap += l.blank ?? 1
  })
  if (gap) out.push({ gap })
  return out
}

// proseHtml shows an engine's sentence ("`rm -rf x` would write /etc")
// as prose: what stands between backticks as code, every part revealed
// (escaped, invisible characters as badges), the first letter capitalised
// and a full stop at the end, so two sentences never run together.
export function proseHtml(s: string, capitalize = true): string {
  let t = s.trim()
  if (!t) return ''
  if (!/[.!?:]$/.test(t)) t += '.'
  const parts = t.split('`')
  // An odd backtick has no partner: leave it as text.
  const pairs = parts.length % 2 === 1
  let out = ''
  parts.forEach((p, i) => {
    if (pairs && i % 2 === 1) out += `<code>${revealHtml(p)}</code>`
    else out += revealHtml(i === 0 && capitalize ? p.charAt(0).toUpperCase() + p.slice(1) : p).replace(/\n/g, ' ')
    if (!pairs && i < parts.length - 1) out += '`'
  })
  return out
}

// The reveal rule on the case file the terminal UI's Go tests read too
// (testdata/reveal-cases.json at the repository root): one set of cases,
// two implementations that must agree.
import { describe, expect, it } from 'vitest'
import { foldedLines, invisibleChars, revealLine, riskyPrograms, showCommand, type Piece } from './reveal'
import caseFile from '../../../testdata/reveal-cases.json'

type Text = string | (string | { repeat: string; times: number })[]
interface Cases {
  reveal_line: { name: string; in: Text; want: string }[]
  invisible_chars: { name: string; in: Text; want: { label: string; name: string; count: number }[] }[]
  show_command: { name: string; command: Text; risky: string[]; want_total: number; want: { n: number; text: string; risky: boolean; blank?: number }[] }[]
  fold: { name: string; command: Text; risky: string[]; want: string[] }[]
  risky_programs: { name: string; trace: { step: string; saw: string; concluded: string }[]; want: string[] }[]
}

const cases = caseFile as unknown as Cases

function text(t: Text): string {
  return typeof t === 'string' ? t : t.map((p) => (typeof p === 'string' ? p : p.repeat.repeat(p.times))).join('')
}
const joined = (ps: Piece[]) => ps.map((p) => ('text' in p ? p.text : p.badge)).join('')
// A shown line's text: its HTML with the highlighting taken off and the
// entities read back, which is what a human sees.
const plain = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)

describe('reveal cases (shared with the terminal UI)', () => {
  it('has cases of every kind', () => {
    for (const k of ['reveal_line', 'invisible_chars', 'show_command', 'fold', 'risky_programs'] as const) expect(cases[k].length, k).toBeGreaterThan(3)
  })
  describe('reveal_line', () => {
    for (const c of cases.reveal_line) it(c.name, () => expect(joined(revealLine(text(c.in)))).toBe(c.want))
  })
  describe('invisible_chars', () => {
    for (const c of cases.invisible_chars) it(c.name, () => expect(invisibleChars(text(c.in))).toEqual(c.want))
  })
  describe('show_command', () => {
    for (const c of cases.show_command)
      it(c.name, () => {
        const s = showCommand(text(c.command), c.risky)
        expect(s.total).toBe(c.want_total)
        expect(s.lines.map((l) => ({ n: l.n, text: plain(l.html), risky: l.risky, ...(l.blank ? { blank: l.blank } : {}) }))).toEqual(c.want)
      })
  })
  describe('fold', () => {
    for (const c of cases.fold)
      it(c.name, () => {
        const out = foldedLines(showCommand(text(c.command), c.risky).lines)
        expect(out.map((l) => ('gap' in l ? `gap ${l.gap}` : String(l.n)))).toEqual(c.want)
      })
  })
  describe('risky_programs', () => {
    for (const c of cases.risky_programs) it(c.name, () => expect(riskyPrograms(c.trace)).toEqual(c.want))
  })
})

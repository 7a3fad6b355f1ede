import { describe, expect, it } from 'vitest'
import { foldedLines, invisibleChars, revealHtml, revealLine, riskyPrograms, showCommand } from './reveal'

const badge = (s: string) =>
  revealLine(s)
    .map((p) => ('text' in p ? p.text : p.badge))
    .join('')

describe('revealLine', () => {
  const cases: { name: string; in: string; want: string }[] = [
    { name: 'plain text unchanged', in: 'ls -la src', want: 'ls -la src' },
    { name: 'RLO', in: 'a\u202Eb', want: 'a⟨U+202E⟩b' },
    { name: 'LRI..PDI', in: '\u2066x\u2069', want: '⟨U+2066⟩x⟨U+2069⟩' },
    { name: 'zero-width space', in: 'r\u200Bm', want: 'r⟨U+200B⟩m' },
    { name: 'zero-width joiner', in: 'r\u200Dm', want: 'r⟨U+200D⟩m' },
    { name: 'BOM', in: '\uFEFFls', want: '⟨U+FEFF⟩ls' },
    { name: 'NBSP run counted', in: 'a' + '\u00A0'.repeat(12) + 'b', want: 'a⟨U+00A0 ×12⟩b' },
    { name: 'ideographic space', in: 'a\u3000b', want: 'a⟨U+3000⟩b' },
    { name: 'escape control', in: 'a\u001b[2Jb', want: 'a⟨U+001B⟩[2Jb' },
    { name: 'carriage return', in: 'safe\rrm -rf ~', want: 'safe⟨U+000D⟩rm -rf ~' },
    { name: 'backspace', in: 'rm\b\b', want: 'rm⟨U+0008 ×2⟩' },
    { name: 'C1 control', in: 'a\u009bb', want: 'a⟨U+009B⟩b' },
    { name: 'tag characters', in: 'a\u{E0041}b', want: 'a⟨U+E0041⟩b' },
    { name: 'soft hyphen', in: 'r\u00ADm', want: 'r⟨U+00AD⟩m' },
    { name: 'line separator', in: 'a\u2028b', want: 'a⟨U+2028⟩b' },
    { name: 'short space run kept', in: 'a        b', want: 'a        b' },
    { name: 'long space run counted', in: 'a' + ' '.repeat(200) + 'b', want: 'a⟨200 spaces⟩b' },
    { name: 'long tab run counted', in: 'a' + '\t'.repeat(20) + 'b', want: 'a⟨20 tabs⟩b' },
    { name: 'emoji is not invisible', in: 'echo 🎉', want: 'echo 🎉' },
    { name: 'accents are not invisible', in: 'echo café', want: 'echo café' },
  ]
  for (const c of cases) it(c.name, () => expect(badge(c.in)).toBe(c.want))
})

describe('revealHtml', () => {
  it('escapes HTML and keeps newlines', () => {
    expect(revealHtml('<b>\n&')).toBe('&lt;b&gt;\n&amp;')
  })
  it('never lets a raw bidi character through', () => {
    for (let cp = 0x202a; cp <= 0x202e; cp++) expect(revealHtml(`x${String.fromCodePoint(cp)}y`)).not.toContain(String.fromCodePoint(cp))
  })
})

describe('showCommand', () => {
  it('counts each invisible character once with its total', () => {
    expect(invisibleChars('a\u202Eb\u202Ec\u200B')).toEqual([
      { label: 'U+202E', name: 'bidi control (reorders the text around it)', count: 2 },
      { label: 'U+200B', name: 'zero-width character', count: 1 },
    ])
  })
  it('folds blank runs longer than two into one line', () => {
    const s = showCommand('a\n\n\n\n\nb')
    expect(s.total).toBe(6)
    expect(s.lines.map((l) => l.blank ?? 0)).toEqual([0, 4, 0])
  })
  it('keeps two blank lines as they are', () => {
    expect(showCommand('a\n\n\nb').lines).toHaveLength(4)
  })
  it('marks lines whose program is risky, through wrappers and paths', () => {
    const s = showCommand('echo rm\nsudo /bin/rm -rf x\nls && rm y\nFOO=1 rm z', ['rm'])
    expect(s.lines.map((l) => l.risky)).toEqual([false, true, true, true])
  })
})

describe('foldedLines', () => {
  it('keeps head, tail and risky lines, counting the gaps', () => {
    const all = Array.from({ length: 30 }, (_, i) => ({ n: i + 1, html: String(i), risky: i === 15 }))
    const out = foldedLines(all)
    expect(out.map((l) => ('gap' in l ? `gap${l.gap}` : l.html))).toEqual(['0', '1', '2', 'gap12', '15', 'gap9', '25', '26', '27', '28', '29'])
  })
})

describe('riskyPrograms', () => {
  it('reads the programs from the approval step of the trace', () => {
    expect(
      riskyPrograms([
        { step: 'sandbox', saw: 'rm', concluded: 'admissible' },
        { step: 'approval', saw: 'on-request; destructive-effect: rm -r: removes a whole tree; network-request: curl example.com', concluded: 'ask' },
      ]),
    ).toEqual(['rm', 'curl'])
  })
})

import { describe, expect, it } from 'vitest'
import { proseHtml, revealHtml, showCommand } from './reveal'

// The reveal rule's cases are shared with the terminal UI
// (reveal.cases.test.ts reads testdata/reveal-cases.json); these are the
// window's own: its HTML.

describe('revealHtml', () => {
  it('escapes HTML and keeps newlines', () => {
    expect(revealHtml('<b>\n&')).toBe('&lt;b&gt;\n&amp;')
  })
  it('never lets a raw bidi character through', () => {
    for (let cp = 0x202a; cp <= 0x202e; cp++) expect(revealHtml(`x${String.fromCodePoint(cp)}y`)).not.toContain(String.fromCodePoint(cp))
  })
  it('draws a badge with its words as the title', () => {
    expect(revealHtml('a\u200bb')).toBe('a<span class="inv" title="zero-width character">⟨U+200B⟩</span>b')
  })
})

describe('showCommand', () => {
  it('highlights a shown line and escapes it', () => {
    const s = showCommand('echo "<x>" --force')
    expect(s.lines[0]!.html).toContain('<span class="hl-string">&quot;&lt;x&gt;&quot;</span>')
    expect(s.lines[0]!.html).toContain('<span class="hl-flag"> --force</span>')
  })
  it('titles a folded blank run', () => {
    expect(showCommand('a\n\n\n\nb').lines[1]!.html).toBe('<span class="inv" title="3 blank lines">⟨3 blank lines⟩</span>')
  })
})

describe('proseHtml', () => {
  const cases: { name: string; in: string; want: string }[] = [
    { name: 'code spans become code', in: 'read-only sandbox: `rm -rf x` is destructive (rm -r)', want: 'Read-only sandbox: <code>rm -rf x</code> is destructive (rm -r).' },
    { name: 'a full stop is added once', in: 'network access is off.', want: 'Network access is off.' },
    { name: 'two spans', in: '`a` then `b`', want: '<code>a</code> then <code>b</code>.' },
    { name: 'an odd backtick stays', in: 'it has one ` here', want: 'It has one ` here.' },
    { name: 'HTML is escaped inside and out', in: '`<b>` & <i>', want: '<code>&lt;b&gt;</code> &amp; &lt;i&gt;.' },
    { name: 'invisible characters are badges in code', in: '`r\u200bm`', want: '<code>r<span class="inv" title="zero-width character">⟨U+200B⟩</span>m</code>.' },
    { name: 'empty', in: '  ', want: '' },
  ]
  for (const c of cases) it(c.name, () => expect(proseHtml(c.in)).toBe(c.want))
})

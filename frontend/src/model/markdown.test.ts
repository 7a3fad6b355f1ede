import { describe, expect, it } from 'vitest'
import { highlight } from './html'
import { renderMarkdown } from './markdown'

describe('renderMarkdown', () => {
  const cases: { name: string; src: string; want: string }[] = [
    { name: 'raw HTML stays text', src: '<img src=x onerror=alert(1)>', want: '<p>&lt;img src=x onerror=alert(1)&gt;</p>' },
    { name: 'script tag escaped', src: '<script>alert(1)</script>', want: '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>' },
    { name: 'bold and em', src: '**b** and *e*', want: '<p><strong>b</strong> and <em>e</em></p>' },
    { name: 'inline code is not formatted', src: 'run `**x**`', want: '<p>run <code>**x**</code></p>' },
    { name: 'a link whose text names another host shows the real one', src: '[https://bank.example](https://evil.test/login)', want: '<p><a href="https://evil.test/login" target="_blank" rel="noopener noreferrer">https://bank.example</a> <span class="real-host">(opens evil.test)</span></p>' },
    { name: 'a bare domain as text, another host', src: '[github.com/org/repo](https://gitnub.io/org/repo)', want: '<p><a href="https://gitnub.io/org/repo" target="_blank" rel="noopener noreferrer">github.com/org/repo</a> <span class="real-host">(opens gitnub.io)</span></p>' },
    { name: 'a text naming the same host has no badge', src: '[www.example.com](https://example.com/x)', want: '<p><a href="https://example.com/x" target="_blank" rel="noopener noreferrer">www.example.com</a></p>' },
    { name: 'a subdomain of the named host has no badge', src: '[example.com](https://docs.example.com/)', want: '<p><a href="https://docs.example.com/" target="_blank" rel="noopener noreferrer">example.com</a></p>' },
    { name: 'an IP address as text, another host', src: '[10.0.0.1](https://attacker.test/)', want: '<p><a href="https://attacker.test/" target="_blank" rel="noopener noreferrer">10.0.0.1</a> <span class="real-host">(opens attacker.test)</span></p>' },
    { name: 'https link', src: '[docs](https://example.com/a)', want: '<p><a href="https://example.com/a" target="_blank" rel="noopener noreferrer">docs</a></p>' },
    { name: 'javascript: link stays text', src: '[x](javascript:alert(1))', want: '<p>[x](javascript:alert(1))</p>' },
    { name: 'attribute injection in a link URL is escaped', src: '[x](https://a.b/"onmouseover="y)', want: '<p><a href="https://a.b/&quot;onmouseover=&quot;y" target="_blank" rel="noopener noreferrer">x</a></p>' },
    { name: 'heading', src: '## Title', want: '<h4>Title</h4>' },
    { name: 'list', src: '- a\n- b', want: '<ul><li>a</li><li>b</li></ul>' },
    { name: 'ordered list', src: '1. a\n2. b', want: '<ol><li>a</li><li>b</li></ol>' },
    { name: 'fenced code escaped', src: '```html\n<b>&</b>\n```', want: '<pre class="code" data-lang="html"><code>&lt;b&gt;&amp;&lt;/b&gt;</code></pre>' },
  ]
  for (const c of cases) it(c.name, () => expect(renderMarkdown(c.src)).toBe(c.want))
})

describe('highlight', () => {
  const cases: { name: string; src: string; want: string }[] = [
    { name: 'comment', src: 'ls # x', want: 'ls <span class="hl-comment"># x</span>' },
    { name: 'string', src: 'echo "a<b"', want: 'echo <span class="hl-string">&quot;a&lt;b&quot;</span>' },
    { name: 'flag', src: 'rm -rf x', want: 'rm<span class="hl-flag"> -rf</span> x' },
    { name: 'keyword', src: 'if true', want: '<span class="hl-keyword">if</span> <span class="hl-keyword">true</span>' },
  ]
  for (const c of cases) it(c.name, () => expect(highlight(c.src)).toBe(c.want))
})

describe('renderMarkdown shows invisible characters', () => {
  const cases: { name: string; src: string; has: string; not: string }[] = [
    { name: 'RLO in a paragraph', src: 'rm -rf "notes\u202Etxt.exe"', has: '<span class="inv">⟨U+202E⟩</span>', not: '\u202E' },
    { name: 'zero-width in a code span', src: 'run `r\u200Bm -rf`', has: '⟨U+200B⟩', not: '\u200B' },
    { name: 'isolate in a code block', src: '```\necho \u2066x\u2069\n```', has: '⟨U+2066⟩', not: '\u2066' },
    { name: 'a run of NBSP is counted', src: 'a' + '\u00a0'.repeat(50) + 'b', has: '⟨U+00A0 ×50⟩', not: '\u00a0' },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const html = renderMarkdown(c.src)
      expect(html).toContain(c.has)
      expect(html).not.toContain(c.not)
    })
  }
  it('an invisible character in a link target is percent-encoded, never a tag inside the attribute', () => {
    const html = renderMarkdown('[x](https://a.test/p\u202Eq)')
    expect(html).toContain('href="https://a.test/p%E2%80%AEq"')
  })
})

// A small Markdown renderer that is safe by construction: every character of
// the input is HTML-escaped before any markup is added, and the only markup
// added is a fixed set of tags (no attributes except an http(s) href and a
// class on highlighted tokens). Raw HTML in the input stays visible text.

import { escapeHtml, highlight } from './html'
import { codePointLabel, invisibleName } from './invisible'

// hostOf returns the host a URL-looking text names ("example.com/x",
// "https://a.b"), or '' when the text does not look like an address.
export function hostOf(text: string): string {
  const t = unescapeHtml(text).trim()
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^\s/@]+@)?((?:[a-z0-9-]+\.)+[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::\d+)?(?:[/?#]\S*)?$/i.exec(t)
  return m ? m[1]!.toLowerCase() : ''
}

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)
}

// A link whose text looks like an address of another host than the one it
// opens shows its real host beside the text: [bank.com](https://evil.io)
// reads "bank.com (evil.io)". Both text and href are already escaped.
function link(text: string, rawHref: string): string {
  const href = Array.from(rawHref)
    .map((ch) => (invisibleName(ch.codePointAt(0)!) ? encodeURIComponent(ch) : ch))
    .join('')
  let real = ''
  try {
    real = new URL(unescapeHtml(href)).hostname.toLowerCase()
  } catch {
    return text
  }
  const named = hostOf(text)
  const differs = named !== '' && named !== real && !real.endsWith('.' + named.replace(/^www\./, '')) && named.replace(/^www\./, '') !== real.replace(/^www\./, '')
  const badge = differs ? ` <span class="real-host">(opens ${escapeHtml(real)})</span>` : ''
  return `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>${badge}`
}

function inline(s: string): string {
  // Code spans first, so their contents are not formatted further.
  const parts = s.split(/(`[^`]+`)/g)
  return parts
    .map((p) => {
      if (p.length > 1 && p.startsWith('`') && p.endsWith('`')) return `<code>${escapeHtml(p.slice(1, -1))}</code>`
      let h = escapeHtml(p)
      h = h.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      h = h.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
      // Links: only http(s); the text and URL are already escaped.
      h = h.replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, text: string, href: string) => link(text, href))
      return h
    })
    .join('')
}

// badgeInvisible draws every invisible or control character left in the
// rendered HTML (line breaks and tabs excepted) as a badge, as the prompt
// does: a message cannot show its text in another order (U+202E) or hide a
// part of it. Hrefs were percent-encoded before, so no attribute holds one.
function badgeInvisible(html: string): string {
  let out = ''
  const cps = Array.from(html)
  for (let i = 0; i < cps.length; ) {
    const cp = cps[i]!.codePointAt(0)!
    const name = cp === 0x0a || cp === 0x09 ? null : invisibleName(cp)
    if (!name) {
      out += cps[i]
      i++
      continue
    }
    let j = i + 1
    while (j < cps.length && cps[j] === cps[i]) j++
    const label = codePointLabel(cp) + (j - i > 1 ? ` ×${j - i}` : '')
    out += `<span class="inv">⟨${label}⟩</span>`
    i = j
  }
  return out
}

export function renderMarkdown(src: string): string {
  return badgeInvisible(renderPlain(src))
}

function renderPlain(src: string): string {
  const lines = src.replace(/\r\n/g, '\n').split('\n')
  const out: string[] = []
  let para: string[] = []
  let list: { ordered: boolean; items: string[] } | null = null
  const flushPara = () => {
    if (para.length) out.push(`<p>${para.map(inline).join('<br>')}</p>`)
    para = []
  }
  const flushList = () => {
    if (list) {
      const tag = list.ordered ? 'ol' : 'ul'
      out.push(`<${tag}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${tag}>`)
    }
    list = null
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const fence = /^\s*```\s*([\w+-]*)\s*$/.exec(line)
    if (fence) {
      flushPara()
      flushList()
      const body: string[] = []
      i++
      while (i < lines.length && !/^\s*```\s*$/.test(lines[i]!)) body.push(lines[i++]!)
      const lang = fence[1] ? ` data-lang="${escapeHtml(fence[1])}"` : ''
      out.push(`<pre class="code"${lang}><code>${highlight(body.join('\n'))}</code></pre>`)
      continue
    }
    const h = /^(#{1,4})\s+(.*)$/.exec(line)
    if (h) {
      flushPara()
      flushList()
      const n = h[1]!.length + 2 // h3..h6: a chat message has no page title
      out.push(`<h${n}>${inline(h[2]!)}</h${n}>`)
      continue
    }
    const li = /^\s*([-*]|\d+[.)])\s+(.*)$/.exec(line)
    if (li) {
      flushPara()
      const ordered = /\d/.test(li[1]!)
      if (list && list.ordered !== ordered) flushList()
      list ??= { ordered, items: [] }
      list.items.push(li[2]!)
      continue
    }
    if (line.trim() === '') {
      flushPara()
      flushList()
      continue
    }
    flushList()
    para.push(line)
  }
  flushPara()
  flushList()
  return out.join('')
}

// HTML text for the window: escaping and code highlighting, shared by the
// Markdown renderer and the command reveal (neither imports the other).

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

const keywords = new Set(
  (
    'if then else elif fi for while do done case esac function return in export local ' +
    'const let var func def class import from package interface struct defer async await ' +
    'true false null nil None True False try catch finally throw'
  ).split(' '),
)

// highlight marks strings, comments, numbers, keywords and (shell) flags.
export function highlight(code: string): string {
  const re = /(#[^\n]*|\/\/[^\n]*)|("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|`[^`]*`)|(\b\d+(?:\.\d+)?\b)|(\s--?[A-Za-z][\w-]*)|([A-Za-z_][\w]*)/g
  let out = ''
  let last = 0
  for (let m = re.exec(code); m; m = re.exec(code)) {
    out += escapeHtml(code.slice(last, m.index))
    last = m.index + m[0].length
    const [t, comment, string, num, flag, word] = m
    if (comment) out += `<span class="hl-comment">${escapeHtml(t)}</span>`
    else if (string) out += `<span class="hl-string">${escapeHtml(t)}</span>`
    else if (num) out += `<span class="hl-number">${escapeHtml(t)}</span>`
    else if (flag) out += `<span class="hl-flag">${escapeHtml(t)}</span>`
    else if (word && keywords.has(word)) out += `<span class="hl-keyword">${escapeHtml(t)}</span>`
    else out += escapeHtml(t)
  }
  return out + escapeHtml(code.slice(last))
}

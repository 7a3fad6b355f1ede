import type { NetworkArgs, NetworkSettings } from '../bridge'

// The Network card's form: ticked presets and one pattern per line.
export interface NetworkForm {
  enabled: string[]
  allow: string
  deny: string
}

export const networkForm = (n: NetworkSettings): NetworkForm => ({
  enabled: [...n.enabled],
  allow: n.allow.join('\n'),
  deny: n.deny.join('\n'),
})

// lines splits a textarea into patterns: one per line or comma, trimmed,
// blanks and repeats dropped.
export function lines(text: string): string[] {
  const out: string[] = []
  for (const part of text.split(/[\n,]/)) {
    const p = part.trim()
    if (p && !out.includes(p)) out.push(p)
  }
  return out
}

export const networkArgs = (f: NetworkForm): NetworkArgs => ({ enabled: [...f.enabled], allow: lines(f.allow), deny: lines(f.deny) })

export function networkEqual(f: NetworkForm, n: NetworkSettings): boolean {
  const a = networkArgs(f)
  const same = (x: string[], y: string[]) => x.length === y.length && x.every((v) => y.includes(v))
  return same(a.enabled, n.enabled) && same(a.allow, n.allow) && same(a.deny, n.deny)
}

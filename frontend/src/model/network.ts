// How a network_connection event reads in the chat and the audit trail:
// "Network: registry.npmjs.org (allowed by workspace rule)".

import { reasonLabel } from './words'

const s = (v: unknown) => (typeof v === 'string' ? v : '')

// allowedBy turns an allow source into words.
export function allowedBy(source: string): string {
  if (source.startsWith('network-allow:')) return `[network] allow ${source.slice('network-allow:'.length)}`
  if (source.startsWith('workspace-rule:')) return 'workspace rule'
  if (source.startsWith('session-grant:')) return 'session grant'
  if (source === 'human:once') return 'you, once'
  if (source === 'human:always') return 'you, always'
  if (source === 'sandbox+policy') return 'approval never'
  if (source.startsWith('browser-call:')) return 'the browser call that opened it'
  return source || 'policy'
}

// destination is host, with the port unless it is the usual one.
export function destination(d: Record<string, unknown>): string {
  const host = s(d.host)
  const port = typeof d.port === 'number' ? d.port : 0
  const shown = host.includes(':') ? `[${host}]` : host
  return port && port !== 443 && port !== 80 ? `${shown}:${port}` : shown
}

// connectionText is one connection in a line.
export function connectionText(d: Record<string, unknown>): string {
  const dest = destination(d)
  if (d.allowed === true) {
    const failed = s(d.error) ? ` — failed: ${s(d.error)}` : ''
    return `Network: ${dest} (allowed by ${allowedBy(s(d.allowed_by))})${failed}`
  }
  return `Network: ${dest} refused (${reasonLabel(s(d.reason)) || 'no reason given'})${s(d.detail) ? ': ' + s(d.detail) : ''}`
}

// bytesText is "1.2 MB down, 3 kB up".
export function bytesText(d: Record<string, unknown>): string {
  const f = (n: unknown) => {
    const v = typeof n === 'number' ? n : 0
    if (v >= 1e6) return `${(v / 1e6).toFixed(1)} MB`
    if (v >= 1e3) return `${(v / 1e3).toFixed(1)} kB`
    return `${v} B`
  }
  return `${f(d.bytes_down)} down, ${f(d.bytes_up)} up`
}

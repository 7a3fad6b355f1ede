// The "Answer from another device" popover's words: a link's lifetime and
// why no link could be made.
import type { BridgeError, RemoteLink } from '../bridge'

export interface RemoteLinkView {
  link: RemoteLink | null
  error: string
  busy: boolean
}

// The backend's refusals (backend/gate/remote, backend/runtime) with what
// the user can do about each; anything else is shown as the backend said it.
const known: { match: RegExp; text: string }[] = [
  {
    match: /organisation's policy does not allow answers from another device/,
    text: "Your organisation's policy does not allow answering from another device. Answer here instead.",
  },
  {
    match: /no address serves remote links|answering from another device is not set up/,
    text:
      'Answering from another device is not available in this window: no address serves the links. ' +
      'Run `warden serve`, or set `address` under `[remote]` in your config.toml and restart Warden.',
  },
  {
    match: /no live ask with that request id/,
    text: 'This ask no longer waits for an answer (it was answered, or its turn ended), so no link was made.',
  },
]

export function remoteErrorText(e: BridgeError): string {
  if (e.code === 'no_backend' || e.code === 'network' || e.code === 'unauthorized') return `No link was made: ${e.message}`
  const k = known.find((k) => k.match.test(e.message))
  return k ? k.text : `No link was made: ${e.message}`
}

// "expires at 15:04 (in 3 min)"; the ask's answer ends it sooner.
export function expiryText(expiresAt: number, now: number): string {
  const left = Math.max(0, Math.round((expiresAt - now) / 60000))
  const at = new Date(expiresAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  return `${at} (${left < 1 ? 'in less than a minute' : `in ${left} min`})`
}

// The QR code as an image: an <img> never runs what an SVG might carry.
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`
}

// A link on a loopback address opens on this computer only: the user is
// told before walking off with a phone.
export function loopbackNote(url: string): string {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return ''
  }
  const loop = host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host)
  return loop
    ? `This link is on ${host}, which only this computer can open. For a phone or another computer, set \`address\` under \`[remote]\` in your config.toml (or start \`warden serve --remote-addr host:port\`) to an address it can reach.`
    : ''
}

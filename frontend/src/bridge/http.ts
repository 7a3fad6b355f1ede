import { BridgeError, toBridgeError } from './errors'
import type { Bridge, Method, Methods, Push } from './types'

export interface HttpOptions {
  base: string // e.g. http://127.0.0.1:7777
  token: string
  fetch?: typeof fetch
  WebSocket?: typeof WebSocket
}

// The `warden serve` transport: POST /api/<Method> with a JSON body and the
// token as a bearer header; pushes arrive on the WebSocket /api/ws, which
// carries the token as a query parameter (browsers cannot set its headers).
export function createHttpBridge(o: HttpOptions): Bridge {
  const doFetch = o.fetch ?? fetch.bind(globalThis)
  const WS = o.WebSocket ?? globalThis.WebSocket
  const listeners = new Set<(p: Push) => void>()
  let socket: WebSocket | null = null
  let retry = 250

  function connect() {
    const url = o.base.replace(/^http/, 'ws') + '/api/ws?token=' + encodeURIComponent(o.token)
    const ws = new WS(url)
    socket = ws
    ws.onopen = () => {
      retry = 250
    }
    ws.onmessage = (m: MessageEvent) => {
      let p: Push
      try {
        p = JSON.parse(String(m.data)) as Push
      } catch {
        return
      }
      for (const l of listeners) l(p)
    }
    ws.onclose = () => {
      socket = null
      if (listeners.size === 0) return
      // The server may restart; reconnect with a capped back-off.
      setTimeout(() => {
        if (listeners.size > 0 && !socket) connect()
      }, retry)
      retry = Math.min(retry * 2, 5000)
    }
  }

  return {
    transport: 'http',
    native: { dialogs: false },
    async call<M extends Method>(method: M, args?: Methods[M][0]): Promise<Methods[M][1]> {
      let res: Response
      try {
        res = await doFetch(`${o.base}/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${o.token}` },
          body: JSON.stringify(args ?? {}),
        })
      } catch (e) {
        throw new BridgeError('network', method, `cannot reach warden serve: ${toBridgeError(method, e).message}`)
      }
      const text = await res.text()
      let body: unknown = null
      if (text) {
        try {
          body = JSON.parse(text)
        } catch {
          body = text
        }
      }
      if (!res.ok) {
        const msg =
          (body && typeof body === 'object' && 'error' in body ? String((body as { error: unknown }).error) : '') ||
          (typeof body === 'string' && body) ||
          `HTTP ${res.status}`
        throw new BridgeError(res.status === 401 || res.status === 403 ? 'unauthorized' : 'backend', method, msg)
      }
      return body as Methods[M][1]
    },
    subscribe(fn: (p: Push) => void): () => void {
      listeners.add(fn)
      if (!socket) connect()
      return () => {
        listeners.delete(fn)
        if (listeners.size === 0 && socket) {
          const s = socket
          socket = null
          s.close()
        }
      }
    },
  }
}

import { BridgeError, toBridgeError } from './errors'
import type { Bridge, Method, Methods, Push } from './types'

export interface HttpOptions {
  base: string // e.g. http://127.0.0.1:7777
  // code is the one-time sign-in code from the URL `warden serve` printed;
  // the bridge trades it for the session cookie before its first call.
  code?: string
  // token is a bearer secret for programmatic clients; the page has none.
  token?: string
  fetch?: typeof fetch
  WebSocket?: typeof WebSocket
}

// The `warden serve` transport: POST /api/<Method> with a JSON body; pushes
// arrive on the WebSocket /api/ws. Both are signed in by the HttpOnly
// session cookie that POST /api/auth sets in exchange for the one-time code,
// so no secret ever sits in a URL or in reach of page scripts.
export function createHttpBridge(o: HttpOptions): Bridge {
  const doFetch = o.fetch ?? fetch.bind(globalThis)
  const WS = o.WebSocket ?? globalThis.WebSocket
  const listeners = new Set<(p: Push) => void>()
  let socket: WebSocket | null = null
  let retry = 250
  // Why signing in failed, to explain a later 401 better than "not signed
  // in" (e.g. the printed URL was opened a second time).
  let signInError = ''
  const signedIn: Promise<void> = o.code ? exchange(o.code) : Promise.resolve()

  async function exchange(code: string): Promise<void> {
    try {
      const res = await doFetch(`${o.base}/api/auth`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code }),
      })
      if (!res.ok) signInError = errorText(await res.text(), res.status)
    } catch (e) {
      signInError = `cannot reach warden serve: ${toBridgeError('auth', e).message}`
    }
  }

  function connect() {
    const url = o.base.replace(/^http/, 'ws') + '/api/ws'
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
      await signedIn
      let res: Response
      const headers: Record<string, string> = { 'Content-Type': 'application/json' }
      if (o.token) headers.Authorization = `Bearer ${o.token}`
      try {
        res = await doFetch(`${o.base}/api/${method}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers,
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
        let msg = errorOf(body, res.status)
        if (res.status === 401 && signInError) msg = `${msg} (signing in failed: ${signInError})`
        throw new BridgeError(res.status === 401 || res.status === 403 ? 'unauthorized' : 'backend', method, msg)
      }
      return body as Methods[M][1]
    },
    subscribe(fn: (p: Push) => void): () => void {
      listeners.add(fn)
      // The handshake must carry the cookie, so it waits for signing in.
      void signedIn.then(() => {
        if (listeners.size > 0 && !socket) connect()
      })
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

function errorOf(body: unknown, status: number): string {
  return (
    (body && typeof body === 'object' && 'error' in body ? String((body as { error: unknown }).error) : '') ||
    (typeof body === 'string' && body) ||
    `HTTP ${status}`
  )
}

function errorText(text: string, status: number): string {
  try {
    return errorOf(JSON.parse(text), status)
  } catch {
    return errorOf(text, status)
  }
}

import { toBridgeError } from './errors'
import type { Bridge, Method, Methods, Push } from './types'

type Bound = Record<string, ((args?: unknown) => Promise<unknown>) | undefined>
type WailsWindow = {
  go?: { app?: { App?: Bound } }
  runtime?: { EventsOnMultiple?: (name: string, cb: (...data: unknown[]) => void, max: number) => () => void }
}

// The desktop transport: calls the Go methods Wails bound to the window as
// window.go.app.App.<Method>(args) and listens to "warden:push".
export function createWailsBridge(win: WailsWindow): Bridge {
  const bound = (m: string) => typeof win.go?.app?.App?.[m] === 'function'
  return {
    transport: 'wails',
    // Follows what Go bound, so the UI never offers a button whose call
    // would fail with "does not bind".
    native: {
      get dialogs() {
        return bound('SaveAuditExport') && bound('PickFolder')
      },
    },
    async call<M extends Method>(method: M, args?: Methods[M][0]): Promise<Methods[M][1]> {
      const fn = win.go?.app?.App?.[method]
      if (!fn) {
        throw toBridgeError(method, `the desktop app does not bind ${method}`)
      }
      try {
        const r = args === undefined ? await fn() : await fn(args)
        return (r ?? null) as Methods[M][1]
      } catch (reason) {
        throw toBridgeError(method, reason)
      }
    },
    subscribe(fn: (p: Push) => void): () => void {
      const on = win.runtime?.EventsOnMultiple
      if (!on) return () => {}
      return on('warden:push', (data: unknown) => fn(data as Push), -1)
    },
  }
}

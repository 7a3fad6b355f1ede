import { inject } from 'vue'
import { BridgeError } from './errors'
import { createHttpBridge } from './http'
import { BridgeKey } from './key'
import type { Bridge } from './types'
import { createWailsBridge } from './wails'

export type * from './types'
export { BridgeError, toBridgeError, type BridgeErrorCode } from './errors'
export { createHttpBridge } from './http'
export { createWailsBridge } from './wails'

export { BridgeKey }
export { useFolderPicker } from './dialogs'

// Wails injects its bindings as window.go.<package>.<struct> before the page's
// scripts run, so their presence decides the transport at start.
export function hasWailsBindings(win: object): boolean {
  const go = (win as { go?: { app?: { App?: unknown } } }).go
  return typeof go?.app?.App === 'object' && go.app.App !== null
}

// The transport used when no backend is reachable: every call fails with a
// 'no_backend' error, so the UI says so instead of showing made-up data.
export function createDisconnectedBridge(): Bridge {
  return {
    transport: 'none',
    native: { dialogs: false },
    call: (method) =>
      Promise.reject(
        new BridgeError('no_backend', method, 'No backend: open the URL `warden serve` printed, or run the desktop app.'),
      ),
    subscribe: () => () => {},
  }
}

// Wails in the desktop window; under `warden serve` the page URL carries
// ?token= (the server also sets a cookie, but the API wants the header).
export function selectBridge(win: object & { location?: { href: string; origin: string } }): Bridge {
  if (hasWailsBindings(win)) return createWailsBridge(win as Parameters<typeof createWailsBridge>[0])
  const loc = win.location
  if (loc) {
    const token = new URL(loc.href).searchParams.get('token')
    if (token) return createHttpBridge({ base: loc.origin, token })
  }
  return createDisconnectedBridge()
}

export function useBridge(): Bridge {
  const bridge = inject(BridgeKey)
  if (!bridge) {
    throw new Error('useBridge: no Bridge provided; install it with app.provide(BridgeKey, bridge)')
  }
  return bridge
}

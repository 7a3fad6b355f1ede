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
// The words of reasons, axis values, layers and tools, generated from
// backend/policy/words.go: the window shows the words the TUI and CLI show.
export { reasonWords, approvalWords, sandboxWords, layerWords, toolWords } from './api.gen'
export { answererStateWords, answererKindWords, answererTierWords, answerWords as answererAnswerWords } from './api.gen'

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

type PageWindow = object & {
  location?: { href: string; origin: string }
  history?: { state: unknown; replaceState(data: unknown, unused: string, url?: string): void }
}

// Wails in the desktop window; any http(s) page is `warden serve`'s. The
// URL it printed carries a one-time ?code=, which leaves the address bar
// (and so the history) at once and is traded for the session cookie; a
// reload or a later visit rides on that cookie.
export function selectBridge(win: PageWindow): Bridge {
  if (hasWailsBindings(win)) return createWailsBridge(win as Parameters<typeof createWailsBridge>[0])
  const loc = win.location
  if (loc && /^https?:/.test(loc.href)) {
    const url = new URL(loc.href)
    const code = url.searchParams.get('code') ?? undefined
    if (code !== undefined) {
      url.searchParams.delete('code')
      win.history?.replaceState(win.history.state, '', url.pathname + url.search + url.hash)
    }
    return createHttpBridge(code === undefined ? { base: loc.origin } : { base: loc.origin, code })
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

import { inject, type InjectionKey } from 'vue'
import { createDisconnectedBridge } from './disconnected'
import type { Bridge } from './types'
import { createWailsBridge } from './wails'

export type { AppInfo, Bridge, SandboxStatus, Transport } from './types'
export { BridgeError, toBridgeError, type BridgeErrorCode } from './errors'

export const BridgeKey: InjectionKey<Bridge> = Symbol('bridge')

// Wails injects its bindings as window.go.<package>.<struct> before the page's
// scripts run, so their presence decides the transport at start.
export function hasWailsBindings(win: object): boolean {
  const go = (win as { go?: { app?: { App?: unknown } } }).go
  return typeof go?.app?.App === 'object' && go.app.App !== null
}

export function selectBridge(win: object): Bridge {
  return hasWailsBindings(win) ? createWailsBridge() : createDisconnectedBridge()
}

export function useBridge(): Bridge {
  const bridge = inject(BridgeKey)
  if (!bridge) {
    throw new Error('useBridge: no Bridge provided; install it with app.provide(BridgeKey, bridge)')
  }
  return bridge
}

import { BridgeError } from './errors'
import type { Bridge } from './types'

const reason = 'No backend: this page is not running inside the Warden desktop app.'

// The transport used when no backend is reachable: every call fails with a
// 'no_backend' error, so the UI says so instead of showing made-up data.
export function createDisconnectedBridge(): Bridge {
  const fail = (operation: string) => Promise.reject(new BridgeError('no_backend', operation, reason))
  return {
    transport: 'none',
    info: () => fail('info'),
    sandboxStatus: () => fail('sandboxStatus'),
    frontendReady: () => fail('frontendReady'),
  }
}

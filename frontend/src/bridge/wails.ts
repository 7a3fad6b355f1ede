import { FrontendReady, Info, SandboxStatus as SandboxStatusCall } from '../../wailsjs/go/app/App'
import { toBridgeError } from './errors'
import type { AppInfo, Bridge, SandboxStatus } from './types'

async function call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (reason) {
    throw toBridgeError(operation, reason)
  }
}

// The desktop transport: calls the Go methods Wails bound to the window.
export function createWailsBridge(): Bridge {
  return {
    transport: 'wails',
    info: () =>
      call('info', async (): Promise<AppInfo> => {
        const r = await Info()
        return { name: r.name, version: r.version }
      }),
    sandboxStatus: () =>
      call('sandboxStatus', async (): Promise<SandboxStatus> => {
        const r = await SandboxStatusCall()
        return { available: r.available, mechanism: r.mechanism, version: r.version, detail: r.detail }
      }),
    frontendReady: () => call('frontendReady', () => FrontendReady()),
  }
}

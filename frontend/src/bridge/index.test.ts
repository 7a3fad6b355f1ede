import { afterEach, describe, expect, it } from 'vitest'
import { BridgeError, hasWailsBindings, selectBridge } from '.'

// Wails' generated App.js calls window.go.app.App.<Method>() at call time.
function installWailsBindings(app: Record<string, (...args: unknown[]) => Promise<unknown>>) {
  ;(window as unknown as { go?: unknown }).go = { app: { App: app } }
}

afterEach(() => {
  delete (window as unknown as { go?: unknown }).go
})

describe('hasWailsBindings', () => {
  const cases: { name: string; win: object; want: boolean }[] = [
    { name: 'plain browser window', win: {}, want: false },
    { name: 'go without app', win: { go: {} }, want: false },
    { name: 'App is null', win: { go: { app: { App: null } } }, want: false },
    { name: 'bound App', win: { go: { app: { App: {} } } }, want: true },
  ]
  for (const c of cases) {
    it(c.name, () => expect(hasWailsBindings(c.win)).toBe(c.want))
  }
})

describe('selectBridge', () => {
  it('without Wails every call fails with no_backend', async () => {
    const bridge = selectBridge({})
    expect(bridge.transport).toBe('none')
    for (const call of [bridge.info, bridge.sandboxStatus, bridge.frontendReady]) {
      const err = await call().catch((e: unknown) => e)
      expect(err).toBeInstanceOf(BridgeError)
      expect((err as BridgeError).code).toBe('no_backend')
    }
  })

  it('with Wails it calls the bound methods and copies plain data', async () => {
    installWailsBindings({
      Info: () => Promise.resolve({ name: 'Warden', version: '2.0.0', extra: 'dropped' }),
      SandboxStatus: () =>
        Promise.resolve({ available: false, mechanism: 'bubblewrap', version: '', detail: 'bwrap not found' }),
      FrontendReady: () => Promise.resolve(),
    })
    const bridge = selectBridge(window)
    expect(bridge.transport).toBe('wails')
    expect(await bridge.info()).toEqual({ name: 'Warden', version: '2.0.0' })
    expect(await bridge.sandboxStatus()).toEqual({
      available: false,
      mechanism: 'bubblewrap',
      version: '',
      detail: 'bwrap not found',
    })
    await expect(bridge.frontendReady()).resolves.toBeUndefined()
  })

  it('with Wails a Go error string becomes a typed backend error', async () => {
    installWailsBindings({ FrontendReady: () => Promise.reject('write ready marker: permission denied') })
    const err = await selectBridge(window)
      .frontendReady()
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BridgeError)
    expect(err).toMatchObject({
      code: 'backend',
      operation: 'frontendReady',
      message: 'write ready marker: permission denied',
    })
  })
})

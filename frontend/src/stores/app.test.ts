import { createPinia, setActivePinia } from 'pinia'
import { createApp } from 'vue'
import { describe, expect, it } from 'vitest'
import { BridgeError, BridgeKey, type Bridge } from '../bridge'
import { fakeBridge } from '../testing/fakeBridge'
import { useAppStore } from './app'

// Stores inject the bridge, so they run inside an app that provides one.
function storeWith(bridge: Bridge) {
  const app = createApp({})
  const pinia = createPinia()
  app.provide(BridgeKey, bridge)
  app.use(pinia)
  setActivePinia(pinia)
  return app.runWithContext(() => useAppStore())
}

describe('app store', () => {
  it('loads info and sandbox status', async () => {
    const store = storeWith(fakeBridge({ info: { name: 'Warden', version: '3.1.4' } }))
    const pending = store.load()
    expect(store.loading).toBe(true)
    await pending
    expect(store.loading).toBe(false)
    expect(store.info).toEqual({ name: 'Warden', version: '3.1.4' })
    expect(store.sandbox?.available).toBe(true)
    expect(store.infoError).toBeNull()
    expect(store.sandboxError).toBeNull()
  })

  it('keeps the info when the sandbox probe fails', async () => {
    const store = storeWith(fakeBridge({ sandbox: new BridgeError('backend', 'sandboxStatus', 'probe crashed') }))
    await store.load()
    expect(store.info?.version).toBe('1.0.0')
    expect(store.sandbox).toBeNull()
    expect(store.sandboxError).toMatchObject({ code: 'backend', message: 'probe crashed' })
  })

  it('records no_backend for both when there is no transport', async () => {
    const noBackend = new BridgeError('no_backend', 'x', 'No backend')
    const store = storeWith(fakeBridge({ transport: 'none', info: noBackend, sandbox: noBackend }))
    await store.load()
    expect(store.transport).toBe('none')
    expect(store.infoError?.code).toBe('no_backend')
    expect(store.sandboxError?.code).toBe('no_backend')
  })
})

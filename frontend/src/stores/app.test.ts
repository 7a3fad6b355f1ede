import { createPinia, setActivePinia } from 'pinia'
import { describe, expect, it, vi } from 'vitest'
import { createApp } from 'vue'
import { BridgeError, BridgeKey } from '../bridge'
import { fakeBridge, testInfo } from '../testing/fakeBridge'
import { useAppStore } from './app'

function storeWith(info: () => unknown) {
  const f = fakeBridge({ transport: 'http', handlers: { Info: info as never } })
  const app = createApp({})
  app.provide(BridgeKey as symbol, f.bridge)
  const pinia = createPinia()
  app.use(pinia)
  setActivePinia(pinia)
  return app.runWithContext(() => useAppStore())
}

describe('app store heartbeat', () => {
  it('a network failure marks the backend lost; the next answer brings it back and rehydrates', async () => {
    let down = true
    const s = storeWith(() => {
      if (down) throw new BridgeError('network', 'Info', 'cannot reach warden serve: fetch failed')
      return testInfo
    })
    const back = vi.fn()
    const stop = s.startHeartbeat(1_000_000, back)
    await s.probe()
    expect(s.online).toBe(false)
    down = false
    await s.probe()
    expect(s.online).toBe(true)
    expect(back).toHaveBeenCalledTimes(1)
    await s.probe()
    expect(back).toHaveBeenCalledTimes(1)
    stop()
  })
  it('a backend error that is an answer keeps it online', async () => {
    const s = storeWith(() => {
      throw new BridgeError('backend', 'Info', 'database is locked')
    })
    await s.probe()
    expect(s.online).toBe(true)
  })
})

import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import App from './App.vue'
import { BridgeError, BridgeKey, type Bridge } from './bridge'
import { fakeBridge } from './testing/fakeBridge'

function mountWith(bridge: Bridge) {
  return mount(App, { global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: bridge } } })
}

describe('App', () => {
  it('renders the shell, then tells the backend it is ready, once', async () => {
    const bridge = fakeBridge({ info: { name: 'Warden', version: '0.1.0' } })
    const w = mountWith(bridge)
    await flushPromises()
    expect(w.text()).toContain('No sessions yet')
    expect(w.text()).toContain('Agent runtime not connected')
    expect(w.get('[data-testid="version"]').text()).toBe('Warden v0.1.0')
    expect(bridge.frontendReady).toHaveBeenCalledTimes(1)
    // Ready is sent only after the data it reports on has arrived.
    const readyOrder = bridge.frontendReady.mock.invocationCallOrder[0]
    expect(readyOrder).toBeGreaterThan(bridge.info.mock.invocationCallOrder[0] ?? Infinity)
  })

  it('without a backend shows that and does not call ready', async () => {
    const noBackend = new BridgeError('no_backend', 'x', 'No backend')
    const bridge = fakeBridge({ transport: 'none', info: noBackend, sandbox: noBackend })
    const w = mountWith(bridge)
    await flushPromises()
    expect(w.get('[data-testid="sandbox"]').text()).toBe('Sandbox: unknown (no backend)')
    expect(bridge.frontendReady).not.toHaveBeenCalled()
  })
})

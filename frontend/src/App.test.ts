import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import App from './App.vue'
import { BridgeError, BridgeKey, type Approval, type Bridge } from './bridge'
import { useAnswerersStore } from './stores/answerers'
import { fakeBridge, testSession } from './testing/fakeBridge'

function mountWith(bridge: Bridge, pinia = createPinia()) {
  return mount(App, { global: { plugins: [pinia], provide: { [BridgeKey as symbol]: bridge } }, attachTo: document.body })
}

const approval: Approval = {
  request_id: 'r1',
  session_id: 's1',
  call_id: 'c1',
  tool: 'shell.exec',
  args: { command: 'rm -rf build' },
  risk: 'high',
  reasons: ['destructive-effect'],
  signature: 'shell:rm',
  effects: [],
  trace: [],
  created_at: 1,
  live: true,
}

describe('App', () => {
  it('hands pushes to the answerers store: an answer re-reads the roster shown', async () => {
    const f = fakeBridge({ handlers: { ListSessions: () => [testSession()] } })
    const pinia = createPinia()
    const w = mountWith(f.bridge, pinia)
    await flushPromises()
    await useAnswerersStore(pinia).load('s1')
    const reads = () => f.call.mock.calls.filter((c) => c[0] === 'Answerers').length
    expect(reads()).toBe(1)
    f.push({ type: 'event', event: { seq: 9, session_id: 's1', version: 9, kind: 'answerer_answered', at: 9, data: { kind: 'command', answer: 'pass' } } })
    await flushPromises()
    expect(reads()).toBe(2)
    w.unmount()
  })

  it('hydrates, then tells the backend it is ready, once', async () => {
    const f = fakeBridge({ handlers: { ListSessions: () => [testSession()] } })
    const w = mountWith(f.bridge)
    await flushPromises()
    expect(w.text()).toContain('Fix the tests')
    expect(w.get('[data-testid="version"]').text()).toBe('Warden v0.1.0')
    const ready = f.call.mock.calls.filter((c) => c[0] === 'FrontendReady')
    expect(ready).toHaveLength(1)
    const order = f.call.mock.invocationCallOrder
    const idx = (m: string) => f.call.mock.calls.findIndex((c) => c[0] === m)
    expect(order[idx('FrontendReady')]).toBeGreaterThan(order[idx('Info')]!)
    w.unmount()
  })

  it('without a backend says so and does not call ready', async () => {
    const noBackend = new BridgeError('no_backend', 'x', 'No backend')
    const f = fakeBridge({
      transport: 'none',
      handlers: {
        Info: () => {
          throw noBackend
        },
      },
    })
    const w = mountWith(f.bridge)
    await flushPromises()
    expect(w.get('[data-testid="cage"]').text()).toBe('No backend')
    expect(f.call.mock.calls.some((c) => c[0] === 'FrontendReady')).toBe(false)
    w.unmount()
  })

  it('a pushed approval opens the prompt; answering sends Answer and closes it', async () => {
    const f = fakeBridge({ handlers: { ListSessions: () => [testSession()], Answer: () => null } })
    const w = mountWith(f.bridge)
    await flushPromises()
    expect(w.find('[role="dialog"]').exists()).toBe(false)
    f.push({ type: 'approval', approval })
    await flushPromises()
    expect(w.get('[role="dialog"]').attributes('aria-label')).toBe('Permission request')
    await w.findAll('button').find((b) => b.text() === 'Allow once')!.trigger('click')
    await flushPromises()
    expect(f.call).toHaveBeenCalledWith('Answer', { request_id: 'r1', answer: 'once' })
    expect(w.find('[role="dialog"]').exists()).toBe(false)
    w.unmount()
  })

  it('pushed events fold into the open transcript', async () => {
    const f = fakeBridge({ handlers: { ListSessions: () => [testSession()] } })
    const w = mountWith(f.bridge)
    await flushPromises()
    f.push({ type: 'delta', session_id: 's1', text: 'Hel' })
    await flushPromises()
    expect(w.text()).toContain('Hel')
    f.push({
      type: 'event',
      event: { seq: 5, session_id: 's1', version: 2, kind: 'message_appended', at: 1, data: { role: 'assistant', text: 'Hello **there**' } },
    })
    await flushPromises()
    expect(w.find('strong').text()).toBe('there')
    w.unmount()
  })
})

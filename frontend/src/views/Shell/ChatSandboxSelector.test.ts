import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { BridgeError, BridgeKey, type Bridge, type Sandbox, type Transport } from '../../bridge'
import { fakeBridge } from '../../testing/fakeBridge'
import ChatSandboxSelector from './ChatSandboxSelector.vue'

const ws: Sandbox = { kind: 'workspace-write', network_access: false, writable_roots: [] }
const browse = 'button[aria-label="Browse for a writable root"]'
const field = 'input[aria-label="New writable root"]'

async function openRoots(bridge: Bridge | null) {
  const w = mount(ChatSandboxSelector, { props: { modelValue: ws }, global: { provide: bridge ? { [BridgeKey as symbol]: bridge } : {} } })
  await w.get('button.link').trigger('click')
  return w
}

describe('ChatSandboxSelector writable-root picker', () => {
  const shown: { name: string; transport: Transport | null; browse: boolean }[] = [
    { name: 'Browse in the desktop window', transport: 'wails', browse: true },
    { name: 'no Browse under warden serve', transport: 'http', browse: false },
    { name: 'no Browse without a backend', transport: 'none', browse: false },
    { name: 'no Browse without a bridge', transport: null, browse: false },
  ]
  for (const c of shown) {
    it(c.name, async () => {
      const w = await openRoots(c.transport ? fakeBridge({ transport: c.transport }).bridge : null)
      expect(w.find(browse).exists()).toBe(c.browse)
      expect(w.find(field).exists()).toBe(true)
    })
  }

  const picks: { name: string; typed: string; answer: () => string; field: string; alert?: string }[] = [
    { name: 'a chosen folder fills the field', typed: '', answer: () => '/srv/cache', field: '/srv/cache' },
    { name: 'the typed path is where the picker opens', typed: '/srv/ca', answer: () => '/srv/cache', field: '/srv/cache' },
    { name: 'cancel leaves the field', typed: '/srv/typed', answer: () => '', field: '/srv/typed' },
    {
      name: 'a picker error is shown',
      typed: '',
      answer: () => {
        throw new BridgeError('backend', 'PickFolder', 'folder picker: gtk went away')
      },
      field: '',
      alert: 'folder picker: gtk went away',
    },
  ]
  for (const c of picks) {
    it(c.name, async () => {
      const f = fakeBridge({ handlers: { PickFolder: c.answer } })
      const w = await openRoots(f.bridge)
      await w.get(field).setValue(c.typed)
      await w.get(browse).trigger('click')
      await flushPromises()
      expect(f.call).toHaveBeenCalledWith('PickFolder', { title: 'Writable root', default_directory: c.typed })
      expect((w.get(field).element as HTMLInputElement).value).toBe(c.field)
      expect(w.emitted('update:modelValue')).toBeUndefined()
      expect(w.find('[role="alert"]').exists()).toBe(!!c.alert)
      if (c.alert) expect(w.get('[role="alert"]').text()).toBe(c.alert)
    })
  }

  it('Add after Browse adds the picked root', async () => {
    const f = fakeBridge({ handlers: { PickFolder: () => '/srv/cache' } })
    const w = await openRoots(f.bridge)
    await w.get(browse).trigger('click')
    await flushPromises()
    await w.get('.roots form').trigger('submit')
    expect(w.emitted('update:modelValue')).toEqual([[{ ...ws, writable_roots: ['/srv/cache'] }]])
  })
})

describe('ChatSandboxSelector writable-roots popover', () => {
  const ws2: Sandbox = { kind: 'workspace-write', network_access: false, writable_roots: [] }
  async function opened() {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws2, dismiss: 'chat' }, attachTo: document.body })
    await w.get('button.link').trigger('click')
    expect(w.find('[data-testid="roots-popover"]').exists()).toBe(true)
    return w
  }
  it('closes on a click outside it, but not on a click inside', async () => {
    const w = await opened()
    w.get('[data-testid="roots-popover"]').element.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }))
    await flushPromises()
    expect(w.find('[data-testid="roots-popover"]').exists()).toBe(true)
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }))
    await flushPromises()
    expect(w.find('[data-testid="roots-popover"]').exists()).toBe(false)
    w.unmount()
  })
  it('closes on Esc, wherever the focus is, and gives the focus back to its button', async () => {
    const w = await opened()
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    await flushPromises()
    expect(w.find('[data-testid="roots-popover"]').exists()).toBe(false)
    expect(document.activeElement).toBe(w.get('button.link').element)
    w.unmount()
  })
  it('closes when the window shows another view', async () => {
    const w = await opened()
    await w.setProps({ dismiss: 'grants' })
    expect(w.find('[data-testid="roots-popover"]').exists()).toBe(false)
    w.unmount()
  })
  it('listens for nothing once closed', async () => {
    const w = await opened()
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }))
    await flushPromises()
    const ev = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true })
    document.body.dispatchEvent(ev)
    expect(ev.defaultPrevented).toBe(false)
    w.unmount()
  })
})

import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { defineComponent, h } from 'vue'
import { BridgeError, BridgeKey, type Defaults, type Settings } from '../../bridge'
import { confirmState } from '../../model/confirm'
import { useSettingsStore } from '../../stores/settings'
import { fakeBridge, testSettings } from '../../testing/fakeBridge'
import DefaultAxesSettings from './DefaultAxesSettings.vue'

type Opts = Parameters<typeof fakeBridge>[0]

function setup(settings: Settings = testSettings(), opts: Opts = {}) {
  const f = fakeBridge({ handlers: { SaveDefaults: (d: Defaults) => ({ ...settings, defaults: d }) }, ...opts })
  // As in SettingsPanel: the card shows what the store holds, so a save's
  // answer flows back into it.
  const Host = defineComponent(() => {
    const store = useSettingsStore()
    store.settings = settings
    return () => h(DefaultAxesSettings, { settings: store.settings! })
  })
  const w = mount(Host, {
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return { f, w }
}
const saves = (f: ReturnType<typeof fakeBridge>) => f.call.mock.calls.filter((c) => c[0] === 'SaveDefaults').map((c) => c[1])
const saveButton = (w: ReturnType<typeof setup>['w']) => w.findAll('button').find((b) => b.text() === 'Save defaults')!

describe('DefaultAxesSettings', () => {
  it('offers the status bar’s words and says the defaults apply to new sessions', () => {
    const { w } = setup()
    expect(w.get('select[aria-label="Default approval policy"]').findAll('option').map((o) => o.text())).toEqual(['Never ask', 'On request', 'Always ask'])
    expect(w.get('select[aria-label="Default sandbox"]').findAll('option').map((o) => o.text())).toEqual([
      'Read only',
      'Workspace write',
      'Full access',
    ])
    expect(w.text()).toContain('These apply to sessions you create from now on')
    expect(saveButton(w).attributes('disabled')).toBeDefined()
  })

  it('saves approval, network and writable roots exactly', async () => {
    const { f, w } = setup()
    await w.get('select[aria-label="Default approval policy"]').setValue('always')
    await w.get('input[aria-label="Default network access"]').setValue(true)
    await w.get('input[aria-label="New default writable root"]').setValue('/srv/cache')
    await w.get('form').trigger('submit')
    await w.get('input[aria-label="New default writable root"]').setValue('/srv/cache')
    await w.get('form').trigger('submit')
    await w.get('input[aria-label="New default writable root"]').setValue('/tmp/out')
    await w.get('form').trigger('submit')
    await w.get('button[aria-label="Remove default root /tmp/out"]').trigger('click')
    await saveButton(w).trigger('click')
    await flushPromises()
    expect(saves(f)).toEqual([
      { approval: 'always', sandbox: { kind: 'workspace-write', network_access: true, writable_roots: ['/srv/cache'] } },
    ])
    expect(w.get('[data-testid="defaults-saved"]').text()).toBe('Saved: new sessions start with these.')
  })

  it('Read only hides the network switch and saves at once', async () => {
    const { f, w } = setup()
    await w.get('select[aria-label="Default sandbox"]').setValue('read-only')
    await flushPromises()
    expect(w.find('input[aria-label="Default network access"]').exists()).toBe(false)
    await saveButton(w).trigger('click')
    await flushPromises()
    expect(saves(f)).toEqual([{ approval: 'on-request', sandbox: { kind: 'read-only', network_access: false, writable_roots: [] } }])
  })

  const confirms: { name: string; ok: boolean; kind: string }[] = [
    { name: 'Full access after confirming', ok: true, kind: 'danger-full-access' },
    { name: 'Full access cancelled keeps Workspace write', ok: false, kind: 'workspace-write' },
  ]
  for (const c of confirms) {
    it(c.name, async () => {
      const { f, w } = setup()
      const sel = w.get('select[aria-label="Default sandbox"]')
      await sel.setValue('danger-full-access')
      expect(confirmState.resolve).not.toBeNull()
      expect(confirmState.message).toContain('default for new sessions')
      expect(confirmState.action).toBe('Use Full access by default')
      confirmState.resolve!(c.ok)
      await flushPromises()
      expect((sel.element as HTMLSelectElement).value).toBe(c.kind)
      expect(saveButton(w).attributes('disabled') === undefined).toBe(c.ok)
      if (c.ok) {
        await saveButton(w).trigger('click')
        await flushPromises()
        expect(saves(f)).toEqual([{ approval: 'on-request', sandbox: { kind: 'danger-full-access', network_access: false, writable_roots: [] } }])
      }
    })
  }

  it('a rejected save is shown and nothing claims it was saved', async () => {
    const { w } = setup(testSettings(), {
      handlers: {
        SaveDefaults: () => {
          throw new BridgeError('backend', 'SaveDefaults', 'config: permission denied')
        },
      },
    })
    await w.get('select[aria-label="Default approval policy"]').setValue('never')
    await saveButton(w).trigger('click')
    await flushPromises()
    expect(w.get('[data-testid="defaults-error"]').text()).toBe('Not saved: config: permission denied')
    expect(w.find('[data-testid="defaults-saved"]').exists()).toBe(false)
  })
})

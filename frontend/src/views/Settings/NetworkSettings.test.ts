import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { defineComponent, h } from 'vue'
import { BridgeError, BridgeKey, type NetworkArgs, type NetworkSettings, type Settings } from '../../bridge'
import { lines } from '../../model/networkSettings'
import { useSettingsStore } from '../../stores/settings'
import { fakeBridge, testSettings } from '../../testing/fakeBridge'
import NetworkSettingsCard from './NetworkSettings.vue'

const network = (over: Partial<NetworkSettings> = {}): NetworkSettings => ({
  presets: [
    { name: 'github', label: 'GitHub (git over https)', allow: ['github.com:443', '*.github.com:443'] },
    { name: 'npm', label: 'npm registry', allow: ['registry.npmjs.org:443'] },
  ],
  enabled: ['npm'],
  allow: ['registry.example.com'],
  deny: [],
  command_line: [],
  ...over,
})

type Handler = (a: NetworkArgs) => Settings
function setup(n: NetworkSettings, handler?: Handler) {
  const settings = testSettings({ network: n })
  const f = fakeBridge({
    handlers: { SaveNetworkSettings: handler ?? ((a: NetworkArgs) => ({ ...settings, network: { ...n, enabled: a.enabled, allow: a.allow, deny: a.deny } })) },
  })
  const Host = defineComponent(() => {
    const store = useSettingsStore()
    store.settings = settings
    return () => h(NetworkSettingsCard, { network: store.settings!.network! })
  })
  const w = mount(Host, { global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } } })
  return { f, w }
}
const saves = (f: ReturnType<typeof fakeBridge>) => f.call.mock.calls.filter((c) => c[0] === 'SaveNetworkSettings').map((c) => c[1])
const saveButton = (w: ReturnType<typeof setup>['w']) => w.findAll('button').find((b) => b.text() === 'Save network')!

describe('NetworkSettings', () => {
  it('shows the presets ticked as saved, with their hosts', () => {
    const { w } = setup(network())
    const boxes = w.findAll('input[type="checkbox"]')
    expect(boxes.map((b) => b.attributes('aria-label'))).toEqual(['Preset GitHub (git over https)', 'Preset npm registry'])
    expect(boxes.map((b) => (b.element as HTMLInputElement).checked)).toEqual([false, true])
    expect(w.text()).toContain('*.github.com:443')
    expect(saveButton(w).attributes('disabled')).toBeDefined()
  })

  it('saves ticked presets and one pattern per line', async () => {
    const { f, w } = setup(network())
    await w.get('input[aria-label="Preset GitHub (git over https)"]').setValue(true)
    await w.get('textarea[aria-label="Allowed hosts"]').setValue('registry.example.com\n  *.corp.example:443 \n\nregistry.example.com')
    await w.get('textarea[aria-label="Denied hosts"]').setValue('*.doubleclick.net, tracker.example')
    await saveButton(w).trigger('click')
    await flushPromises()
    expect(saves(f)).toEqual([
      { enabled: ['npm', 'github'], allow: ['registry.example.com', '*.corp.example:443'], deny: ['*.doubleclick.net', 'tracker.example'] },
    ])
    expect(w.get('[data-testid="network-saved"]').text()).toBe('Saved: calls from now on use these.')
  })

  it('shows a refused save and keeps the form', async () => {
    const { w } = setup(network(), () => {
      throw new BridgeError('backend', 'SaveNetworkSettings', 'invalid settings: allow: host pattern "https://x": give a host name')
    })
    await w.get('textarea[aria-label="Allowed hosts"]').setValue('https://x')
    await saveButton(w).trigger('click')
    await flushPromises()
    expect(w.get('[data-testid="network-error"]').text()).toContain('give a host name')
    expect((w.get('textarea[aria-label="Allowed hosts"]').element as HTMLTextAreaElement).value).toBe('https://x')
  })

  it('names the command line’s --allow-host entries', () => {
    const { w } = setup(network({ command_line: ['127.0.0.2:4873'] }))
    expect(w.get('[data-testid="net-cli"]').text()).toContain('127.0.0.2:4873')
  })
})

describe('lines', () => {
  const cases: [string, string, string[]][] = [
    ['empty', '', []],
    ['newlines and commas', 'a.org\nb.org, c.org', ['a.org', 'b.org', 'c.org']],
    ['blanks and repeats', ' a.org \n\n a.org', ['a.org']],
  ]
  for (const [name, text, want] of cases) it(name, () => expect(lines(text)).toEqual(want))
})

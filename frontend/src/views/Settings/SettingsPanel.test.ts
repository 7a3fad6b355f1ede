import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import App from '../../App.vue'
import { BridgeError, BridgeKey, type CageView, type ModelArgs, type Settings } from '../../bridge'
import { fakeBridge, testInfo, testSettings } from '../../testing/fakeBridge'
import SettingsPanel from './SettingsPanel.vue'

type Opts = Parameters<typeof fakeBridge>[0]

function setup(opts: Opts = {}, props: Partial<InstanceType<typeof SettingsPanel>['$props']> = {}) {
  const f = fakeBridge(opts)
  const w = mount(SettingsPanel, {
    props: { info: testInfo, infoError: null, session: null, transport: 'wails', ...props },
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return { f, w }
}

const secret = 'sk-ant-api03-SECRET-wXyZ'

describe('SettingsPanel', () => {
  it('shows every section, the config path and the cage line', async () => {
    const { w } = setup()
    await flushPromises()
    expect(w.findAll('h3').map((h) => h.text())).toEqual(['Model', 'Default axes', 'Network', 'Sandbox and app', 'MCP servers', 'Answerers and hooks', 'Audit export (OpenTelemetry)'])
    expect(w.get('[data-testid="config-path"]').text()).toBe('/home/u/.config/warden/config.toml')
    expect(w.get('.path').text()).toBe('Settings file: /home/u/.config/warden/config.toml')
    expect(w.text()).not.toContain('Saved to')
    expect(w.get('[data-testid="cage-status"]').text()).toBe('Available: commands run inside the OS sandbox.')
    expect(w.get('[data-testid="active-model"]').text()).toBe('anthropic:claude-sonnet-4-5')
    expect(w.find('[data-testid="settings-warnings"]').exists()).toBe(false)
  })

  const cages: { name: string; caged: boolean; reason: string; want: string }[] = [
    { name: 'cage on', caged: true, reason: '', want: 'Available: commands run inside the OS sandbox.' },
    { name: 'cage off with why', caged: false, reason: 'bwrap: setting up uid map: Permission denied', want: 'Not available: bwrap: setting up uid map: Permission denied' },
    { name: 'cage off without why', caged: false, reason: '', want: 'Not available: no reason given' },
  ]
  for (const c of cages) {
    it(c.name, async () => {
      const { w } = setup({}, { info: { ...testInfo, caged: c.caged, cage_reason: c.reason } })
      await flushPromises()
      expect(w.get('[data-testid="cage-status"]').text()).toBe(c.want)
    })
  }

  const cageCards: { name: string; cage: CageView; hidden: string; sockets: string; docker: boolean; limits: string }[] = [
    {
      name: 'cage with hidden paths and no sockets',
      cage: { hidden: ['/home/u/.ssh', '/home/u/.config/warden'], allow_unix_sockets: [], docker_socket: false, limits: { processes: 4096, tmp_bytes: 2 ** 31, file_bytes: 8 * 2 ** 30 } },
      hidden: '2 paths (secrets, Warden\'s own data, deny_read)|/home/u/.ssh|/home/u/.config/warden',
      sockets: 'none reachable from commands',
      docker: false,
      limits: '4096 processes, /tmp 2 GiB, files up to 8 GiB',
    },
    {
      name: 'docker socket listed is called full access',
      cage: { hidden: [], allow_unix_sockets: ['/run/docker.sock'], docker_socket: true, limits: { processes: -1, tmp_bytes: 512 * 2 ** 20, file_bytes: -1 } },
      hidden: 'nothing on this machine',
      sockets: 'reachable: /run/docker.sock',
      docker: true,
      limits: 'processes uncapped, /tmp 512 MiB, files up to uncapped',
    },
  ]
  for (const c of cageCards) {
    it(c.name, async () => {
      const { w } = setup({ handlers: { GetSettings: () => testSettings({ cage: c.cage }) } })
      await flushPromises()
      const hidden = w.get('[data-testid="cage-hidden"]')
      const parts = hidden.find('summary').exists()
        ? [hidden.get('summary').text(), ...hidden.findAll('li').map((l) => l.text())]
        : [hidden.text()]
      expect(parts.join('|')).toBe(c.hidden)
      expect(w.get('[data-testid="cage-sockets"]').text()).toContain(c.sockets)
      expect(w.find('[data-testid="cage-docker"]').exists()).toBe(c.docker)
      expect(w.get('[data-testid="cage-limits"]').text().replace(/\s+/g, ' ')).toBe(c.limits)
    })
  }

  it('shows config warnings as a notice', async () => {
    const warnings = ['/work/proj/.warden/config.toml: defaults.sandbox "danger-full-access" is wider than the user default; ignored']
    const { w } = setup({ handlers: { GetSettings: () => testSettings({ warnings }) } })
    await flushPromises()
    const n = w.get('[data-testid="settings-warnings"]')
    expect(n.attributes('role')).toBe('note')
    expect(n.findAll('li').map((l) => l.text())).toEqual(warnings)
  })

  it('an unreadable settings file is said in words and the rest still shows', async () => {
    const { w } = setup({
      handlers: {
        GetSettings: () => {
          throw new BridgeError('backend', 'GetSettings', 'config: line 3: expected a value')
        },
      },
    })
    await flushPromises()
    expect(w.get('[data-testid="settings-error"]').text()).toBe('Could not read the settings: config: line 3: expected a value')
    expect(w.find('#set-provider').exists()).toBe(false)
    expect(w.find('[data-testid="cage-status"]').exists()).toBe(true)
    expect(w.get('[data-testid="mcp-empty"]').text()).toContain('your config.toml')
  })

  it('a typed key is sent once, never shown back; the hint comes from the answer', async () => {
    let stored: Settings = testSettings({ model: { ...testSettings().model, api_key_set: false, api_key_source: '', api_key_hint: '' } })
    const { f, w } = setup({
      handlers: {
        GetSettings: () => stored,
        SaveModelSettings: (a: ModelArgs) => {
          stored = testSettings({ model: { ...stored.model, api_key_set: !!a.api_key, api_key_source: 'config', api_key_hint: '…' + a.api_key!.slice(-4) } })
          return stored
        },
      },
    })
    await flushPromises()
    expect(w.get('[data-testid="key-hint"]').text()).toBe('No key set: paste one here or set ANTHROPIC_API_KEY.')
    await w.get('#set-api-key').setValue(secret)
    await w.get('form').trigger('submit')
    await flushPromises()
    expect((w.get('#set-api-key').element as HTMLInputElement).value).toBe('')
    expect(w.get('[data-testid="key-hint"]').text()).toBe('Key set (…wXyZ) from config')
    expect(w.html()).not.toContain(secret)
    expect(w.get('[data-testid="model-saved"]').text()).toBe('Saved to /home/u/.config/warden/config.toml.')
    expect(w.get('button[type="submit"]').attributes('disabled')).toBeDefined()
    expect(f.call.mock.calls.filter((c) => c[0] === 'SaveModelSettings')).toHaveLength(1)
  })

  it('saving the defaults keeps a model edit in progress, and the other way round', async () => {
    let stored = testSettings()
    const { w } = setup({
      handlers: {
        GetSettings: () => stored,
        SaveDefaults: (d) => (stored = { ...stored, defaults: d }),
        SaveModelSettings: (a: ModelArgs) => (stored = { ...stored, model: { ...stored.model, model: a.model } }),
      },
    })
    await flushPromises()
    await w.get('#set-model').setValue('claude-opus-4-1')
    await w.get('select[aria-label="Default approval policy"]').setValue('always')
    await w.findAll('button').find((b) => b.text() === 'Save defaults')!.trigger('click')
    await flushPromises()
    expect((w.get('#set-model').element as HTMLInputElement).value).toBe('claude-opus-4-1')
    await w.get('select[aria-label="Default approval policy"]').setValue('never')
    await w.get('.card form').trigger('submit')
    await flushPromises()
    expect(stored.model.model).toBe('claude-opus-4-1')
    expect((w.get('select[aria-label="Default approval policy"]').element as HTMLSelectElement).value).toBe('never')
    expect(stored.defaults.approval).toBe('always')
  })

  it('Enter twice while saving sends one save', async () => {
    const { f, w } = setup({ handlers: { SaveModelSettings: () => testSettings() } })
    await flushPromises()
    await w.get('#set-model').setValue('claude-opus-4-1')
    await w.get('form').trigger('submit')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(f.call.mock.calls.filter((c) => c[0] === 'SaveModelSettings')).toHaveLength(1)
  })
})

describe('Settings in the app', () => {
  it('after a model save the status bar shows the model Info now reports', async () => {
    let model = 'script:demo'
    const f = fakeBridge({
      handlers: {
        Info: () => ({ ...testInfo, model }),
        SaveModelSettings: (a: ModelArgs) => {
          model = `${a.provider}:${a.model}`
          return testSettings({ active_model: model, model: { ...testSettings().model, model: a.model } })
        },
      },
    })
    const w = mount(App, { global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } }, attachTo: document.body })
    await flushPromises()
    expect(w.get('[data-testid="model"]').text()).toBe('script:demo')
    await w.get('#tab-settings').trigger('click')
    await flushPromises()
    await w.get('#set-model').setValue('claude-opus-4-1')
    await w.get('.settings form').trigger('submit')
    await flushPromises()
    expect(w.get('[data-testid="model"]').text()).toBe('anthropic:claude-opus-4-1')
    expect(w.get('[data-testid="active-model"]').text()).toBe('anthropic:claude-opus-4-1')
    w.unmount()
  })
})

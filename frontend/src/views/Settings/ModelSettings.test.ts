import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeError, BridgeKey, type ConnectionResult, type ModelInfo, type ModelSettings as Model, type Settings } from '../../bridge'
import { fakeBridge, testSettings } from '../../testing/fakeBridge'
import ModelSettings from './ModelSettings.vue'

type Opts = Parameters<typeof fakeBridge>[0]

function setup(settings: Settings = testSettings(), opts: Opts = {}) {
  const f = fakeBridge(opts)
  const w = mount(ModelSettings, {
    props: { settings },
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return { f, w }
}

function withModel(m: Partial<Model>): Settings {
  const s = testSettings()
  return { ...s, model: { ...s.model, ...m } }
}

const calls = (f: ReturnType<typeof fakeBridge>, m: string) => f.call.mock.calls.filter((c) => c[0] === m)
const button = (w: ReturnType<typeof setup>['w'], text: string) => w.findAll('button').find((b) => b.text() === text)

describe('ModelSettings', () => {
  it('labels every control and never pre-fills the key', () => {
    const { w } = setup()
    for (const id of ['set-provider', 'set-model', 'set-base-url', 'set-api-key']) {
      expect(w.find(`label[for="${id}"]`).exists(), id).toBe(true)
    }
    const key = w.get('#set-api-key')
    expect(key.attributes('type')).toBe('password')
    expect((key.element as HTMLInputElement).value).toBe('')
    expect(w.get('#set-provider').findAll('option').map((o) => o.text())).toEqual([
      'Demo (no key)',
      'Anthropic',
      'OpenAI or compatible',
      'Script file',
    ])
    expect(w.get('#set-base-url').attributes('placeholder')).toBe('https://api.anthropic.com')
  })

  const hints: { name: string; m: Partial<Model>; hint: string; remove: boolean }[] = [
    { name: 'key from config', m: {}, hint: 'Key set (…a1B2) from config', remove: true },
    { name: 'key from ANTHROPIC_API_KEY', m: { api_key_source: 'env:ANTHROPIC_API_KEY' }, hint: 'Key set (…a1B2) from ANTHROPIC_API_KEY', remove: false },
    {
      name: 'key from OPENAI_API_KEY',
      m: { provider: 'openai', model: 'gpt-4.1', api_key_source: 'env:OPENAI_API_KEY', api_key_hint: '…Zx9Q' },
      hint: 'Key set (…Zx9Q) from OPENAI_API_KEY',
      remove: false,
    },
    { name: 'no key', m: { api_key_set: false, api_key_source: '', api_key_hint: '' }, hint: 'No key set: paste one here or set ANTHROPIC_API_KEY.', remove: false },
  ]
  for (const c of hints) {
    it(`hint: ${c.name}`, () => {
      const { w } = setup(withModel(c.m))
      expect(w.get('[data-testid="key-hint"]').text()).toBe(c.hint)
      expect(button(w, 'Remove key') !== undefined).toBe(c.remove)
    })
  }

  it('Save is disabled until something changes, then sends exactly the ModelArgs without a key', async () => {
    const { f, w } = setup(testSettings(), { handlers: { SaveModelSettings: () => testSettings() } })
    const save = w.get('button[type="submit"]')
    expect(save.attributes('disabled')).toBeDefined()
    await w.get('#set-model').setValue('claude-opus-4-1')
    expect(save.attributes('disabled')).toBeUndefined()
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(calls(f, 'SaveModelSettings')).toEqual([
      ['SaveModelSettings', { provider: 'anthropic', model: 'claude-opus-4-1', base_url: '' }],
    ])
    // The status bar's model comes from Info: it is read again.
    expect(calls(f, 'Info')).toHaveLength(1)
  })

  it('Save sends a typed key and shows the saved state', async () => {
    const { f, w } = setup(testSettings(), { handlers: { SaveModelSettings: () => testSettings() } })
    await w.get('#set-api-key').setValue('sk-ant-new-key-9876')
    await w.get('#set-base-url').setValue('https://proxy.example.com')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(calls(f, 'SaveModelSettings')[0]?.[1]).toStrictEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      base_url: 'https://proxy.example.com',
      api_key: 'sk-ant-new-key-9876',
    })
  })

  it('Remove key marks the key for removal; Save sends clear_api_key', async () => {
    const { f, w } = setup(testSettings(), { handlers: { SaveModelSettings: () => testSettings() } })
    await button(w, 'Remove key')!.trigger('click')
    expect(w.get('[data-testid="key-hint"]').text()).toBe('The key will be removed from /home/u/.config/warden/config.toml when you save.')
    expect(button(w, 'Keep key')).toBeDefined()
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(calls(f, 'SaveModelSettings')[0]?.[1]).toStrictEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      base_url: '',
      clear_api_key: true,
    })
  })

  it('Keep key undoes Remove key', async () => {
    const { w } = setup()
    await button(w, 'Remove key')!.trigger('click')
    await button(w, 'Keep key')!.trigger('click')
    expect(w.get('[data-testid="key-hint"]').text()).toBe('Key set (…a1B2) from config')
    expect(w.get('button[type="submit"]').attributes('disabled')).toBeDefined()
  })

  it('a rejected save shows the error in words', async () => {
    const { w } = setup(testSettings(), {
      handlers: {
        SaveModelSettings: () => {
          throw new BridgeError('backend', 'SaveModelSettings', 'base_url must be http(s)://host')
        },
      },
    })
    await w.get('#set-base-url').setValue('ftp://x')
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(w.get('[data-testid="model-save-error"]').text()).toBe('Not saved: base_url must be http(s)://host')
    expect(w.find('[data-testid="model-saved"]').exists()).toBe(false)
  })

  it('Load models shows a spinner, then fills the list; picking one sets the model', async () => {
    let resolve: (m: ModelInfo[]) => void = () => {}
    const { f, w } = setup(testSettings(), {
      handlers: { ListModels: () => new Promise<ModelInfo[]>((r) => (resolve = r)) },
    })
    await w.get('#set-api-key').setValue('sk-probe')
    await button(w, 'Load models')!.trigger('click')
    const busy = button(w, 'Loading…')!
    expect(busy.attributes('disabled')).toBeDefined()
    expect(busy.find('.spinner').exists()).toBe(true)
    expect(calls(f, 'ListModels')[0]?.[1]).toStrictEqual({
      provider: 'anthropic',
      base_url: '',
      api_key: 'sk-probe',
      model: 'claude-sonnet-4-5',
    })
    resolve([
      { id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5' },
      { id: 'claude-opus-4-1', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
    ])
    await flushPromises()
    expect(w.findAll('#set-model-list option').map((o) => o.attributes('value'))).toEqual(['claude-sonnet-4-5', 'claude-opus-4-1'])
    const pick = w.get('select[aria-label="Available models"]')
    expect(pick.findAll('option').map((o) => o.text())).toEqual([
      'Pick a model',
      'Claude Sonnet 4.5 (claude-sonnet-4-5)',
      'Claude Opus 4.1 (claude-opus-4-1)',
    ])
    await pick.setValue('claude-opus-4-1')
    expect((w.get('#set-model').element as HTMLInputElement).value).toBe('claude-opus-4-1')
  })

  it('Load models failure is said in words', async () => {
    const { w } = setup(testSettings(), {
      handlers: {
        ListModels: () => {
          throw new BridgeError('backend', 'ListModels', 'The API key was refused (401).')
        },
      },
    })
    await button(w, 'Load models')!.trigger('click')
    await flushPromises()
    expect(w.get('[data-testid="models-error"]').text()).toBe('Could not load the models: The API key was refused (401).')
    expect(button(w, 'Load models')!.attributes('disabled')).toBeUndefined()
  })

  const probes: { name: string; r: ConnectionResult | BridgeError; cls: string; text: string }[] = [
    {
      name: 'ok',
      r: { ok: true, latency_ms: 42, model_count: 12, model_found: true, message: 'Connected: 12 models; claude-sonnet-4-5 is available.' },
      cls: 'ok',
      text: '✓ Connected: 12 models; claude-sonnet-4-5 is available. (42 ms)',
    },
    {
      name: 'refused key',
      r: { ok: false, latency_ms: 87, model_count: 0, model_found: false, message: 'The API key was refused (401).' },
      cls: 'bad',
      text: '✗ The API key was refused (401). (87 ms)',
    },
    {
      name: 'connected but model missing is ok',
      r: { ok: true, latency_ms: 5, model_count: 3, model_found: false, message: 'Connected, but model gpt-9 is not in the list.' },
      cls: 'ok',
      text: '✓ Connected, but model gpt-9 is not in the list. (5 ms)',
    },
    {
      name: 'rejected call',
      r: new BridgeError('network', 'TestConnection', 'cannot reach warden serve: Failed to fetch'),
      cls: 'bad',
      text: '✗ cannot reach warden serve: Failed to fetch',
    },
  ]
  for (const c of probes) {
    it(`Test connection: ${c.name}`, async () => {
      const { f, w } = setup(testSettings(), {
        handlers: {
          TestConnection: () => {
            if (c.r instanceof BridgeError) throw c.r
            return c.r
          },
        },
      })
      await button(w, 'Test connection')!.trigger('click')
      await flushPromises()
      const res = w.get('[data-testid="connection-result"]')
      expect(res.classes()).toContain(c.cls)
      expect(res.text()).toBe(c.text)
      expect(calls(f, 'TestConnection')[0]?.[1]).toStrictEqual({ provider: 'anthropic', base_url: '', model: 'claude-sonnet-4-5' })
    })
  }

  it('a verdict is cleared when the endpoint or key changes; the model list when the endpoint does', async () => {
    const ok: ConnectionResult = { ok: true, latency_ms: 3, model_count: 1, model_found: true, message: 'Connected: 1 model.' }
    const { w } = setup(testSettings(), {
      handlers: { TestConnection: () => ok, ListModels: () => [{ id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5' }] },
    })
    await button(w, 'Load models')!.trigger('click')
    await button(w, 'Test connection')!.trigger('click')
    await flushPromises()
    expect(w.find('[data-testid="connection-result"]').exists()).toBe(true)
    await w.get('#set-model').setValue('claude-opus-4-1')
    expect(w.find('[data-testid="connection-result"]').exists()).toBe(false)
    expect(w.find('select[aria-label="Available models"]').exists()).toBe(true)
    await w.get('#set-base-url').setValue('https://proxy.example.com')
    expect(w.find('select[aria-label="Available models"]').exists()).toBe(false)
  })

  it('switching provider puts that provider’s default model and base URL in', async () => {
    const { f, w } = setup(testSettings(), { handlers: { SaveModelSettings: () => testSettings() } })
    await w.get('#set-provider').setValue('openai')
    expect((w.get('#set-model').element as HTMLInputElement).value).toBe('gpt-4.1')
    expect(w.get('#set-base-url').attributes('placeholder')).toBe('https://api.openai.com/v1')
    expect(w.get('[data-testid="key-hint"]').text()).toBe('Paste a key, or leave this empty to use OPENAI_API_KEY.')
    expect(button(w, 'Remove key')).toBeUndefined()
    await w.get('#set-provider').setValue('anthropic')
    expect((w.get('#set-model').element as HTMLInputElement).value).toBe('claude-sonnet-4-5')
    await w.get('#set-provider').setValue('demo')
    expect(w.find('#set-api-key').exists()).toBe(false)
    expect(w.find('#set-model').exists()).toBe(false)
    await w.get('form').trigger('submit')
    await flushPromises()
    expect(calls(f, 'SaveModelSettings')[0]?.[1]).toStrictEqual({ provider: 'demo', model: '', base_url: '' })
  })

  it('the script provider asks for a file and has no key', async () => {
    const { w } = setup()
    await w.get('#set-provider').setValue('script')
    expect(w.get('label[for="set-model"]').text()).toBe('Script file')
    expect(w.find('#set-api-key').exists()).toBe(false)
    expect(w.find('#set-base-url').exists()).toBe(false)
  })
})

describe('ModelSettings says which model runs', () => {
  const cases: { name: string; active: string; differs: boolean }[] = [
    { name: 'the saved model runs: no notice', active: 'anthropic:claude-sonnet-4-5', differs: false },
    { name: 'a --model flag runs another one: said, with the saved spec', active: 'script:/tmp/demo.json', differs: true },
    { name: 'the demo runs while the file names Anthropic', active: 'script:demo', differs: true },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const { w } = setup(testSettings({ active_model: c.active }))
      expect(w.get('[data-testid="active-model"]').text()).toBe(c.active)
      const n = w.find('[data-testid="model-differs"]')
      expect(n.exists()).toBe(c.differs)
      if (c.differs) expect(n.text()).toContain('anthropic:claude-sonnet-4-5')
    })
  }
  it('the demo saved and running: no notice', () => {
    const { w } = setup({ ...withModel({ provider: 'demo', model: '' }), active_model: 'script:demo' })
    expect(w.find('[data-testid="model-differs"]').exists()).toBe(false)
  })

  it('lists the provider’s models by itself when a key is there, and not without one', async () => {
    const list = [{ id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5' }, { id: 'claude-opus-4-1', display_name: 'Claude Opus 4.1' }]
    const { f, w } = setup(withModel({ provider: 'anthropic', model: 'claude-sonnet-4-5', api_key_set: true, api_key_source: 'config' }), {
      handlers: { ListModels: () => list },
    })
    await flushPromises()
    expect(calls(f, 'ListModels')).toHaveLength(1)
    expect(w.get('select[aria-label="Available models"]').findAll('option').map((o) => o.text())).toContain('Claude Opus 4.1 (claude-opus-4-1)')
    const none = setup(withModel({ provider: 'anthropic', model: 'claude-sonnet-4-5', api_key_set: false, api_key_source: '' }), {
      handlers: { ListModels: () => list },
    })
    await flushPromises()
    expect(calls(none.f, 'ListModels')).toHaveLength(0)
  })
})

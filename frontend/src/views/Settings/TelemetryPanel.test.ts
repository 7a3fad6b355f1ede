import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeKey, type ExportStatus } from '../../bridge'
import { fakeBridge } from '../../testing/fakeBridge'
import TelemetryPanel from './TelemetryPanel.vue'

const base: ExportStatus = {
  enabled: true,
  endpoint: 'https://otel.example.com:4318',
  protocol: 'http/protobuf',
  log_arguments: false,
  required: false,
  pinned: [],
  state: 'ok',
  queued: 0,
  oldest_ms: 0,
  sent: 1234,
  dropped: 0,
  last_success_ms: Date.now() - 3000,
  last_error: '',
  last_error_ms: 0,
}

function setup(s: ExportStatus) {
  const f = fakeBridge({ handlers: { TelemetryStatus: () => s } })
  const w = mount(TelemetryPanel, {
    props: { configPath: '/home/u/.config/warden/config.toml' },
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return w
}

describe('TelemetryPanel', () => {
  const cases: { name: string; s: ExportStatus; state: string | null; text: string[]; absent?: string[] }[] = [
    {
      name: 'off: how to turn it on',
      s: { ...base, enabled: false, endpoint: '', state: 'off' },
      state: null,
      text: ['Off. To send every decision to an OpenTelemetry collector, set endpoint under [telemetry] in /home/u/.config/warden/config.toml.'],
    },
    {
      name: 'sending',
      s: base,
      state: 'Sending',
      text: ['https://otel.example.com:4318', '1,234 / 0', 'sent as a hash and a size only'],
      absent: ['telemetry-error'],
    },
    {
      name: 'failing: the error in words and what waits',
      s: {
        ...base,
        state: 'failing',
        queued: 4200,
        oldest_ms: Date.now() - 2 * 3600 * 1000,
        last_error: 'the collector at https://otel.example.com:4318 is not reachable: connection refused (is it running?)',
        last_error_ms: Date.now() - 1000,
      },
      state: 'Failing — records wait in the outbox',
      text: ['4,200 (oldest queued 2 h ago)', 'connection refused (is it running?)'],
    },
    {
      name: 'required and pinned by the organisation',
      s: { ...base, required: true, pinned: ['endpoint', 'log_arguments'], log_arguments: true },
      state: 'Sending',
      text: ['required by your organisation', 'endpoint, log_arguments', 'command text and paths are sent'],
    },
    {
      name: 'nothing sent yet',
      s: { ...base, state: 'waiting', last_success_ms: 0, queued: 3, oldest_ms: Date.now() },
      state: 'Nothing sent yet',
      text: ['never'],
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const w = setup(c.s)
      await flushPromises()
      if (c.state === null) expect(w.find('[data-testid="telemetry-state"]').exists()).toBe(false)
      else expect(w.get('[data-testid="telemetry-state"]').text()).toBe(c.state)
      for (const t of c.text) expect(w.text()).toContain(t)
      for (const id of c.absent ?? []) expect(w.find(`[data-testid="${id}"]`).exists()).toBe(false)
      w.unmount()
    })
  }

  it('shows an error from the backend as text', async () => {
    const f = fakeBridge({ handlers: { TelemetryStatus: () => { throw new Error('<b>boom</b>') } } })
    const w = mount(TelemetryPanel, {
      props: { configPath: '' },
      global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
    })
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toContain('<b>boom</b>')
    expect(w.find('b').exists()).toBe(false)
    w.unmount()
  })
})

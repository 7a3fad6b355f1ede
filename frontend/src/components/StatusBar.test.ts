import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { BridgeError, type AppInfo, type SandboxStatus } from '../bridge'
import StatusBar from './StatusBar.vue'

type Props = {
  info: AppInfo | null
  infoError: BridgeError | null
  sandbox: SandboxStatus | null
  sandboxError: BridgeError | null
  loading: boolean
}

const base: Props = { info: null, infoError: null, sandbox: null, sandboxError: null, loading: false }
const available: SandboxStatus = {
  available: true,
  mechanism: 'bubblewrap',
  version: 'bubblewrap 0.8.0',
  detail: 'user namespace with a read-only root works',
}
const denied: SandboxStatus = {
  available: false,
  mechanism: 'bubblewrap',
  version: 'bubblewrap 0.8.0',
  detail: 'trial run failed: No permissions to create new namespace',
}

describe('StatusBar', () => {
  const cases: { name: string; props: Partial<Props>; version: string; sandbox: string; tone: string; reason?: string }[] =
    [
      { name: 'while loading', props: { loading: true }, version: 'Warden', sandbox: 'Sandbox: checking…', tone: 'unknown' },
      {
        name: 'sandbox available',
        props: { info: { name: 'Warden', version: '0.1.0' }, sandbox: available },
        version: 'Warden v0.1.0',
        sandbox: 'Sandbox: available (bubblewrap 0.8.0)',
        tone: 'ok',
      },
      {
        name: 'sandbox unavailable shows the reason',
        props: { info: { name: 'Warden', version: '0.1.0' }, sandbox: denied },
        version: 'Warden v0.1.0',
        sandbox: 'Sandbox: unavailable',
        tone: 'bad',
        reason: denied.detail,
      },
      {
        name: 'no backend says unknown, not available',
        props: {
          infoError: new BridgeError('no_backend', 'info', 'No backend'),
          sandboxError: new BridgeError('no_backend', 'sandboxStatus', 'No backend'),
        },
        version: 'Warden version unknown',
        sandbox: 'Sandbox: unknown (no backend)',
        tone: 'unknown',
      },
      {
        name: 'probe call failed',
        props: { sandboxError: new BridgeError('backend', 'sandboxStatus', 'boom') },
        version: 'Warden',
        sandbox: 'Sandbox: check failed',
        tone: 'bad',
      },
    ]
  for (const c of cases) {
    it(c.name, () => {
      const w = mount(StatusBar, { props: { ...base, ...c.props } })
      expect(w.get('[data-testid="version"]').text()).toBe(c.version)
      const sandbox = w.get('[data-testid="sandbox"]')
      expect(sandbox.text()).toBe(c.sandbox)
      expect(sandbox.classes()).toContain(c.tone)
      const reason = w.find('[data-testid="sandbox-reason"]')
      if (c.reason) {
        expect(reason.text()).toBe(c.reason)
      } else {
        expect(reason.exists()).toBe(false)
      }
    })
  }
})

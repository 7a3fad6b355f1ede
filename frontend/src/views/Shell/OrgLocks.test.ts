import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { OrgInfo, Sandbox } from '../../bridge'
import ChatApprovalSelector from './ChatApprovalSelector.vue'
import ChatSandboxSelector from './ChatSandboxSelector.vue'

const org: OrgInfo = {
  file: '/etc/warden/policy.toml',
  digest: 'sha256:ab',
  signed: true,
  approvals: ['on-request', 'always'],
  sandbox: 'workspace-write',
  network_off: true,
  hosts: [],
  deny_hosts: [],
  mcp_restricted: false,
  mcp_servers: [],
  answerers: [],
  max_grant_days: 0,
  user_allow: true,
  workspace_allow: false,
}
const ws: Sandbox = { kind: 'workspace-write', network_access: false, writable_roots: [] }

describe('selectors under an organisation policy', () => {
  it('Full access is offered locked, never silently', () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws, org } })
    const full = w.get('option[value="danger-full-access"]')
    expect(full.attributes('disabled')).toBeDefined()
    // The label stays as it is (the status bar keeps its width); the
    // option is disabled and says why, and the lock beside it names the file.
    expect(full.text()).toBe('Full access')
    expect(full.attributes('title')).toBe("Set by your organisation's policy (/etc/warden/policy.toml)")
    expect(w.get('option[value="read-only"]').attributes('disabled')).toBeUndefined()
    const lock = w.get('[data-testid="org-lock"]')
    expect(lock.attributes('aria-label')).toContain("organisation's policy (/etc/warden/policy.toml)")
    const net = w.get('input[aria-label="Network access"]')
    expect(net.attributes('disabled')).toBeDefined()
    expect(net.attributes('title')).toContain('/etc/warden/policy.toml')
  })
  it('Never ask is locked when the policy allows only others', () => {
    const w = mount(ChatApprovalSelector, { props: { modelValue: 'on-request', org } })
    expect(w.get('option[value="never"]').attributes('disabled')).toBeDefined()
    expect(w.get('option[value="always"]').attributes('disabled')).toBeUndefined()
    expect(w.find('[data-testid="org-lock"]').exists()).toBe(true)
  })
  it('no policy, no lock', () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws } })
    expect(w.find('[data-testid="org-lock"]').exists()).toBe(false)
    expect(w.get('option[value="danger-full-access"]').attributes('disabled')).toBeUndefined()
  })
})

import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { Sandbox, WardenEvent } from '../../bridge'
import type { Remedy } from '../../model/words'
import ChatPermissionItem from './ChatPermissionItem.vue'

const ev = (kind: string, data: Record<string, unknown>): WardenEvent => ({
  seq: 1,
  session_id: 's1',
  version: 1,
  kind,
  at: 0,
  data: { tool: 'shell.exec', signature: 'shell=rm -rf build', ...data },
})
const ws: Sandbox = { kind: 'workspace-write', network_access: false, writable_roots: [] }

describe('ChatPermissionItem', () => {
  const cases: { name: string; event: WardenEvent; text: string }[] = [
    { name: 'allowed by sandbox', event: ev('permission_granted', { source: 'sandbox+policy' }), text: 'allowed by sandbox and policy' },
    { name: 'allowed by grant', event: ev('permission_granted', { source: 'session-grant:shell=ls' }), text: 'allowed by session grant shell=ls' },
    { name: 'allowed by rule', event: ev('permission_granted', { source: 'workspace-rule:shell=ls' }), text: 'allowed by workspace rule shell=ls' },
    { name: 'human once', event: ev('permission_granted', { source: 'human:once' }), text: 'allowed once by you' },
    { name: 'human always', event: ev('permission_granted', { source: 'human:always' }), text: 'always allowed by you' },
    { name: 'trusted server', event: ev('permission_granted', { source: 'trusted-mcp:fs' }), text: 'allowed: trusted server fs' },
    { name: 'asked', event: ev('permission_requested', { reasons: ['destructive-effect'] }), text: 'asked you' },
    { name: 'denied by sandbox', event: ev('permission_denied', { by: 'sandbox', reason: 'sandbox-rejected' }), text: 'denied by the sandbox' },
    { name: 'denied by user', event: ev('permission_denied', { by: 'user', reason: 'user-denied' }), text: 'denied by you' },
    { name: 'denied by freeze', event: ev('permission_denied', { by: 'freeze', reason: 'planning-freeze' }), text: 'denied by the planning freeze' },
    { name: 'no approver', event: ev('permission_denied', { by: 'no-approver', reason: 'no-approver' }), text: 'denied: no approver' },
    {
      name: 'allowed by a reviewer model, with its reason',
      event: ev('permission_granted', { source: 'answerer:model:claude-haiku-4-5', layer: 'answerer', layer_detail: 'model:claude-haiku-4-5', detail: 'reads only the workspace' }),
      text: 'allowed by reviewer model (claude-haiku-4-5)',
    },
    {
      name: "a reviewer's reason is shown",
      event: ev('permission_granted', { source: 'answerer:model:claude-haiku-4-5', layer: 'answerer', layer_detail: 'model:claude-haiku-4-5', detail: 'reads only the workspace' }),
      text: 'Reads only the workspace.',
    },
    {
      name: 'allowed by a command answerer',
      event: ev('permission_granted', { source: 'answerer:command:corp-check', layer: 'answerer', layer_detail: 'command:corp-check', detail: 'on the list' }),
      text: 'allowed by command `corp-check`',
    },
    {
      name: 'denied by a hook, with its reason',
      event: ev('permission_denied', { by: 'no-approver', reason: 'hook-denied', layer: 'answerer', layer_detail: 'hook:corp-guard', detail: 'pushes go through CI' }),
      text: 'denied by hook `corp-guard`',
    },
    {
      name: 'denied by a reviewer model',
      event: ev('permission_denied', { by: 'no-approver', reason: 'answerer-denied', layer: 'answerer', layer_detail: 'model:reviewer', detail: 'deletes the build' }),
      text: 'denied by reviewer model (reviewer)',
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const w = mount(ChatPermissionItem, { props: { event: c.event } })
      expect(w.text()).toContain(c.text)
      expect(w.text()).toContain('shell=rm -rf build')
    })
  }

  const remedies: { remedy: string; label: string; want: Partial<Sandbox>; confirm: boolean }[] = [
    { remedy: 'switch the sandbox to workspace-write', label: 'Switch this session to Workspace write', want: { kind: 'workspace-write' }, confirm: false },
    { remedy: 'turn network access on', label: 'Turn network on for this session', want: { network_access: true }, confirm: false },
    {
      remedy: 'add the folder as a writable root, or switch the sandbox to danger-full-access',
      label: 'Switch this session to Full access',
      want: { kind: 'danger-full-access' },
      confirm: true,
    },
  ]
  for (const r of remedies) {
    it(`remedy button: ${r.label}`, async () => {
      const w = mount(ChatPermissionItem, {
        props: { event: ev('permission_denied', { by: 'sandbox', reason: 'sandbox-rejected', remedy: r.remedy }) },
      })
      const b = w.get('button.remedy')
      expect(b.text()).toBe(r.label)
      await b.trigger('click')
      const [[got]] = w.emitted('remedy') as [[Remedy]]
      expect(got.apply({ ...ws, kind: 'read-only' })).toMatchObject(r.want)
      expect(Boolean(got.confirm)).toBe(r.confirm)
    })
  }

  const after: { name: string; remedy: string; sandbox: Sandbox; applied: boolean; done: string }[] = [
    { name: 'network remedy, network still off', remedy: 'turn network access on', sandbox: ws, applied: false, done: '' },
    { name: 'network remedy, network on', remedy: 'turn network access on', sandbox: { ...ws, network_access: true }, applied: true, done: 'Network is on for this session now' },
    { name: 'network remedy, full access', remedy: 'turn network access on', sandbox: { ...ws, kind: 'danger-full-access' }, applied: true, done: 'Network is on for this session now' },
    { name: 'write remedy, still read only', remedy: 'switch the sandbox to workspace-write', sandbox: { ...ws, kind: 'read-only' }, applied: false, done: '' },
    { name: 'write remedy, workspace write', remedy: 'switch the sandbox to workspace-write', sandbox: ws, applied: true, done: 'This session is in Workspace write now' },
  ]
  for (const c of after) {
    it(`remedy once applied: ${c.name}`, async () => {
      const w = mount(ChatPermissionItem, {
        props: { event: ev('permission_denied', { by: 'sandbox', reason: 'sandbox-rejected', remedy: c.remedy }), sandbox: c.sandbox },
      })
      const b = w.get('[data-testid="remedy"]')
      expect(b.attributes('disabled') !== undefined).toBe(c.applied)
      expect(w.find('[data-testid="retry"]').exists()).toBe(c.applied)
      if (c.applied) {
        expect(b.text()).toBe(c.done)
        await w.get('[data-testid="retry"]').trigger('click')
        expect(w.emitted('retry')).toHaveLength(1)
      }
    })
  }

  it('has a role and an accessible name', () => {
    const w = mount(ChatPermissionItem, { props: { event: ev('permission_denied', { by: 'sandbox', reason: 'sandbox-rejected' }) } })
    expect(w.get('[data-testid="permission-item"]').attributes('role')).toBe('group')
    expect(w.get('[data-testid="permission-item"]').attributes('aria-label')).toBe('Denied: shell.exec, denied by the sandbox')
  })

  it('a denial without a known remedy has no button but shows the remedy text', () => {
    const w = mount(ChatPermissionItem, { props: { event: ev('permission_denied', { by: 'sandbox', reason: 'sandbox-rejected', remedy: 'ask an admin' }) } })
    expect(w.find('button').exists()).toBe(false)
    expect(w.get('[data-testid="denial-remedy"]').text()).toBe('To allow it: ask an admin.')
  })
})

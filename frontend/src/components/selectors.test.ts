import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { Sandbox } from '../bridge'
import { confirmState } from '../model/confirm'
import ChatApprovalSelector from './ChatApprovalSelector.vue'
import ChatSandboxSelector from './ChatSandboxSelector.vue'

const ws: Sandbox = { kind: 'workspace-write', network_access: false, writable_roots: ['/tmp/out'] }

describe('ChatApprovalSelector', () => {
  it('is labelled "Approval policy" with the three options', () => {
    const w = mount(ChatApprovalSelector, { props: { modelValue: 'on-request' } })
    const sel = w.get('select')
    expect(sel.attributes('aria-label')).toBe('Approval policy')
    expect(sel.findAll('option').map((o) => o.text())).toEqual(['Never', 'On request', 'Always'])
  })
  for (const v of ['never', 'always'] as const) {
    it(`emits ${v}`, async () => {
      const w = mount(ChatApprovalSelector, { props: { modelValue: 'on-request' } })
      await w.get('select').setValue(v)
      expect(w.emitted('update:modelValue')).toEqual([[v]])
    })
  }
})

describe('ChatSandboxSelector', () => {
  it('is labelled "Sandbox" with the three options', () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws } })
    const sel = w.get('select')
    expect(sel.attributes('aria-label')).toBe('Sandbox')
    expect(sel.findAll('option').map((o) => o.text())).toEqual(['Read only', 'Workspace write', 'Full access'])
  })
  it('emits Read only at once', async () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws } })
    await w.get('select').setValue('read-only')
    await flushPromises()
    expect(w.emitted('update:modelValue')).toEqual([[{ ...ws, kind: 'read-only' }]])
  })
  const confirms: { name: string; ok: boolean; emits: boolean }[] = [
    { name: 'Full access after confirming', ok: true, emits: true },
    { name: 'no change when Full access is cancelled', ok: false, emits: false },
  ]
  for (const c of confirms) {
    it(c.name, async () => {
      const w = mount(ChatSandboxSelector, { props: { modelValue: ws } })
      await w.get('select').setValue('danger-full-access')
      expect(confirmState.resolve).not.toBeNull()
      expect(confirmState.message).toContain('Full access')
      expect(w.emitted('update:modelValue')).toBeUndefined()
      confirmState.resolve!(c.ok)
      await flushPromises()
      expect(w.emitted('update:modelValue')).toEqual(c.emits ? [[{ ...ws, kind: 'danger-full-access' }]] : undefined)
      if (!c.ok) expect((w.get('select').element as HTMLSelectElement).value).toBe('workspace-write')
    })
  }
  it('Network access switch and writable roots under Workspace write', async () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws } })
    const sw = w.get('input[role="switch"]')
    expect(sw.attributes('aria-label')).toBe('Network access')
    await sw.setValue(true)
    await w.get('button.link').trigger('click')
    await w.get('input[aria-label="New writable root"]').setValue('/srv/cache')
    await w.get('form').trigger('submit')
    await w.get('button[aria-label="Remove /tmp/out"]').trigger('click')
    expect(w.emitted('update:modelValue')).toEqual([
      [{ ...ws, network_access: true }],
      [{ ...ws, writable_roots: ['/tmp/out', '/srv/cache'] }],
      [{ ...ws, writable_roots: [] }],
    ])
  })
  it('no network switch under Read only', () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: { ...ws, kind: 'read-only' } } })
    expect(w.find('input[role="switch"]').exists()).toBe(false)
  })
})

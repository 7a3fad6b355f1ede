import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { Sandbox } from '../../bridge'
import { confirmState } from '../../model/confirm'
import ChatApprovalSelector from './ChatApprovalSelector.vue'
import ChatSandboxSelector from './ChatSandboxSelector.vue'

const ws: Sandbox = { kind: 'workspace-write', network_access: false, writable_roots: ['/tmp/out'] }

describe('ChatApprovalSelector', () => {
  it('is labelled "Approval policy" with the three options', () => {
    const w = mount(ChatApprovalSelector, { props: { modelValue: 'on-request' } })
    const sel = w.get('select')
    expect(sel.attributes('aria-label')).toBe('Approval policy')
    expect(sel.findAll('option').map((o) => o.text())).toEqual(['Never ask', 'On request', 'Always ask'])
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

describe('selectors say what each option does', () => {
  it('every approval option has a one-line description, and the select carries the current one', () => {
    const w = mount(ChatApprovalSelector, { props: { modelValue: 'never' } })
    for (const o of w.findAll('option')) expect(o.attributes('title')?.length).toBeGreaterThan(20)
    expect(w.get('select').attributes('aria-description')).toContain('Never asks you')
  })
  it('every sandbox option has a one-line description', () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws } })
    for (const o of w.findAll('option')) expect(o.attributes('title')?.length).toBeGreaterThan(20)
    expect(w.get('select').attributes('aria-description')).toContain('workspace')
  })
  const pairs: { name: string; ok: boolean }[] = [
    { name: 'Never ask under Full access is confirmed', ok: true },
    { name: 'Never ask under Full access cancelled keeps the policy', ok: false },
  ]
  for (const c of pairs) {
    it(c.name, async () => {
      const w = mount(ChatApprovalSelector, { props: { modelValue: 'on-request', sandboxKind: 'danger-full-access' } })
      await w.get('select').setValue('never')
      expect(confirmState.message).toContain('Never ask with Full access')
      confirmState.resolve!(c.ok)
      await flushPromises()
      expect(w.emitted('update:modelValue')).toEqual(c.ok ? [['never']] : undefined)
      if (!c.ok) expect((w.get('select').element as HTMLSelectElement).value).toBe('on-request')
    })
  }
  it('Never ask under the cage is not confirmed', async () => {
    const w = mount(ChatApprovalSelector, { props: { modelValue: 'on-request', sandboxKind: 'workspace-write' } })
    await w.get('select').setValue('never')
    expect(w.emitted('update:modelValue')).toEqual([['never']])
  })
  it('Full access while Never ask shows the pair warning', async () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws, approval: 'never' } })
    await w.get('select').setValue('danger-full-access')
    expect(confirmState.message).toContain('Never ask with Full access')
    confirmState.resolve!(false)
    await flushPromises()
  })
  it('the writable-roots panel is fixed-positioned so the status bar cannot clip it', async () => {
    const w = mount(ChatSandboxSelector, { props: { modelValue: ws }, attachTo: document.body })
    await w.get('button.link').trigger('click')
    const panel = w.get('[aria-label="Writable roots"]')
    expect(panel.attributes('style')).toContain('bottom')
    expect(panel.attributes('style')).toContain('left')
    w.unmount()
  })
})

import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { GrantView } from '../bridge'
import GrantsPanel from './GrantsPanel.vue'

const grants: GrantView[] = [
  { id: 'g1', kind: 'grant', signature: 'shell=rm -rf build', scope: 'session', reasons: ['destructive-effect'], created_at: 1, uses: 2 },
  { id: 'g2', kind: 'rule', signature: 'shell:npm test', scope: 'workspace', reasons: ['unknown-command'], created_at: 1, uses: 0, expires_at: 99 },
  { id: 'fs', kind: 'mcp-trust', signature: 'mcp:fs', scope: 'persistent', reasons: [], created_at: 1, uses: 0, server: 'fs' },
]

describe('GrantsPanel', () => {
  it('is named Grants and lists every grant, rule and trust', () => {
    const w = mount(GrantsPanel, { props: { grants } })
    expect(w.get('section').attributes('aria-label')).toBe('Grants')
    expect(w.findAll('[data-testid="grant-row"]')).toHaveLength(3)
    expect(w.text()).toContain('Destructive')
  })
  it('Revoke emits the grant', async () => {
    const w = mount(GrantsPanel, { props: { grants } })
    await w.get('button[aria-label="Revoke fs"]').trigger('click')
    await w.get('button[aria-label="Revoke shell=rm -rf build"]').trigger('click')
    expect(w.emitted('revoke')).toEqual([[grants[2]], [grants[0]]])
  })
  const filters: { kind: string; ids: number }[] = [
    { kind: 'grant', ids: 1 },
    { kind: 'rule', ids: 1 },
    { kind: 'mcp-trust', ids: 1 },
    { kind: 'all', ids: 3 },
  ]
  for (const f of filters) {
    it(`filters by kind ${f.kind}`, async () => {
      const w = mount(GrantsPanel, { props: { grants } })
      await w.get('select').setValue(f.kind)
      expect(w.findAll('[data-testid="grant-row"]')).toHaveLength(f.ids)
    })
  }
  it('says when nothing is granted', () => {
    expect(mount(GrantsPanel, { props: { grants: [] } }).text()).toContain('Nothing granted')
  })
})

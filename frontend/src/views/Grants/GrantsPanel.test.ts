import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import type { GrantView } from '../../bridge'
import GrantsPanel from './GrantsPanel.vue'

const grants: GrantView[] = [
  { id: 'g1', kind: 'grant', signature: 'shell=rm -rf build', scope: 'session', reasons: ['destructive-effect'], created_at: 1, uses: 2 },
  { id: 'g2', kind: 'rule', signature: 'shell:npm test', scope: 'workspace', reasons: ['unknown-command'], created_at: 1, uses: 0, expires_at: 99 },
  { id: 'session:fs', kind: 'mcp-server', signature: 'mcp-server:fs', scope: 'session', reasons: [], created_at: 1, uses: 0, server: 'fs' },
  { id: 'workspace:fs', kind: 'mcp-server', signature: 'mcp-server:fs', scope: 'workspace', reasons: [], created_at: 1, uses: 0, server: 'fs' },
  { id: 'old', kind: 'mcp-trust', signature: 'mcp-server:old', scope: 'persistent', reasons: [], created_at: 1, uses: 0, server: 'old' },
]

describe('GrantsPanel', () => {
  it('is named Grants and lists every grant, rule and trust', () => {
    const w = mount(GrantsPanel, { props: { grants } })
    expect(w.get('section').attributes('aria-label')).toBe('Grants')
    expect(w.findAll('[data-testid="grant-row"]')).toHaveLength(5)
    expect(w.text()).toContain('Destructive')
  })
  it('Revoke emits the grant', async () => {
    const w = mount(GrantsPanel, { props: { grants } })
    await w.get('button[aria-label="Revoke MCP server fs (workspace)"]').trigger('click')
    await w.get('button[aria-label="Revoke MCP server fs (session)"]').trigger('click')
    await w.get('button[aria-label="Revoke shell=rm -rf build"]').trigger('click')
    expect(w.emitted('revoke')).toEqual([[grants[3]], [grants[2]], [grants[0]]])
  })
  const filters: { kind: string; ids: number }[] = [
    { kind: 'grant', ids: 1 },
    { kind: 'rule', ids: 1 },
    { kind: 'mcp-server', ids: 3 },
    { kind: 'all', ids: 5 },
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

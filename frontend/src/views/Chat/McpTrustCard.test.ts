import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeKey, type McpPendingServer } from '../../bridge'
import { fakeBridge, testSession } from '../../testing/fakeBridge'
import { useMcpTrustStore } from '../../stores/mcpTrust'
import McpTrustCard from './McpTrustCard.vue'

const everything: McpPendingServer = {
  name: 'everything',
  source: '/work/proj/.mcp.json',
  transport: 'stdio',
  launch: "/work/proj/node_modules/.bin/mcp-server-everything 'a b'",
  command: '/work/proj/node_modules/.bin/mcp-server-everything',
  args: ['a b'],
  env_names: ['API_TOKEN'],
  workspace: '/work/proj',
}
const web: McpPendingServer = { name: 'web', source: '/work/proj/.mcp.json', transport: 'http', launch: 'https://mcp.example.com/mcp', url: 'https://mcp.example.com/mcp', workspace: '/work/proj', changed: true }

async function mountCard(pending: McpPendingServer[][]) {
  let n = 0
  const f = fakeBridge({
    handlers: {
      McpPending: () => pending[Math.min(n++, pending.length - 1)] ?? [],
      TrustMcpServer: () => null,
    },
  })
  const pinia = createPinia()
  const w = mount(McpTrustCard, { props: { sessionId: 's1' }, global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } } })
  await flushPromises()
  return { w, f, store: useMcpTrustStore(pinia) }
}

describe('McpTrustCard', () => {
  it('names every untrusted server with its full launch command or URL', async () => {
    const { w } = await mountCard([[everything, web]])
    expect(w.get('[role="region"]').attributes('aria-label')).toBe('MCP servers to trust')
    expect(w.get('h2').text()).toContain('2 MCP servers')
    const launches = w.findAll('[data-testid="mcp-launch"]').map((l) => l.text())
    expect(launches).toEqual([everything.launch, web.launch])
    expect(w.text()).toContain('API_TOKEN')
    expect(w.text()).toContain('launch config changed since it was trusted')
  })

  it('is not shown when nothing waits for trust', async () => {
    const { w } = await mountCard([[]])
    expect(w.find('[data-testid="mcp-trust-card"]').exists()).toBe(false)
  })

  const scopes: { name: string; pick: string | null; scope: string }[] = [
    { name: 'Trust defaults to the workspace', pick: null, scope: 'workspace' },
    { name: 'Trust for this session only', pick: 'session', scope: 'session' },
  ]
  for (const c of scopes) {
    it(c.name, async () => {
      const { w, f } = await mountCard([[everything], []])
      if (c.pick) await w.get(`input[value="${c.pick}"]`).setValue(true)
      await w.get('button[aria-label="Trust everything"]').trigger('click')
      await flushPromises()
      expect(f.call).toHaveBeenCalledWith('TrustMcpServer', { session_id: 's1', server: 'everything', scope: c.scope })
      expect(w.find('[data-testid="mcp-trust-card"]').exists()).toBe(false)
    })
  }

  it('Not now hides the card until the list changes', async () => {
    const { w, store } = await mountCard([[everything], [everything], [everything, web]])
    await w.get('button:not([aria-label])').trigger('click')
    expect(w.find('[data-testid="mcp-trust-card"]').exists()).toBe(false)
    store.onPush({ type: 'event', event: { seq: 1, session_id: 's1', version: 1, kind: 'mcp_server_untrusted', at: 1, data: {} } })
    await flushPromises()
    expect(w.find('[data-testid="mcp-trust-card"]').exists()).toBe(false)
    store.onPush({ type: 'event', event: { seq: 2, session_id: 's1', version: 2, kind: 'mcp_server_untrusted', at: 2, data: {} } })
    await flushPromises()
    expect(w.findAll('[data-testid="mcp-pending-server"]')).toHaveLength(2)
  })

  it('a turn starting or ending re-reads the list (the backend watches .mcp.json)', async () => {
    const { w, store } = await mountCard([[], [web]])
    const s = testSession()
    store.onPush({ type: 'session', session: { ...s, busy: false } })
    await flushPromises()
    expect(w.find('[data-testid="mcp-trust-card"]').exists()).toBe(false)
    store.onPush({ type: 'session', session: { ...s, busy: false } })
    store.onPush({ type: 'session', session: { ...s, busy: true } })
    await flushPromises()
    expect(w.findAll('[data-testid="mcp-pending-server"]')).toHaveLength(1)
  })

  it('says why a trust failed', async () => {
    const f = fakeBridge({
      handlers: {
        McpPending: () => [everything],
        TrustMcpServer: () => {
          throw new Error('MCP server "everything" failed to start: exec: not found')
        },
      },
    })
    const pinia = createPinia()
    const w = mount(McpTrustCard, { props: { sessionId: 's1' }, global: { plugins: [pinia], provide: { [BridgeKey as symbol]: f.bridge } } })
    await flushPromises()
    await w.get('button[aria-label="Trust everything"]').trigger('click')
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toContain('failed to start')
  })
})

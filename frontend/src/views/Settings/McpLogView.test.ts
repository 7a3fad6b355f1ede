import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { describe, expect, it } from 'vitest'
import { BridgeError, BridgeKey, type McpLog } from '../../bridge'
import { fakeBridge } from '../../testing/fakeBridge'
import McpLogView from './McpLogView.vue'

function setup(log: (a: { server: string; lines?: number }) => McpLog) {
  const f = fakeBridge({ handlers: { McpLog: log } })
  const w = mount(McpLogView, {
    props: { server: 'fs' },
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return { f, w }
}
const logCalls = (f: ReturnType<typeof fakeBridge>) => f.call.mock.calls.filter((c) => c[0] === 'McpLog').map((c) => c[1])

describe('McpLogView', () => {
  const cases: { name: string; log: McpLog; lines: string | null; truncated: boolean; empty: boolean }[] = [
    {
      name: 'a short log',
      log: { server: 'fs', path: '/logs/fs.log', lines: ['Secure MCP Filesystem Server running on stdio', '<b>not html</b>'], truncated: false },
      lines: 'Secure MCP Filesystem Server running on stdio\n<b>not html</b>',
      truncated: false,
      empty: false,
    },
    {
      name: 'a truncated tail',
      log: { server: 'fs', path: '/logs/fs.log', lines: ['l199', 'l200'], truncated: true },
      lines: 'l199\nl200',
      truncated: true,
      empty: false,
    },
    { name: 'an empty log', log: { server: 'fs', path: '/logs/fs.log', lines: [], truncated: false }, lines: null, truncated: false, empty: true },
    { name: 'null lines from Go', log: { server: 'fs', path: '/logs/fs.log', lines: null, truncated: false }, lines: null, truncated: false, empty: true },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const { f, w } = setup(() => c.log)
      await flushPromises()
      expect(logCalls(f)).toEqual([{ server: 'fs', lines: 200 }])
      expect(w.get('[role="region"]').attributes('aria-label')).toBe('Log of fs')
      expect(w.text()).toContain('/logs/fs.log')
      const pre = w.find('pre[data-testid="log-lines"]')
      expect(pre.exists() ? pre.text() : null).toBe(c.lines)
      expect(w.find('b').exists()).toBe(false)
      expect(w.find('[data-testid="log-truncated"]').exists()).toBe(c.truncated)
      expect(w.find('[data-testid="log-empty"]').exists()).toBe(c.empty)
    })
  }

  it('Refresh reads again; the size select asks for more lines', async () => {
    let n = 0
    const { f, w } = setup(() => ({ server: 'fs', path: '/logs/fs.log', lines: [`read ${++n}`], truncated: false }))
    await flushPromises()
    await w.get('button[aria-label="Refresh fs\'s log"]').trigger('click')
    await flushPromises()
    expect(w.get('pre').text()).toBe('read 2')
    await w.get('select[aria-label="Lines of fs\'s log"]').setValue('2000')
    await flushPromises()
    expect(logCalls(f)).toEqual([
      { server: 'fs', lines: 200 },
      { server: 'fs', lines: 200 },
      { server: 'fs', lines: 2000 },
    ])
    expect(w.get('pre').text()).toBe('read 3')
  })

  it('a failed read is said in words', async () => {
    const { w } = setup(() => {
      throw new BridgeError('backend', 'McpLog', 'mcp: no server "fs"')
    })
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toBe('Could not read the log: mcp: no server "fs"')
  })
})

import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import DevServerItem from './DevServerItem.vue'
import { applyEvents, emptyTranscript } from '../../model/reducers'
import type { WardenEvent } from '../../bridge'

const ev = (seq: number, kind: string, data: Record<string, unknown>): WardenEvent =>
  ({ seq, session_id: 's1', version: seq, kind, at: seq, data })

describe('DevServerItem', () => {
  const events = [
    ev(1, 'monitor_started', { monitor_id: 'm1', command: 'npm run dev' }),
    ev(2, 'monitor_port_exposed', { monitor_id: 'm1', port: 5173, url: 'http://127.0.0.1:41234/', detected: true }),
  ]

  it('shows the URL as a link while the monitor runs', () => {
    const t = applyEvents(emptyTranscript(), events)
    const item = t.items.find((i) => i.type === 'devserver')
    if (!item || item.type !== 'devserver') throw new Error('no devserver item')
    const w = mount(DevServerItem, { props: { item } })
    const a = w.get('a[data-testid="devserver-url"]')
    expect(a.attributes('href')).toBe('http://127.0.0.1:41234/')
    expect(a.attributes('rel')).toContain('noopener')
    expect(w.get('[data-testid="devserver-item"]').attributes('aria-label')).toBe('Dev server: port 5173 at http://127.0.0.1:41234/')
    expect(w.text()).toContain('found listening')
  })

  it('is struck through, with no link, once the monitor stops', () => {
    const t = applyEvents(emptyTranscript(), [...events, ev(3, 'monitor_stopped', { monitor_id: 'm1', reason: 'stopped by the user' })])
    const item = t.items.find((i) => i.type === 'devserver')
    if (!item || item.type !== 'devserver') throw new Error('no devserver item')
    expect(item.stopped).toBe(true)
    const w = mount(DevServerItem, { props: { item } })
    expect(w.find('a').exists()).toBe(false)
    expect(w.get('s[data-testid="devserver-url"]').text()).toBe('http://127.0.0.1:41234/')
    expect(w.get('[data-testid="devserver-item"]').classes()).toContain('stopped')
  })

  it("another monitor's stop leaves it alone", () => {
    const t = applyEvents(emptyTranscript(), [...events, ev(3, 'monitor_stopped', { monitor_id: 'm2' })])
    const item = t.items.find((i) => i.type === 'devserver')
    expect(item && item.type === 'devserver' && item.stopped).toBe(false)
  })
})

import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { h } from 'vue'
import VirtualList from './VirtualList.vue'

describe('VirtualList', () => {
  it('renders only the rows in view out of 100,000', async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => i)
    const w = mount(VirtualList, {
      props: { items, rowHeight: 28, label: 'rows' },
      slots: { default: ({ item }: { item: unknown }) => h('span', `row ${String(item)}`) },
    })
    const rows = w.findAll('[role="listitem"]')
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.length).toBeLessThan(60)
    expect(w.get('.spacer').attributes('style')).toContain(`height: ${100_000 * 28}px`)
    expect(rows[0]!.text()).toBe('row 0')
  })
})

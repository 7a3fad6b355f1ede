import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { h, isReactive, nextTick, reactive } from 'vue'
import VirtualList from './VirtualList.vue'

const slot = { default: ({ item }: { item: unknown }) => h('span', `row ${String(item)}`) }

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

  // Each is a jump from the top, so one row of margin (see below).
  const scrolls: { name: string; top: number; first: string; offset: number; last?: string }[] = [
    { name: 'middle', top: 28 * 50_000, first: 'row 49999', offset: 28 * 49_999 },
    // jsdom has no layout: the viewport is the 600 px fallback.
    { name: 'end', top: 28 * 100_000 - 600, first: 'row 99977', offset: 28 * 99_977, last: 'row 99999' },
    { name: 'back to the top', top: 0, first: 'row 0', offset: 0 },
  ]
  for (const c of scrolls) {
    it(`scrolling to the ${c.name} moves the window`, async () => {
      const items = Array.from({ length: 100_000 }, (_, i) => i)
      const w = mount(VirtualList, { props: { items, rowHeight: 28, label: 'rows' }, slots: slot })
      const el = w.get('[role="list"]').element as HTMLElement
      el.scrollTop = c.top
      await w.get('[role="list"]').trigger('scroll')
      const rows = w.findAll('[role="listitem"]')
      expect(rows[0]!.text()).toBe(c.first)
      expect(w.get('.window').attributes('style')).toContain(`translateY(${c.offset}px)`)
      expect(rows.length).toBeLessThan(60)
      if (c.last) expect(rows.at(-1)!.text()).toBe(c.last)
    })
  }

  it('a jump of more than a screen renders no margin; the next small step brings it back', async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => i)
    const w = mount(VirtualList, { props: { items, rowHeight: 28, label: 'rows' }, slots: slot })
    const list = w.get('[role="list"]')
    const scrollTo = async (top: number) => {
      ;(list.element as HTMLElement).scrollTop = top
      await list.trigger('scroll')
      return w.findAll('[role="listitem"]')
    }
    const jumped = await scrollTo(28 * 50_000)
    // 600 px fallback viewport: 22 rows, one row of margin either side.
    expect(jumped[0]!.text()).toBe('row 49999')
    expect(jumped).toHaveLength(24)
    const stepped = await scrollTo(28 * 50_003)
    expect(stepped[0]!.text()).toBe('row 49995')
    expect(stepped).toHaveLength(38)
  })

  it('follows a new array and a reactive array that grows, without wrapping its items', async () => {
    const items = reactive([{ n: 1 }, { n: 2 }])
    let seen: unknown = null
    const w = mount(VirtualList, {
      props: { items, rowHeight: 28, label: 'rows' },
      slots: {
        default: ({ item }: { item: unknown }) => {
          seen = item
          return h('span', `n${(item as { n: number }).n}`)
        },
      },
    })
    expect(w.findAll('[role="listitem"]')).toHaveLength(2)
    items.push({ n: 3 })
    await nextTick()
    expect(w.findAll('[role="listitem"]').map((r) => r.text())).toEqual(['n1', 'n2', 'n3'])
    expect(isReactive(seen)).toBe(false)
    await w.setProps({ items: [{ n: 9 }] })
    expect(w.findAll('[role="listitem"]').map((r) => r.text())).toEqual(['n9'])
    expect(w.get('.spacer').attributes('style')).toContain('height: 28px')
  })
})

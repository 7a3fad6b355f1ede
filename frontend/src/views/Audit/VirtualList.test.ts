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

describe('VirtualList selection', () => {
  const keys: { name: string; selected: number; key: string; event: 'select' | 'open' | null; index?: number; top?: number }[] = [
    { name: 'ArrowDown with nothing selected picks the first row', selected: -1, key: 'ArrowDown', event: 'select', index: 0 },
    { name: 'ArrowDown moves one down', selected: 4, key: 'ArrowDown', event: 'select', index: 5 },
    { name: 'ArrowUp at the first row stays', selected: 0, key: 'ArrowUp', event: 'select', index: 0 },
    { name: 'End goes to the last row and scrolls it into view', selected: 0, key: 'End', event: 'select', index: 999, top: 28 * 1000 - 600 },
    { name: 'PageDown moves a screen less one row', selected: 0, key: 'PageDown', event: 'select', index: 20 },
    { name: 'Enter opens the selected row', selected: 7, key: 'Enter', event: 'open', index: 7 },
    { name: 'Enter with nothing selected opens the first', selected: -1, key: 'Enter', event: 'open', index: 0 },
    { name: 'other keys do nothing', selected: 3, key: 'a', event: null },
  ]
  for (const c of keys) {
    it(c.name, async () => {
      const items = Array.from({ length: 1000 }, (_, i) => i)
      const w = mount(VirtualList, { props: { items, rowHeight: 28, label: 'rows', selected: c.selected }, slots: slot })
      await w.get('[role="list"]').trigger('keydown', { key: c.key })
      const ev = { select: w.emitted('select'), open: w.emitted('open') }
      if (c.event === null) expect(ev).toEqual({ select: undefined, open: undefined })
      else expect(ev[c.event]).toEqual([[c.index]])
      if (c.top !== undefined) expect((w.get('[role="list"]').element as HTMLElement).scrollTop).toBe(c.top)
    })
  }

  it('a click selects the row, which is marked current', async () => {
    const items = Array.from({ length: 100 }, (_, i) => i)
    const w = mount(VirtualList, { props: { items, rowHeight: 28, label: 'rows' }, slots: slot })
    await w.findAll('[role="listitem"]')[3]!.trigger('click')
    expect(w.emitted('select')).toEqual([[3]])
    await w.setProps({ selected: 3 })
    expect(w.findAll('[aria-current="true"]').map((r) => r.text())).toEqual(['row 3'])
  })

  it('keepPlace moves a scrolled list down by the rows added above, but not one at the top', async () => {
    const items = Array.from({ length: 100 }, (_, i) => i)
    const w = mount(VirtualList, { props: { items, rowHeight: 28, label: 'rows' }, slots: slot })
    const el = w.get('[role="list"]').element as HTMLElement
    ;(w.vm as unknown as { keepPlace(n: number): void }).keepPlace(3)
    expect(el.scrollTop).toBe(0)
    el.scrollTop = 280
    ;(w.vm as unknown as { keepPlace(n: number): void }).keepPlace(3)
    expect(el.scrollTop).toBe(280 + 84)
  })
})

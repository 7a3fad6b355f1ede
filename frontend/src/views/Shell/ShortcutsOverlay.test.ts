import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { shortcuts } from '../../model/keys'
import ShortcutsOverlay from './ShortcutsOverlay.vue'

describe('ShortcutsOverlay', () => {
  it('lists every shortcut of the table with its keys, and the prompt keys', () => {
    const w = mount(ShortcutsOverlay)
    for (const s of shortcuts) expect(w.get(`[data-shortcut="${s.id}"]`).text()).toBe(`${s.keys}${s.what}`)
    expect(w.text()).toContain('Allow once')
    expect(w.text()).toContain('Always allow (with the scope chosen)')
  })
  it('spells the keys for a Mac', () => {
    const w = mount(ShortcutsOverlay, { props: { mac: true } })
    expect(w.get('[data-shortcut="palette"]').text()).toContain('⌘K')
    expect(w.get('[data-shortcut="new-session"]').text()).toContain('⌥N')
  })
  it('Esc, Close and a click outside close it', async () => {
    const w = mount(ShortcutsOverlay)
    await w.get('[role="dialog"]').trigger('keydown', { key: 'Escape' })
    await w.get('button').trigger('click')
    await w.get('.backdrop').trigger('mousedown')
    expect(w.emitted('close')).toHaveLength(3)
  })
})

import { mount } from '@vue/test-utils'
import { describe, expect, it, vi } from 'vitest'
import UndoToast from './UndoToast.vue'

describe('UndoToast', () => {
  it('says what was done, offers Undo, and goes away by itself', async () => {
    vi.useFakeTimers()
    const w = mount(UndoToast, { props: { text: 'Revoked: every file read in this session.', timeoutMs: 5000 } })
    expect(w.get('[role="status"]').text()).toContain('Revoked: every file read in this session.')
    await w.get('[data-testid="toast-undo"]').trigger('click')
    expect(w.emitted('undo')).toHaveLength(1)
    expect(w.emitted('close')).toBeUndefined()
    vi.advanceTimersByTime(5000)
    expect(w.emitted('close')).toHaveLength(1)
    vi.useRealTimers()
  })
  it('never takes the focus', () => {
    const before = document.activeElement
    mount(UndoToast, { props: { text: 'x' }, attachTo: document.body })
    expect(document.activeElement).toBe(before)
  })
})

import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { askConfirm } from '../../model/confirm'
import ConfirmHost from './ConfirmHost.vue'

describe('ConfirmHost', () => {
  it('every confirmation opens with Cancel focused: Enter never widens anything', async () => {
    const w = mount(ConfirmHost, { attachTo: document.body })
    const answer = askConfirm('Switch this session to Full access?', 'Switch to Full access')
    await flushPromises()
    expect(document.activeElement).toBe(w.get('[data-testid="confirm-cancel"]').element)
    ;(document.activeElement as HTMLButtonElement).click()
    expect(await answer).toBe(false)
    w.unmount()
  })
  it('Esc cancels; the action button says yes', async () => {
    const w = mount(ConfirmHost, { attachTo: document.body })
    let answer = askConfirm('Delete?', 'Delete')
    await flushPromises()
    await w.get('.backdrop').trigger('keydown', { key: 'Escape' })
    expect(await answer).toBe(false)
    answer = askConfirm('Delete?', 'Delete')
    await flushPromises()
    await w.get('[data-testid="confirm-ok"]').trigger('click')
    expect(await answer).toBe(true)
    w.unmount()
  })
})

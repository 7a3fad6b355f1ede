import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import ChatPane from './ChatPane.vue'

describe('ChatPane', () => {
  it('says plainly that the agent runtime is not connected and offers no input', () => {
    const w = mount(ChatPane)
    expect(w.get('[data-testid="runtime-notice"]').text()).toContain('Agent runtime not connected')
    expect(w.find('textarea').exists()).toBe(false)
    expect(w.find('input').exists()).toBe(false)
    expect(w.find('button').exists()).toBe(false)
  })
})

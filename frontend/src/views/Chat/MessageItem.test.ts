import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import MessageItem from './MessageItem.vue'

describe('MessageItem Restore to here', () => {
  it('a stored message offers Restore to here and emits its id', async () => {
    const w = mount(MessageItem, { props: { role: 'user', text: 'clean up', messageId: 'm1' } })
    await w.get('[data-testid="restore-here"]').trigger('click')
    expect(w.emitted('restore')).toEqual([['m1']])
  })
  const without: { name: string; props: { role: string; text: string; messageId?: string; streaming?: boolean } }[] = [
    { name: 'a message without an id', props: { role: 'assistant', text: 'hi' } },
    { name: 'the streaming reply', props: { role: 'assistant', text: 'hi', messageId: 'm2', streaming: true } },
  ]
  for (const c of without) {
    it(`${c.name} offers none`, () => {
      expect(mount(MessageItem, { props: c.props }).find('[data-testid="restore-here"]').exists()).toBe(false)
    })
  }
})

import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import SessionSidebar from './SessionSidebar.vue'

describe('SessionSidebar', () => {
  it('shows the empty state and no action buttons when there are no sessions', () => {
    const w = mount(SessionSidebar, { props: { sessions: [] } })
    expect(w.get('[data-testid="sessions-empty"]').text()).toContain('No sessions yet')
    expect(w.text()).toContain('Sessions')
    expect(w.text()).toContain('Warden')
    expect(w.findAll('button')).toHaveLength(0)
    expect(w.find('li').exists()).toBe(false)
  })

  it('lists sessions by title', () => {
    const w = mount(SessionSidebar, {
      props: {
        sessions: [
          { id: 'a', title: 'Fix the flaky test' },
          { id: 'b', title: 'Refactor the store' },
        ],
      },
    })
    expect(w.findAll('li').map((li) => li.text())).toEqual(['Fix the flaky test', 'Refactor the store'])
    expect(w.find('[data-testid="sessions-empty"]').exists()).toBe(false)
  })
})

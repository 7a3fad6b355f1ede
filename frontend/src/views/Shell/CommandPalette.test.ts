import { mount } from '@vue/test-utils'
import { afterEach, describe, expect, it } from 'vitest'
import { testSession } from '../../testing/fakeBridge'
import CommandPalette from './CommandPalette.vue'

const sessions = [
  testSession({ id: 'a', title: 'Clean up the build', first_message: 'Clean up the build folder please' }),
  testSession({ id: 'b', title: 'proj', first_message: 'Fix the failing parser test', workspace: '/srv/proj' }),
]
const commands = [
  { id: 'tab-grants', label: 'Grants', words: 'permissions revoke' },
  { id: 'new-session', label: 'New session' },
]
const mounted: { unmount(): void }[] = []
afterEach(() => mounted.splice(0).forEach((w) => w.unmount()))
function open() {
  const w = mount(CommandPalette, { props: { sessions, commands, currentId: 'a' }, attachTo: document.body })
  mounted.push(w)
  return w
}

describe('CommandPalette', () => {
  it('is a dialog whose search field has the focus, listing sessions then commands', () => {
    const w = open()
    expect(w.get('[role="dialog"]').attributes('aria-label')).toBe('Find a session or a command')
    expect(document.activeElement).toBe(w.get('input').element)
    expect(w.findAll('[data-testid="palette-item"]').map((i) => i.text())).toEqual([
      expect.stringContaining('Clean up the build'),
      expect.stringContaining('proj'),
      expect.stringContaining('Grants'),
      expect.stringContaining('New session'),
    ])
    expect(w.findAll('[data-testid="palette-item"]')[0]!.text()).toContain('open')
  })
  it('finds a session by its first message and opens it with Enter', async () => {
    const w = open()
    await w.get('input').setValue('parser')
    const items = w.findAll('[data-testid="palette-item"]')
    expect(items).toHaveLength(1)
    expect(items[0]!.text()).toContain('first message: Fix the failing parser test')
    await w.get('input').trigger('keydown', { key: 'Enter' })
    expect(w.emitted('session')).toEqual([['b']])
  })
  it('arrows move the choice; Enter runs a command', async () => {
    const w = open()
    await w.get('input').trigger('keydown', { key: 'ArrowDown' })
    await w.get('input').trigger('keydown', { key: 'ArrowDown' })
    expect(w.findAll('[aria-selected="true"]')[0]!.text()).toContain('Grants')
    await w.get('input').trigger('keydown', { key: 'Enter' })
    expect(w.emitted('command')).toEqual([['tab-grants']])
    await w.get('input').trigger('keydown', { key: 'ArrowUp' })
    await w.get('input').trigger('keydown', { key: 'ArrowUp' })
    await w.get('input').trigger('keydown', { key: 'ArrowUp' })
    expect(w.findAll('[aria-selected="true"]')[0]!.text()).toContain('New session')
  })
  it('finds a command by its other words; says when nothing matches; Esc and a click outside close', async () => {
    const w = open()
    await w.get('input').setValue('revoke')
    expect(w.findAll('[data-testid="palette-item"]').map((i) => i.text())).toEqual([expect.stringContaining('Grants')])
    await w.get('input').setValue('zzz')
    expect(w.text()).toContain('Nothing matches “zzz”')
    await w.get('input').trigger('keydown', { key: 'Escape' })
    await w.get('[data-testid="palette-backdrop"]').trigger('mousedown')
    expect(w.emitted('close')).toHaveLength(2)
  })
})

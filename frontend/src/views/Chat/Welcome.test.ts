import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { BridgeKey } from '../../bridge'
import { fakeBridge } from '../../testing/fakeBridge'
import Welcome from './Welcome.vue'

function open(props: Record<string, unknown>) {
  return mount(Welcome, {
    props: { demo: true, model: 'script:demo', startDir: '/home/u/shop', ...props },
    global: { provide: { [BridgeKey as symbol]: fakeBridge({ transport: 'http' }).bridge } },
    attachTo: document.body,
  })
}

describe('Welcome', () => {
  it('says what Warden is and that this is the demo; the folder is where Warden started; the box has the focus', () => {
    const w = open({})
    expect(w.get('h1').text()).toBe('Welcome to Warden')
    expect(w.get('[data-testid="welcome-demo"]').text()).toContain('This is the demo.')
    expect((w.get('#welcome-folder').element as HTMLInputElement).value).toBe('/home/u/shop')
    expect(document.activeElement).toBe(w.get('#welcome-text').element)
    expect(w.get('#welcome-text').attributes('placeholder')).toBe('Type anything to start the demo')
    w.unmount()
  })
  it('Enter starts with what was typed; an empty box still starts the demo', async () => {
    const w = open({})
    await w.get('#welcome-text').setValue('hello')
    await w.get('#welcome-text').trigger('keydown', { key: 'Enter' })
    await w.get('#welcome-text').setValue('')
    await w.get('form').trigger('submit')
    expect(w.emitted('start')).toEqual([
      ['/home/u/shop', 'hello'],
      ['/home/u/shop', 'Show me the demo'],
    ])
    w.unmount()
  })
  it('Shift+Enter is a new line, not a start', async () => {
    const w = open({})
    await w.get('#welcome-text').trigger('keydown', { key: 'Enter', shiftKey: true })
    expect(w.emitted('start')).toBeUndefined()
    w.unmount()
  })
  it('with a real model it names it and needs a message', async () => {
    const w = open({ demo: false, model: 'anthropic:claude-sonnet-4-5' })
    expect(w.text()).toContain('Your model is anthropic:claude-sonnet-4-5')
    expect(w.find('[data-testid="welcome-demo"]').exists()).toBe(false)
    expect(w.get('[data-testid="welcome-start"]').attributes('disabled')).toBeDefined()
    await w.get('form').trigger('submit')
    expect(w.emitted('start')).toBeUndefined()
    w.unmount()
  })
  it('shows why a start failed and links to Settings for a key', async () => {
    const w = open({ error: 'The folder /nope does not exist. Check the path, or create the folder first.' })
    expect(w.get('[data-testid="welcome-error"]').text()).toContain('/nope does not exist')
    await w.get('[data-testid="welcome-settings"]').trigger('click')
    expect(w.emitted('settings')).toHaveLength(1)
    w.unmount()
  })
})

import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { afterEach, describe, expect, it } from 'vitest'
import App from '../../App.vue'
import { BridgeKey, type Approval, type Bridge, type GrantView, type WardenEvent } from '../../bridge'
import { fakeBridge, testInfo, testSession } from '../../testing/fakeBridge'

const mounted: { unmount(): void }[] = []
afterEach(() => {
  mounted.splice(0).forEach((w) => w.unmount())
  document.body.innerHTML = ''
})
async function app(bridge: Bridge) {
  const w = mount(App, { global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: bridge } }, attachTo: document.body })
  mounted.push(w)
  await flushPromises()
  return w
}
const press = async (key: string, opts: KeyboardEventInit = {}, target: EventTarget = document.body) => {
  target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...opts }))
  await flushPromises()
}
const selectedTab = () => document.querySelector('[role="tab"][aria-selected="true"]')?.textContent?.trim()

const sessions = [
  testSession({ id: 's1', title: 'First', first_message: 'clean the build folder' }),
  testSession({ id: 's2', title: 'Second', first_message: 'fix the parser', updated_at: 1 }),
]

describe('the window keyboard', () => {
  it('Alt+G, Alt+A, Alt+, and Alt+C switch views, also from the message box', async () => {
    await app(fakeBridge({ handlers: { ListSessions: () => sessions } }).bridge)
    await press('g', { altKey: true, code: 'KeyG' })
    expect(selectedTab()).toMatch(/^Grants/)
    await press('a', { altKey: true, code: 'KeyA' })
    expect(selectedTab()).toBe('Audit trail')
    await press(',', { altKey: true, code: 'Comma' })
    expect(selectedTab()).toBe('Settings')
    await press('c', { altKey: true, code: 'KeyC' })
    expect(selectedTab()).toBe('Chat')
    const box = document.querySelector('textarea[aria-label="Message"]')!
    await press('g', { altKey: true, code: 'KeyG' }, box)
    expect(selectedTab()).toMatch(/^Grants/)
  })
  it('? opens the shortcuts, but typed in the message box it is text', async () => {
    await app(fakeBridge({ handlers: { ListSessions: () => sessions } }).bridge)
    const box = document.querySelector('textarea[aria-label="Message"]')!
    await press('?', { shiftKey: true }, box)
    expect(document.querySelector('[data-testid="shortcuts"]')).toBeNull()
    await press('?', { shiftKey: true })
    expect(document.querySelector('[data-testid="shortcuts"]')).not.toBeNull()
  })
  it('Ctrl+K opens the palette; choosing a session by its first message opens it', async () => {
    await app(fakeBridge({ handlers: { ListSessions: () => sessions } }).bridge)
    expect(document.querySelector('.chat h1')?.textContent).toBe('First')
    await press('k', { ctrlKey: true, code: 'KeyK' })
    const input = document.querySelector<HTMLInputElement>('[data-testid="palette"] input')!
    input.value = 'parser'
    input.dispatchEvent(new Event('input'))
    await flushPromises()
    await press('Enter', {}, input)
    expect(document.querySelector('[data-testid="palette"]')).toBeNull()
    expect(document.querySelector('.chat h1')?.textContent).toBe('Second')
  })
  it('Alt+↓ and Alt+2 move between sessions; / focuses the message box', async () => {
    await app(fakeBridge({ handlers: { ListSessions: () => sessions } }).bridge)
    await press('ArrowDown', { altKey: true })
    expect(document.querySelector('.chat h1')?.textContent).toBe('Second')
    await press('1', { altKey: true, code: 'Digit1' })
    expect(document.querySelector('.chat h1')?.textContent).toBe('First')
    await press('/')
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Message')
  })
  it('Esc stops a running turn; with nothing running it does nothing', async () => {
    const f = fakeBridge({ handlers: { ListSessions: () => [testSession({ busy: true })], Cancel: () => null } })
    await app(f.bridge)
    await press('Escape')
    expect(f.call.mock.calls.filter((c) => c[0] === 'Cancel')).toEqual([['Cancel', { session_id: 's1' }]])
    const g = fakeBridge({ handlers: { ListSessions: () => [testSession()], Cancel: () => null } })
    mounted.splice(0).forEach((w) => w.unmount())
    await app(g.bridge)
    await press('Escape')
    expect(g.call.mock.calls.filter((c) => c[0] === 'Cancel')).toEqual([])
  })
  it('an open permission request owns the keyboard', async () => {
    const ask: Approval = { request_id: 'r1', session_id: 's1', call_id: 'c1', tool: 'shell.exec', args: { command: 'ls' }, risk: 'low', reasons: ['policy-always'], signature: 'shell:ls', effects: [], trace: [], created_at: 1, live: true }
    await app(fakeBridge({ handlers: { ListSessions: () => sessions, PendingApprovals: () => [ask] } }).bridge)
    expect(document.querySelector('[data-testid="permission-prompt"]')).not.toBeNull()
    await press('k', { ctrlKey: true, code: 'KeyK' })
    await press('g', { altKey: true, code: 'KeyG' })
    expect(document.querySelector('[data-testid="palette"]')).toBeNull()
    expect(selectedTab()).toBe('Chat')
  })
})

describe('Revoke with Undo', () => {
  it('Revoke takes effect at once; the note says what it covered; Undo gives it back', async () => {
    const rule: GrantView = { id: 'g1', kind: 'rule', signature: 'shell=rm -rf build', scope: 'workspace', reasons: ['destructive-effect'], created_at: 1, uses: 0 }
    let grants: GrantView[] = [rule]
    const f = fakeBridge({
      handlers: {
        ListSessions: () => sessions,
        ListGrants: () => grants,
        RevokeGrant: () => ((grants = []), null),
        RestoreGrant: () => {
          grants = [{ ...rule, id: 'g2', created_at: 2 }]
          return grants[0]!
        },
      },
    })
    await app(f.bridge)
    await press('g', { altKey: true, code: 'KeyG' })
    const covers = document.querySelector('[data-testid="grant-covers"]')!.textContent!
    expect(covers).toContain('Exactly this command, character for character, in this workspace')
    document.querySelector<HTMLButtonElement>('[data-testid="grant-row"] button')!.click()
    await flushPromises()
    expect(document.querySelector('[data-testid="grant-row"]')).toBeNull()
    const toast = document.querySelector('[data-testid="undo-toast"]')!
    expect(toast.textContent).toContain('Revoked: exactly this command, character for character, in this workspace')
    document.querySelector<HTMLButtonElement>('[data-testid="toast-undo"]')!.click()
    await flushPromises()
    expect(f.call.mock.calls.filter((c) => c[0] === 'RestoreGrant')).toEqual([['RestoreGrant', { session_id: 's1', id: 'g1' }]])
    expect(document.querySelector('[data-testid="undo-toast"]')).toBeNull()
    expect(document.querySelectorAll('[data-testid="grant-row"]')).toHaveLength(1)
  })
})

describe('the chat and the status bar', () => {
  const usageEvent = (seq: number, usage: object): WardenEvent => ({ seq, session_id: 's1', version: seq, kind: 'message_appended', at: seq, data: { role: 'assistant', text: 'ok', usage } })
  it('say "Waiting for you" while an ask of the session is open, and no clock runs', async () => {
    await app(fakeBridge({ handlers: { ListSessions: () => [testSession({ busy: true, pending: 1 })] } }).bridge)
    const line = document.querySelector('[data-testid="working"]')!.textContent!
    expect(line).toContain('Waiting for you')
    expect(line).not.toMatch(/\d+ s/)
  })
  it('the status bar shows the turn\'s tokens and the context from the provider\'s usage', async () => {
    const evs: WardenEvent[] = [
      { seq: 1, session_id: 's1', version: 1, kind: 'message_appended', at: 1, data: { role: 'user', text: 'go' } },
      usageEvent(2, { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 2000, context_tokens: 3000 }),
      usageEvent(3, { input_tokens: 1200, output_tokens: 70, context_tokens: 3300 }),
    ]
    const real = { ...testInfo, demo: false, model: 'anthropic:claude-sonnet-4-5' }
    await app(fakeBridge({ handlers: { Info: () => real, ListSessions: () => [testSession()], SessionEvents: () => evs } }).bridge)
    const u = document.querySelector('[data-testid="usage"]')!
    expect(u.textContent).toBe('Turn: 6.3k in · 120 out · context 3.3k')
    expect(u.getAttribute('title')).toContain('over 2 requests')
  })
  it('the demo\'s estimated usage is not shown', async () => {
    const evs: WardenEvent[] = [usageEvent(1, { input_tokens: 10, output_tokens: 5 })]
    await app(fakeBridge({ handlers: { ListSessions: () => [testSession()], SessionEvents: () => evs } }).bridge)
    expect(document.querySelector('[data-testid="usage"]')).toBeNull()
  })
  it('with no session yet the chat is the welcome', async () => {
    await app(fakeBridge({ handlers: { ListSessions: () => [] } }).bridge)
    expect(document.querySelector('[data-testid="welcome"]')).not.toBeNull()
    expect((document.querySelector('#welcome-folder') as HTMLInputElement).value).toBe('/work/proj')
  })
})

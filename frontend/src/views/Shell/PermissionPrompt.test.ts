import { mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Approval, Session } from '../../bridge'
import { reasonWords } from '../../model/words'
import PermissionPrompt from './PermissionPrompt.vue'

const base: Approval = {
  request_id: 'r1',
  session_id: 's1',
  call_id: 'c1',
  tool: 'shell.exec',
  args: { command: 'npm test' },
  risk: 'medium',
  reasons: ['unknown-command'],
  signature: 'shell:npm test',
  effects: [],
  trace: [{ step: 'classify', saw: 'npm test', concluded: 'unknown' }],
  created_at: 1,
  live: true,
}

const mounted: { unmount(): void }[] = []
// graceMs 0 arms the keys at the next tick; the grace period itself has its
// own tests below.
function mountPrompt(over: Partial<Approval> = {}, queued = 0, extra: Record<string, unknown> = { graceMs: 0 }) {
  const w = mount(PermissionPrompt, { props: { approval: { ...base, ...over }, queued, ...extra }, attachTo: document.body })
  mounted.push(w)
  return w
}
afterEach(() => {
  mounted.splice(0).forEach((w) => w.unmount())
  document.body.innerHTML = ''
})
const key = (k: string, target: EventTarget = document.body) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }))
const button = (w: ReturnType<typeof mountPrompt>, name: string) => w.findAll('button').find((b) => b.text() === name)!

describe('PermissionPrompt', () => {
  it('is a dialog named "Permission request" with the signature line before any click', () => {
    const w = mountPrompt()
    expect(w.get('[role="dialog"]').attributes('aria-label')).toBe('Permission request')
    expect(w.get('[data-testid="signature"]').text()).toBe('Always allow will cover: shell:npm test')
    expect(w.get('[role="dialog"]').attributes('aria-modal')).toBe('true')
    expect(w.get('[data-testid="tool"]').text()).toBe('shell.exec')
    expect(w.get('[data-testid="risk"]').text()).toBe('Medium risk')
    expect(w.get('[data-testid="command"]').text()).toContain('npm test')
  })

  const keys: { name: string; key: string; want: object }[] = [
    { name: 'y allows once', key: 'y', want: { request_id: 'r1', answer: 'once' } },
    { name: 'a always allows for this session', key: 'a', want: { request_id: 'r1', answer: 'always', scope: 'session' } },
    { name: 'n denies', key: 'n', want: { request_id: 'r1', answer: 'deny' } },
    { name: 'Escape denies', key: 'Escape', want: { request_id: 'r1', answer: 'deny' } },
  ]
  const tick = () => new Promise((r) => setTimeout(r, 1))
  for (const c of keys) {
    it(c.name, async () => {
      const w = mountPrompt()
      await tick()
      key(c.key)
      expect(w.emitted('answer')).toEqual([[c.want]])
    })
  }

  it('never takes a key typed into a text field', async () => {
    const w = mountPrompt()
    await tick()
    const ta = document.createElement('textarea')
    document.body.appendChild(ta)
    for (const k of ['y', 'a', 'n', 'Escape']) key(k, ta)
    const input = document.createElement('input')
    document.body.appendChild(input)
    key('y', input)
    expect(w.emitted('answer')).toBeUndefined()
  })

  it('keys answer with focus on a scope radio button, a checkbox or a button (not text fields)', async () => {
    const w = mountPrompt()
    await tick()
    const radio = w.get('input[type="radio"][value="workspace"]')
    await radio.setValue(true)
    ;(radio.element as HTMLInputElement).focus()
    key('a', radio.element)
    expect(w.emitted('answer')).toEqual([[{ request_id: 'r1', answer: 'always', scope: 'workspace' }]])
    // One modal at a time: two would pull the focus from each other.
    mounted.splice(0).forEach((m) => m.unmount())
    const w2 = mountPrompt()
    await tick()
    const btn = button(w2, 'Deny').element
    key('y', btn)
    expect(w2.emitted('answer')).toEqual([[{ request_id: 'r1', answer: 'once' }]])
  })

  it('ignores other keys and modified keys', async () => {
    const w = mountPrompt()
    await tick()
    key('x')
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'y', ctrlKey: true, bubbles: true }))
    expect(w.emitted('answer')).toBeUndefined()
  })

  for (const [reason, words] of Object.entries(reasonWords)) {
    it(`says reason ${reason} in words`, () => {
      const w = mountPrompt({ reasons: [reason] })
      expect(w.get('[data-testid="reason"]').text()).toBe(words)
    })
  }

  it('buttons: Always allow with workspace scope and expiry; Deny with a note', async () => {
    const w = mountPrompt()
    await w.get('input[value="workspace"]').setValue(true)
    await w.get('select[aria-label="Expires"]').setValue('3600')
    await button(w, 'Always allow').trigger('click')
    await button(w, 'Add a note…').trigger('click')
    await w.get('.note input').setValue('use the staging db')
    await button(w, 'Deny').trigger('click')
    await button(w, 'Allow once').trigger('click')
    expect(w.emitted('answer')).toEqual([
      [{ request_id: 'r1', answer: 'always', scope: 'workspace', expires_in_sec: 3600 }],
      [{ request_id: 'r1', answer: 'deny', note: 'use the staging db' }],
      [{ request_id: 'r1', answer: 'once' }],
    ])
  })

  it('shows the queue count and the decision trace behind Why?', () => {
    const w = mountPrompt({}, 2)
    expect(w.get('[data-testid="queue-count"]').text()).toBe('2 more waiting')
    expect(w.get('details.why summary').text()).toBe('Why?')
    expect(w.get('.trace').text()).toContain('classify')
  })

  it('fs.write shows the preview as a diff', () => {
    const w = mountPrompt({ tool: 'fs.write', args: { path: 'a.txt', content: 'new' }, preview: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n' })
    expect(w.find('.diff .add').text()).toBe('+new')
    expect(w.find('.diff .del').text()).toBe('-old')
  })

  it('browser calls show the target origin', () => {
    const w = mountPrompt({ tool: 'browser.navigate', args: { url: 'https://example.com/a/b?c' } })
    expect(w.get('[data-testid="origin"]').text()).toBe('Target: https://example.com')
  })

  it('an MCP ask offers Trust this server (session, or persistent for the workspace)', async () => {
    const w = mountPrompt({ tool: 'mcp.fs.read', mcp: { server: 'fs' }, reasons: ['untrusted-mcp-server'] })
    await button(w, 'Trust this server').trigger('click')
    await w.get('input[value="workspace"]').setValue(true)
    await button(w, 'Trust this server').trigger('click')
    expect(w.emitted('answer')).toEqual([
      [{ request_id: 'r1', answer: 'once', trust_server: 'session' }],
      [{ request_id: 'r1', answer: 'once', trust_server: 'persistent' }],
    ])
  })

  it('without MCP there is no Trust this server button', () => {
    expect(mountPrompt().findAll('button').some((b) => b.text() === 'Trust this server')).toBe(false)
  })
})

describe('PermissionPrompt focus and type-ahead', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('takes focus when it opens, even from the composer', async () => {
    const ta = document.createElement('textarea')
    ta.setAttribute('aria-label', 'Message')
    document.body.appendChild(ta)
    ta.focus()
    const w = mountPrompt({}, 0, {})
    await vi.runOnlyPendingTimersAsync()
    expect(document.activeElement).toBe(w.get('[role="dialog"]').element)
  })

  it('a key typed before the grace period ends is swallowed, never an answer', async () => {
    const w = mountPrompt({}, 0, {})
    for (const k of ['y', 'a', 'n', 'Escape', 'Enter']) {
      key(k)
      await vi.advanceTimersByTimeAsync(150)
    }
    expect(w.emitted('answer')).toBeUndefined()
    expect(w.get('[role="dialog"]').attributes('data-armed')).toBe('false')
  })

  it('each key restarts the grace period; after 400 ms of quiet y answers', async () => {
    const w = mountPrompt({}, 0, {})
    await vi.advanceTimersByTimeAsync(399)
    key('h') // still typing
    await vi.advanceTimersByTimeAsync(399)
    key('y')
    expect(w.emitted('answer')).toBeUndefined()
    await vi.advanceTimersByTimeAsync(401)
    expect(w.get('[role="dialog"]').attributes('data-armed')).toBe('true')
    key('y')
    expect(w.emitted('answer')).toEqual([[{ request_id: 'r1', answer: 'once' }]])
  })

  it('type-ahead never reaches the composer underneath', async () => {
    const ta = document.createElement('textarea')
    document.body.appendChild(ta)
    const seen: string[] = []
    ta.addEventListener('keydown', (e) => seen.push(e.key))
    mountPrompt({}, 0, {})
    key('y', ta)
    expect(seen).toEqual([])
  })

  it('a new ask in the queue re-arms the grace period', async () => {
    const w = mountPrompt({}, 1, {})
    await vi.advanceTimersByTimeAsync(500)
    await w.setProps({ approval: { ...base, request_id: 'r2' } })
    key('y')
    expect(w.emitted('answer')).toBeUndefined()
    await vi.advanceTimersByTimeAsync(500)
    key('y')
    expect(w.emitted('answer')).toEqual([[{ request_id: 'r2', answer: 'once' }]])
  })

  it('Tab stays inside the dialog (focus trap), both ways', async () => {
    const outside = document.createElement('button')
    document.body.appendChild(outside)
    const w = mountPrompt()
    await vi.runOnlyPendingTimersAsync()
    const buttons = w.findAll('button').map((b) => b.element as HTMLElement)
    const last = buttons[buttons.length - 1]!
    last.focus()
    const tab = new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true })
    last.dispatchEvent(tab)
    expect(tab.defaultPrevented).toBe(true)
    expect(w.get('[role="dialog"]').element.contains(document.activeElement)).toBe(true)
    const back = new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, bubbles: true, cancelable: true })
    ;(document.activeElement as HTMLElement).dispatchEvent(back)
    expect(back.defaultPrevented).toBe(true)
    expect(document.activeElement).toBe(last)
  })

  it('focus moved outside comes back', async () => {
    const outside = document.createElement('button')
    document.body.appendChild(outside)
    const w = mountPrompt()
    await vi.runOnlyPendingTimersAsync()
    outside.focus()
    await vi.runOnlyPendingTimersAsync()
    expect(w.get('[role="dialog"]').element.contains(document.activeElement)).toBe(true)
  })

  it('focus goes back to the composer after the answer', async () => {
    const ta = document.createElement('textarea')
    ta.setAttribute('aria-label', 'Message')
    document.body.appendChild(ta)
    const w = mountPrompt()
    await vi.runOnlyPendingTimersAsync()
    w.unmount()
    await vi.runOnlyPendingTimersAsync()
    expect(document.activeElement).toBe(ta)
  })
})

describe('PermissionPrompt against spoofing', () => {
  const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]
  for (const cp of bidi) {
    const label = 'U+' + cp.toString(16).toUpperCase()
    it(`draws ${label} as a badge in the command and the signature, with a warning`, () => {
      const ch = String.fromCodePoint(cp)
      const w = mountPrompt({ args: { command: `echo safe ${ch}fr- mr${ch} #` }, signature: `shell=echo safe ${ch}fr- mr${ch} #` })
      const cmd = w.get('[data-testid="command"]').text()
      expect(cmd).not.toContain(ch)
      expect(cmd).toContain(`⟨${label}⟩`)
      expect(w.get('[data-testid="signature"]').text()).toContain(`⟨${label}⟩`)
      expect(w.get('[data-testid="signature"]').text()).not.toContain(ch)
      expect(w.get('[data-testid="invisible-warning"]').text()).toContain(label)
    })
  }

  it('60 newlines before the dangerous part fold into one badge and the tail is shown', () => {
    const w = mountPrompt({ args: { command: 'ls' + '\n'.repeat(60) + 'rm -rf ~' } })
    const cmd = w.get('[data-testid="command"]').text()
    expect(cmd).toContain('⟨59 blank lines⟩')
    expect(cmd).toContain('rm -rf ~')
  })

  it('4,000 non-breaking spaces are one counted badge', () => {
    const w = mountPrompt({ args: { command: 'echo hi' + '\u00a0'.repeat(4000) + '; rm -rf ~' } })
    const cmd = w.get('[data-testid="command"]').text()
    expect(cmd).toContain('⟨U+00A0 ×4000⟩')
    expect(cmd).toContain('rm -rf ~')
    expect(cmd.length).toBeLessThan(100)
  })

  it('4,000 plain spaces are a counted badge too', () => {
    const w = mountPrompt({ args: { command: 'echo hi' + ' '.repeat(4000) + '; rm -rf ~' } })
    expect(w.get('[data-testid="command"]').text()).toContain('⟨4000 spaces⟩')
  })

  it('a long command folds to head, tail and risky lines behind "Show all N lines"', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `echo line${i}`)
    lines[20] = 'rm -rf build'
    const w = mountPrompt({
      args: { command: lines.join('\n') },
      reasons: ['destructive-effect'],
      trace: [{ step: 'approval', saw: 'on-request; destructive-effect: rm -r: removes a whole tree', concluded: 'ask' }],
    })
    const cmd = w.get('[data-testid="command"]')
    expect(cmd.text()).toContain('echo line0')
    expect(cmd.text()).toContain('echo line39')
    expect(cmd.text()).toContain('rm -rf build')
    expect(cmd.text()).not.toContain('echo line10')
    expect(cmd.get('[data-risky="true"]').text()).toContain('rm -rf build')
    const more = w.get('[data-testid="show-all"]')
    expect(more.text()).toBe('Show all 40 lines')
    await more.trigger('click')
    expect(w.get('[data-testid="command"]').text()).toContain('echo line10')
  })

  it('a short command is never folded', () => {
    const w = mountPrompt({ args: { command: 'a\nb\nc' } })
    expect(w.find('[data-testid="show-all"]').exists()).toBe(false)
  })
})

describe('PermissionPrompt says who asks and what Always covers', () => {
  const session: Session = {
    id: 's1',
    workspace: '/home/u/proj',
    title: 'Refactor',
    approval: 'on-request',
    sandbox: { kind: 'workspace-write', network_access: false, writable_roots: [] },
    planning: false,
    created_at: 1,
    updated_at: 1,
    busy: false,
    pending: 1,
  }
  it('names the session, its workspace and both axes', () => {
    const w = mountPrompt({}, 0, { graceMs: 0, session, currentSessionId: 's1' })
    expect(w.get('[data-testid="prompt-session"]').text()).toBe(
      'Asked by session Refactor · /home/u/proj · Approval: On request · Sandbox: Workspace write (network off)',
    )
    expect(w.find('[data-testid="other-session"]').exists()).toBe(false)
  })
  it('says so when the ask is from another session than the one in view, and opens it', async () => {
    const w = mountPrompt({}, 0, { graceMs: 0, session, currentSessionId: 's2' })
    expect(w.get('[data-testid="other-session"]').text()).toContain('another session')
    await w.get('[data-testid="other-session"] button').trigger('click')
    expect(w.emitted('openSession')).toEqual([['s1']])
  })
  it('explains the signature in words, with the scope chosen', async () => {
    const w = mountPrompt({ tool: 'fs.read', signature: 'fs.read', args: { path: 'a' } })
    expect(w.get('[data-testid="signature-words"]').text()).toBe('That is every file read in this session.')
    await w.get('input[value="workspace"]').setValue(true)
    expect(w.get('[data-testid="signature-words"]').text()).toBe('That is every file read in this workspace, from now on.')
  })
  it('explains the head and exact shell syntaxes next to them', () => {
    const head = mountPrompt()
    expect(head.get('[data-testid="signature-syntax"]').text()).toContain('"shell:" is a command head')
    const exact = mountPrompt({ signature: 'shell=npm test > out.txt' })
    expect(exact.get('[data-testid="signature-syntax"]').text()).toContain('"shell=" is an exact command')
  })
  it('refuses Always for a protected path and says why', async () => {
    const w = mountPrompt({ reasons: ['protected-path'], signature: 'fs.write', tool: 'fs.write', args: { path: '.envrc' } })
    expect(w.get('[data-testid="always-refused"]').text()).toContain('protected path')
    expect(button(w, 'Always allow').attributes('disabled')).toBeDefined()
    await new Promise((r) => setTimeout(r, 1))
    key('a')
    expect(w.emitted('answer')).toBeUndefined()
    key('y')
    expect(w.emitted('answer')).toEqual([[{ request_id: 'r1', answer: 'once' }]])
  })
})

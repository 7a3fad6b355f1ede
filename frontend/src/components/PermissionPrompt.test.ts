import { mount } from '@vue/test-utils'
import { afterEach, describe, expect, it } from 'vitest'
import type { Approval } from '../bridge'
import { reasonWords } from '../model/words'
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
}

const mounted: { unmount(): void }[] = []
function mountPrompt(over: Partial<Approval> = {}, queued = 0) {
  const w = mount(PermissionPrompt, { props: { approval: { ...base, ...over }, queued }, attachTo: document.body })
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
  for (const c of keys) {
    it(c.name, () => {
      const w = mountPrompt()
      key(c.key)
      expect(w.emitted('answer')).toEqual([[c.want]])
    })
  }

  it('never takes a key typed into a text field (the composer)', () => {
    const w = mountPrompt()
    const ta = document.createElement('textarea')
    document.body.appendChild(ta)
    for (const k of ['y', 'a', 'n', 'Escape']) key(k, ta)
    const input = document.createElement('input')
    document.body.appendChild(input)
    key('y', input)
    expect(w.emitted('answer')).toBeUndefined()
  })

  it('ignores other keys and modified keys', () => {
    const w = mountPrompt()
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

describe('PermissionPrompt focus', () => {
  it('takes focus when nothing editable has it', async () => {
    const w = mountPrompt()
    await new Promise((r) => setTimeout(r, 0))
    expect(document.activeElement).toBe(w.get('[role="dialog"]').element)
  })
  it('leaves focus in the composer', async () => {
    const ta = document.createElement('textarea')
    document.body.appendChild(ta)
    ta.focus()
    mountPrompt()
    await new Promise((r) => setTimeout(r, 0))
    expect(document.activeElement).toBe(ta)
  })
})

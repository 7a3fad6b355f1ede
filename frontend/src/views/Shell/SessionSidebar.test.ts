import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { BridgeError, BridgeKey, type Bridge, type Transport } from '../../bridge'
import { fakeBridge } from '../../testing/fakeBridge'
import SessionSidebar from './SessionSidebar.vue'

async function openNew(bridge: Bridge | null) {
  const w = mount(SessionSidebar, {
    props: { sessions: [], currentId: null, defaultWorkspace: '/work/proj' },
    global: { provide: bridge ? { [BridgeKey as symbol]: bridge } : {} },
  })
  await w.findAll('button').find((b) => b.text() === 'New session')!.trigger('click')
  return w
}
const browse = 'button[aria-label="Browse folders for the workspace"]'
const field = () => 'input#new-session-workspace'

describe('SessionSidebar workspace picker', () => {
  const shown: { name: string; transport: Transport | null; browse: boolean }[] = [
    { name: 'Browse in the desktop window', transport: 'wails', browse: true },
    { name: 'no Browse under warden serve', transport: 'http', browse: false },
    { name: 'no Browse without a bridge', transport: null, browse: false },
  ]
  for (const c of shown) {
    it(c.name, async () => {
      const w = await openNew(c.transport ? fakeBridge({ transport: c.transport }).bridge : null)
      expect(w.find(browse).exists()).toBe(c.browse)
      expect((w.get(field()).element as HTMLInputElement).value).toBe('/work/proj')
    })
  }

  const picks: { name: string; answer: () => string; field: string; alert?: string }[] = [
    { name: 'a chosen folder fills the field', answer: () => '/home/me/other', field: '/home/me/other' },
    { name: 'cancel leaves the field', answer: () => '', field: '/work/proj' },
    {
      name: 'a picker error is shown and leaves the field',
      answer: () => {
        throw new BridgeError('backend', 'PickFolder', 'folder picker: another dialog is already open')
      },
      field: '/work/proj',
      alert: 'folder picker: another dialog is already open',
    },
  ]
  for (const c of picks) {
    it(c.name, async () => {
      const f = fakeBridge({ handlers: { PickFolder: c.answer } })
      const w = await openNew(f.bridge)
      await w.get(browse).trigger('click')
      await flushPromises()
      expect(f.call).toHaveBeenCalledWith('PickFolder', { title: 'Workspace folder', default_directory: '/work/proj' })
      expect((w.get(field()).element as HTMLInputElement).value).toBe(c.field)
      expect(w.find('[role="alert"]').exists()).toBe(!!c.alert)
      if (c.alert) expect(w.get('[role="alert"]').text()).toBe(c.alert)
    })
  }

  it('creates the session in the picked folder', async () => {
    const f = fakeBridge({ handlers: { PickFolder: () => '/home/me/picked' } })
    const w = await openNew(f.bridge)
    await w.get(browse).trigger('click')
    await flushPromises()
    await w.get('form[aria-label="New session"]').trigger('submit')
    expect(w.emitted('create')?.[0]?.slice(0, 2)).toEqual(['/home/me/picked', ''])
  })
})

describe('SessionSidebar new session errors', () => {
  const cases: { name: string; typed: string; reply: string | null; alert: string | null; open: boolean }[] = [
    { name: 'created: the form closes', typed: '/work/ok', reply: null, alert: null, open: false },
    { name: 'refused: the form stays with what was typed and says why', typed: '/work/nope', reply: 'The folder /work/nope does not exist.', alert: 'The folder /work/nope does not exist.', open: true },
    { name: 'a relative path is refused before sending', typed: 'proj', reply: null, alert: '"proj" is not an absolute path: give the full path of the folder, starting with /.', open: true },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const w = await openNew(null)
      await w.get(field()).setValue(c.typed)
      await w.get('form[aria-label="New session"]').trigger('submit')
      const ev = w.emitted('create') as [string, string, (e: string | null) => void][] | undefined
      if (ev) ev[0]![2](c.reply)
      await flushPromises()
      expect(w.find('form[aria-label="New session"]').exists()).toBe(c.open)
      if (c.open) expect((w.get(field()).element as HTMLInputElement).value).toBe(c.typed)
      const alert = w.find('[data-testid="workspace-error"]')
      expect(alert.exists() ? alert.text() : null).toBe(c.alert)
      if (c.alert) expect(w.get(field()).attributes('aria-invalid')).toBe('true')
    })
  }
})

import { confirmState } from '../../model/confirm'
import { testSession } from '../../testing/fakeBridge'

describe('SessionSidebar delete archives; purge is explicit', () => {
  const live = testSession({ id: 's1', title: 'Fix the tests' })
  const old = testSession({ id: 's2', title: 'Old work', archived: true })
  const mountList = () => mount(SessionSidebar, { props: { sessions: [live], archived: [old], currentId: 's1' } })

  const cases: { name: string; ok: boolean }[] = [
    { name: 'Delete asks, then archives', ok: true },
    { name: 'Delete cancelled changes nothing', ok: false },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const w = mountList()
      await w.get('button[aria-label="Delete Fix the tests"]').trigger('click')
      expect(confirmState.action).toBe('Archive session')
      expect(confirmState.message).toContain('audit trail are kept')
      confirmState.resolve!(c.ok)
      await flushPromises()
      expect(w.emitted('archive')).toEqual(c.ok ? [['s1']] : undefined)
      expect(w.emitted('purge')).toBeUndefined()
    })
  }

  it('archived sessions are listed apart with Restore', async () => {
    const w = mountList()
    const a = w.get('[data-testid="archived"]')
    expect(a.get('summary').text()).toBe('Archived (1)')
    await a.get('button[aria-label="Restore Old work"]').trigger('click')
    expect(w.emitted('restore')).toEqual([['s2']])
  })

  it('Delete permanently says what it destroys before it purges', async () => {
    const w = mountList()
    await w.get('button[aria-label="Delete Old work permanently"]').trigger('click')
    expect(confirmState.action).toBe('Delete permanently')
    expect(confirmState.message).toContain('every event of its audit trail')
    expect(confirmState.message).toContain('cannot be undone')
    confirmState.resolve!(true)
    await flushPromises()
    expect(w.emitted('purge')).toEqual([['s2']])
  })

  it('no Archived section when nothing is archived', () => {
    const w = mount(SessionSidebar, { props: { sessions: [live], currentId: 's1' } })
    expect(w.find('[data-testid="archived"]').exists()).toBe(false)
  })
})

describe('SessionSidebar new-session form', () => {
  it('opens with the default folder selected, so typing replaces it', async () => {
    const w = mount(SessionSidebar, { props: { sessions: [], currentId: null, defaultWorkspace: '/work/proj' }, attachTo: document.body })
    await (w.vm as unknown as { startCreate(): Promise<void> }).startCreate()
    const input = w.get('input#new-session-workspace').element as HTMLInputElement
    expect(document.activeElement).toBe(input)
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, '/work/proj'.length])
    w.unmount()
  })
  it('a second session starts from the current default, not what was typed last time', async () => {
    const w = mount(SessionSidebar, { props: { sessions: [], currentId: null, defaultWorkspace: '/work/a' }, attachTo: document.body })
    const vm = w.vm as unknown as { startCreate(): Promise<void> }
    await vm.startCreate()
    await w.get('input#new-session-workspace').setValue('/work/typed')
    await w.get('form').trigger('keydown', { key: 'Escape' })
    await w.setProps({ defaultWorkspace: '/work/b' })
    await vm.startCreate()
    expect((w.get('input#new-session-workspace').element as HTMLInputElement).value).toBe('/work/b')
    w.unmount()
  })
  it('Tab goes from the folder to the title, then to Browse', async () => {
    const f = fakeBridge({ transport: 'wails' })
    const w = mount(SessionSidebar, {
      props: { sessions: [], currentId: null, defaultWorkspace: '/work/proj' },
      global: { provide: { [BridgeKey as symbol]: f.bridge } },
    })
    await w.findAll('button').find((b) => b.text() === 'New session')!.trigger('click')
    // Tab follows the document order of what can take focus.
    const els = Array.from(w.get('form').element.querySelectorAll<HTMLElement>('input, button'))
    expect(els[0]!.id).toBe('new-session-workspace')
    expect(els[1]!.closest('label')!.textContent).toContain('Title')
    expect(els[2]!.getAttribute('aria-label')).toBe('Browse folders for the workspace')
    w.unmount()
  })
})

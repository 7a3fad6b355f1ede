import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { afterEach, describe, expect, it } from 'vitest'
import { defineComponent, h } from 'vue'
import { BridgeError, BridgeKey, type Approval, type RemoteLink } from '../../bridge'
import { useRemoteLinksStore } from '../../stores/remoteLinks'
import { fakeBridge } from '../../testing/fakeBridge'
import PermissionPrompt from './PermissionPrompt.vue'

// "Answer from another device": the prompt's button, the real store and a
// bridge whose RemoteLink answer each case chooses, wired as ShellView
// wires them.
const approval: Approval = {
  request_id: 'r1',
  session_id: 's1',
  call_id: 'c1',
  tool: 'shell.exec',
  args: { command: 'npm test' },
  risk: 'medium',
  reasons: ['unknown-command'],
  signature: 'shell:npm test',
  effects: [],
  trace: [],
  created_at: 1,
  live: true,
}
const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 29 29" role="img" aria-label="QR code of the link"><rect width="29" height="29" fill="#fff"/><path fill="#000" d="M4 4h1v1h-1z"/></svg>'
const link = (over: Partial<RemoteLink> = {}): RemoteLink => ({
  request_id: 'r1',
  url: 'http://192.168.1.20:8788/remote/AbC123-token',
  expires_at: Date.now() + 3 * 60000 + 20000,
  qr_svg: svg,
  qr_text: ['█▀▀▀█'],
  ...over,
})

const mounted: { unmount(): void }[] = []
afterEach(() => {
  mounted.splice(0).forEach((w) => w.unmount())
  document.body.innerHTML = ''
})

function setup(answer: () => RemoteLink | Promise<RemoteLink>, over: Partial<Approval> = {}) {
  const f = fakeBridge({ handlers: { RemoteLink: answer } })
  const Harness = defineComponent({
    props: { approval: { type: Object as () => Approval, required: true } },
    setup(p) {
      const links = useRemoteLinksStore()
      return () =>
        h(PermissionPrompt, {
          approval: p.approval,
          queued: 0,
          graceMs: 0,
          remote: links.view(p.approval.request_id),
          onRemoteLink: (id: string) => void links.make(id),
        })
    },
  })
  const w = mount(Harness, {
    props: { approval: { ...approval, ...over } },
    attachTo: document.body,
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  mounted.push(w)
  return { f, w }
}
const open = (w: ReturnType<typeof setup>['w']) => w.get('[data-testid="remote-open"]').trigger('click')
const has = (w: ReturnType<typeof setup>['w'], id: string) => w.find(`[data-testid="${id}"]`).exists()
const fail = (e: Error) => () => {
  throw e
}

describe('PermissionPrompt: answer from another device', () => {
  const cases: { name: string; answer: () => RemoteLink; text: string[]; qr: boolean; error?: string }[] = [
    {
      name: 'a link with its QR code, its lifetime and single use',
      answer: () => link(),
      text: ['http://192.168.1.20:8788/remote/AbC123-token', 'Works once, on the first device that opens it', '(in 3 min)', 'as soon as this ask is answered here'],
      qr: true,
    },
    {
      name: 'a loopback link says only this computer can open it',
      answer: () => link({ url: 'http://127.0.0.1:41234/remote/AbC123-token' }),
      text: ['This link is on 127.0.0.1, which only this computer can open', 'set `address` under `[remote]`'],
      qr: true,
    },
    {
      name: 'a localhost link says so too',
      answer: () => link({ url: 'http://localhost:8788/remote/x' }),
      text: ['This link is on localhost, which only this computer can open'],
      qr: true,
    },
    {
      name: 'a link without a QR code shows the URL only',
      answer: () => link({ qr_svg: '' }),
      text: ['http://192.168.1.20:8788/remote/AbC123-token', 'Copy link'],
      qr: false,
    },
    {
      name: 'a link about to expire says less than a minute',
      answer: () => link({ expires_at: Date.now() + 10000 }),
      text: ['(in less than a minute)'],
      qr: true,
    },
    {
      name: "the organisation's policy forbids it",
      answer: fail(new Error("your organisation's policy does not allow answers from another device")),
      text: [],
      qr: false,
      error: "Your organisation's policy does not allow answering from another device. Answer here instead.",
    },
    {
      name: 'no address serves links (desktop without [remote] address)',
      answer: fail(new Error('no address serves remote links in this process')),
      text: [],
      qr: false,
      error: 'not available in this window: no address serves the links. Run `warden serve`, or set `address` under `[remote]`',
    },
    {
      name: 'this process makes no links at all',
      answer: fail(new Error('answering from another device is not set up in this process')),
      text: [],
      qr: false,
      error: 'Answering from another device is not available in this window',
    },
    {
      name: 'the ask stopped waiting meanwhile',
      answer: fail(new Error('no live ask with that request id waits for a human')),
      text: [],
      qr: false,
      error: 'This ask no longer waits for an answer',
    },
    {
      name: 'the server went away',
      answer: fail(new BridgeError('network', 'RemoteLink', 'warden serve is not reachable')),
      text: [],
      qr: false,
      error: 'No link was made: warden serve is not reachable',
    },
    {
      name: 'an unknown refusal is shown as the backend said it, as text',
      answer: fail(new Error('<img src=x onerror=alert(1)> remote: listen on :8788: address already in use')),
      text: [],
      qr: false,
      error: 'No link was made: <img src=x onerror=alert(1)> remote: listen on :8788: address already in use',
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const { f, w } = setup(c.answer)
      expect(has(w, 'remote-popover')).toBe(false)
      await open(w)
      expect(f.call).toHaveBeenCalledWith('RemoteLink', { request_id: 'r1' })
      await flushPromises()
      const pop = w.get('[data-testid="remote-popover"]')
      expect(pop.attributes('aria-label')).toBe('Answer from another device')
      const text = pop.text().replace(/\s+/g, ' ')
      for (const t of c.text) expect(text).toContain(t)
      expect(has(w, 'remote-qr')).toBe(c.qr)
      if (c.qr) {
        const img = w.get('[data-testid="remote-qr"]')
        expect(img.attributes('alt')).toBe('QR code of the link')
        expect(decodeURIComponent(img.attributes('src')!)).toBe(`data:image/svg+xml;charset=utf-8,${svg}`)
        // The SVG is an image, never markup in the page.
        expect(pop.find('svg').exists()).toBe(false)
      }
      expect(has(w, 'remote-loopback')).toBe(c.text.some((t) => t.includes('only this computer')))
      if (c.error) {
        expect(w.get('[data-testid="remote-error"]').text()).toContain(c.error)
        expect(has(w, 'remote-url')).toBe(false)
        expect(pop.findAll('img')).toHaveLength(0)
      } else {
        expect(has(w, 'remote-error')).toBe(false)
      }
      // Asking for a link is not an answer.
      expect(w.findComponent(PermissionPrompt).emitted('answer')).toBeUndefined()
    })
  }

  it('says it is making a link while the backend works', async () => {
    let resolve: (l: RemoteLink) => void = () => {}
    const { w } = setup(() => new Promise<RemoteLink>((r) => (resolve = r)))
    await open(w)
    expect(w.get('[data-testid="remote-busy"]').text()).toBe('Making a link…')
    resolve(link())
    await flushPromises()
    expect(has(w, 'remote-busy')).toBe(false)
    expect(w.get('[data-testid="remote-url"]').text()).toBe(link().url)
  })

  it('Escape closes the popover first and denies only the second time', async () => {
    const { w } = setup(() => link())
    await new Promise((r) => setTimeout(r, 1))
    await open(w)
    await flushPromises()
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    await flushPromises()
    expect(has(w, 'remote-popover')).toBe(false)
    const prompt = w.findComponent(PermissionPrompt)
    expect(prompt.emitted('answer')).toBeUndefined()
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    expect(prompt.emitted('answer')).toEqual([[{ request_id: 'r1', answer: 'deny' }]])
  })

  it('the button toggles; opening again makes a fresh link', async () => {
    const { f, w } = setup(() => link())
    await open(w)
    await flushPromises()
    await open(w)
    expect(has(w, 'remote-popover')).toBe(false)
    await open(w)
    await flushPromises()
    expect(f.call.mock.calls.filter(([m]) => m === 'RemoteLink')).toHaveLength(2)
  })

  it('the next ask starts with the popover closed', async () => {
    const { w } = setup(() => link())
    await open(w)
    await flushPromises()
    await w.setProps({ approval: { ...approval, request_id: 'r2' } })
    expect(has(w, 'remote-popover')).toBe(false)
  })

  it('an ask whose turn ended offers no link', () => {
    const { w } = setup(() => link(), { live: false })
    expect(has(w, 'remote-open')).toBe(false)
  })

  it('a resolved ask takes its link along', async () => {
    const { w } = setup(() => link())
    await open(w)
    await flushPromises()
    const store = useRemoteLinksStore()
    expect(store.view('r1')?.link?.url).toBe(link().url)
    store.onPush({ type: 'approval-resolved', request_id: 'r1' })
    expect(store.view('r1')).toBeNull()
  })
})

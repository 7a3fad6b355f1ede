import { describe, expect, it, vi } from 'vitest'
import { BridgeError, createHttpBridge, createWailsBridge, hasWailsBindings, selectBridge } from '.'

describe('selectBridge', () => {
  const cases: { name: string; win: object; want: string }[] = [
    { name: 'plain page without token', win: { location: { href: 'http://127.0.0.1:5/', origin: 'http://127.0.0.1:5' } }, want: 'none' },
    { name: 'warden serve URL with token', win: { location: { href: 'http://127.0.0.1:5/?token=abc', origin: 'http://127.0.0.1:5' } }, want: 'http' },
    { name: 'Wails bindings win', win: { go: { app: { App: {} } }, location: { href: 'http://x/?token=a', origin: 'http://x' } }, want: 'wails' },
    { name: 'App null is not Wails', win: { go: { app: { App: null } } }, want: 'none' },
  ]
  for (const c of cases) it(c.name, () => expect(selectBridge(c.win).transport).toBe(c.want))

  it('hasWailsBindings', () => expect(hasWailsBindings({ go: {} })).toBe(false))

  it('no backend fails with a typed no_backend error', async () => {
    const err = await selectBridge({}).call('Info').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BridgeError)
    expect((err as BridgeError).code).toBe('no_backend')
  })
})

describe('native dialogs capability', () => {
  const fn = () => Promise.resolve(null)
  const cases: { name: string; bridge: () => { native: { dialogs: boolean } }; want: boolean }[] = [
    { name: 'desktop window binding both dialogs', bridge: () => createWailsBridge({ go: { app: { App: { SaveAuditExport: fn, PickFolder: fn } } } }), want: true },
    { name: 'desktop window missing PickFolder', bridge: () => createWailsBridge({ go: { app: { App: { SaveAuditExport: fn } } } }), want: false },
    { name: 'warden serve', bridge: () => createHttpBridge({ base: 'http://h:1', token: 't', fetch: fn as unknown as typeof fetch }), want: false },
    { name: 'no backend', bridge: () => selectBridge({}), want: false },
  ]
  for (const c of cases) it(c.name, () => expect(c.bridge().native.dialogs).toBe(c.want))

  it('the desktop calls carry their argument objects', async () => {
    const SaveAuditExport = vi.fn(() => Promise.resolve({ path: '/tmp/a.csv', bytes: 3 }))
    const PickFolder = vi.fn(() => Promise.resolve(''))
    const b = createWailsBridge({ go: { app: { App: { SaveAuditExport, PickFolder } } } })
    await expect(b.call('SaveAuditExport', { session_id: 's', format: 'csv' })).resolves.toEqual({ path: '/tmp/a.csv', bytes: 3 })
    await expect(b.call('PickFolder', { title: 'Workspace folder', default_directory: '/w' })).resolves.toBe('')
    expect(SaveAuditExport).toHaveBeenCalledWith({ session_id: 's', format: 'csv' })
    expect(PickFolder).toHaveBeenCalledWith({ title: 'Workspace folder', default_directory: '/w' })
  })
})

describe('Wails bridge', () => {
  it('calls window.go.app.App.<Method> with the args object', async () => {
    const RenameSession = vi.fn(() => Promise.resolve({ id: 's1' }))
    const b = createWailsBridge({ go: { app: { App: { RenameSession } } } })
    await expect(b.call('RenameSession', { session_id: 's1', title: 't' })).resolves.toEqual({ id: 's1' })
    expect(RenameSession).toHaveBeenCalledWith({ session_id: 's1', title: 't' })
  })
  it('a Go error string becomes a typed backend error', async () => {
    const b = createWailsBridge({ go: { app: { App: { Cancel: () => Promise.reject('no such session') } } } })
    await expect(b.call('Cancel', { session_id: 'x' })).rejects.toMatchObject({ code: 'backend', operation: 'Cancel', message: 'no such session' })
  })
  it('an unbound method says so', async () => {
    const b = createWailsBridge({ go: { app: { App: {} } } })
    await expect(b.call('Info')).rejects.toMatchObject({ message: 'the desktop app does not bind Info' })
  })
  it('subscribes to warden:push', () => {
    const off = vi.fn()
    const EventsOnMultiple = vi.fn(() => off)
    const b = createWailsBridge({ runtime: { EventsOnMultiple } })
    const fn = vi.fn()
    expect(b.subscribe(fn)).toBe(off)
    expect(EventsOnMultiple).toHaveBeenCalledWith('warden:push', expect.any(Function), -1)
  })
})

describe('HTTP bridge', () => {
  const reply = (status: number, body: string) => Promise.resolve(new Response(body, { status }))
  const cases: { name: string; status: number; body: string; code?: string; message?: string }[] = [
    { name: 'ok', status: 200, body: '{"name":"Warden"}' },
    { name: 'backend error', status: 400, body: '{"error":"bad arguments: x"}', code: 'backend', message: 'bad arguments: x' },
    { name: 'wrong token', status: 401, body: '{"error":"missing or wrong token"}', code: 'unauthorized', message: 'missing or wrong token' },
    { name: 'non-JSON error', status: 500, body: 'boom', code: 'backend', message: 'boom' },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const f = vi.fn((_u: string, _i: RequestInit) => reply(c.status, c.body))
      const b = createHttpBridge({ base: 'http://h:1', token: 'tok', fetch: f as unknown as typeof fetch })
      const p = b.call('SendMessage', { session_id: 's', text: 'hi' })
      if (c.code) await expect(p).rejects.toMatchObject({ code: c.code, message: c.message, operation: 'SendMessage' })
      else await expect(p).resolves.toEqual({ name: 'Warden' })
      const [url, init] = f.mock.calls[0]!
      expect(url).toBe('http://h:1/api/SendMessage')
      expect(init.method).toBe('POST')
      expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok')
      expect(init.body).toBe('{"session_id":"s","text":"hi"}')
    })
  }
  it('a network failure is a typed network error', async () => {
    const b = createHttpBridge({ base: 'http://h:1', token: 't', fetch: (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch })
    await expect(b.call('Info')).rejects.toMatchObject({ code: 'network' })
  })
})

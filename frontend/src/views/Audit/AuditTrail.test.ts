import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BridgeError, BridgeKey, type Bridge, type SavedFile, type WardenEvent } from '../../bridge'
import type { AuditPageArgs } from '../../model/audit'
import auditPage from '../../model/testdata/audit-page.json'
import { useAuditStore } from '../../stores/audit'
import { fakeBridge } from '../../testing/fakeBridge'
import { kindText } from '../../model/words'
import AuditTrail from './AuditTrail.vue'

// Mounts the trail with its stores; pushes reach it as in the app, through
// the audit store App.vue feeds.
function mountTrail(bridge: Bridge, sessionId: string, attach: boolean) {
  const pinia = createPinia()
  bridge.subscribe((p) => useAuditStore(pinia).onPush(p))
  const global = { plugins: [pinia], provide: { [BridgeKey as symbol]: bridge } }
  return attach ? mount(AuditTrail, { props: { sessionId }, global, attachTo: document.body }) : mount(AuditTrail, { props: { sessionId }, global })
}

function mountExport(bridge: Bridge) {
  return mountTrail(bridge, 's1', false)
}

afterEach(() => vi.restoreAllMocks())

describe('AuditTrail export in the desktop window', () => {
  const cases: { name: string; button: string; format: 'jsonl' | 'csv'; answer: () => SavedFile; status: string; alert: boolean }[] = [
    { name: 'JSONL saved', button: 'Export JSONL', format: 'jsonl', answer: () => ({ path: '/home/me/a.jsonl', bytes: 10 }), status: 'Saved to /home/me/a.jsonl', alert: false },
    { name: 'CSV saved', button: 'Export CSV', format: 'csv', answer: () => ({ path: '/home/me/a.csv', bytes: 10 }), status: 'Saved to /home/me/a.csv', alert: false },
    { name: 'cancelled', button: 'Export JSONL', format: 'jsonl', answer: () => ({ path: '', bytes: 0 }), status: 'Export cancelled: nothing was saved', alert: false },
    {
      name: 'write error',
      button: 'Export CSV',
      format: 'csv',
      answer: () => {
        throw new BridgeError('backend', 'SaveAuditExport', 'save audit export to /ro/a.csv: permission denied')
      },
      status: 'Export failed: save audit export to /ro/a.csv: permission denied',
      alert: true,
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const f = fakeBridge({ handlers: { SaveAuditExport: c.answer } })
      const click = vi.spyOn(HTMLAnchorElement.prototype, 'click')
      const w = mountExport(f.bridge)
      await flushPromises()
      await w.findAll('button').find((b) => b.text() === c.button)!.trigger('click')
      await flushPromises()
      expect(f.call).toHaveBeenCalledWith('SaveAuditExport', { session_id: 's1', format: c.format })
      expect(f.call.mock.calls.some((x) => x[0] === 'ExportAudit')).toBe(false)
      expect(click).not.toHaveBeenCalled()
      const status = w.get('[data-testid="export-status"]')
      expect(status.text()).toBe(c.status)
      expect(status.attributes('role')).toBe(c.alert ? 'alert' : 'status')
    })
  }

  it('another session does not show the last session\'s "Saved to"', async () => {
    const f = fakeBridge({ handlers: { SaveAuditExport: () => ({ path: '/tmp/a.jsonl', bytes: 1 }) } })
    const w = mountExport(f.bridge)
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Export JSONL')!.trigger('click')
    await flushPromises()
    expect(w.get('[data-testid="export-status"]').text()).toBe('Saved to /tmp/a.jsonl')
    await w.setProps({ sessionId: 's2' })
    await flushPromises()
    expect(w.find('[data-testid="export-status"]').exists()).toBe(false)
  })

  it('the export buttons wait while the dialog is open', async () => {
    let answer!: (r: SavedFile) => void
    const f = fakeBridge({ handlers: { SaveAuditExport: () => new Promise<SavedFile>((r) => (answer = r)) } })
    const w = mountExport(f.bridge)
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Export JSONL')!.trigger('click')
    const exportButtons = () => w.findAll('button').filter((b) => b.text().startsWith('Export'))
    expect(exportButtons().every((b) => b.attributes('disabled') !== undefined)).toBe(true)
    answer({ path: '/tmp/a.jsonl', bytes: 1 })
    await flushPromises()
    expect(exportButtons().every((b) => b.attributes('disabled') === undefined)).toBe(true)
  })
})

describe('AuditTrail export under warden serve', () => {
  it('downloads the export and never asks for a native dialog', async () => {
    const f = fakeBridge({ transport: 'http', handlers: { ExportAudit: () => ({ filename: 'warden-audit-s1.jsonl', content: '{"seq":1}\n' }) } })
    const blobs: Blob[] = []
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => (blobs.push(b as Blob), 'blob:x'))
    let downloaded = ''
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloaded = this.download
    })
    const w = mountExport(f.bridge)
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Export JSONL')!.trigger('click')
    await flushPromises()
    expect(f.call).toHaveBeenCalledWith('ExportAudit', { session_id: 's1', format: 'jsonl' })
    expect(f.call.mock.calls.some((x) => x[0] === 'SaveAuditExport')).toBe(false)
    expect(downloaded).toBe('warden-audit-s1.jsonl')
    expect(await blobs[0]!.text()).toBe('{"seq":1}\n')
    expect(w.find('[data-testid="export-status"]').exists()).toBe(false)
  })

  it('a failed export says so', async () => {
    const f = fakeBridge({
      transport: 'http',
      handlers: {
        ExportAudit: () => {
          throw new BridgeError('backend', 'ExportAudit', 'no such session')
        },
      },
    })
    const w = mountExport(f.bridge)
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Export CSV')!.trigger('click')
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toBe('Export failed: no such session')
  })
})

// A backend holding n listed events (seq 1..n) that answers AuditLog the
// way the runtime does. Each page waits for the test to release it, so a
// test sees the view between pages; `fail` rejects chosen calls.
function backend(n: number, fail: (call: number) => boolean = () => false) {
  const calls: AuditPageArgs[] = []
  const waiting: (() => void)[] = []
  const bridge: Bridge = {
    transport: 'http',
    native: { dialogs: false },
    subscribe: () => () => {},
    call: ((method: string, args: AuditPageArgs) => {
      if (method !== 'AuditLog') return Promise.reject(new Error(`unexpected ${method}`))
      calls.push(args)
      const k = calls.length
      return new Promise<WardenEvent[]>((res, rej) => {
        waiting.push(() => {
          if (fail(k)) return rej(new Error('database is locked'))
          const hi = (args.before_seq ?? n + 1) - 1
          const out: WardenEvent[] = []
          for (let s = Math.max(1, hi - args.limit + 1); s <= hi; s++) {
            out.push({ seq: s, session_id: 's', version: s, kind: s % 2 ? 'permission_granted' : 'permission_denied', at: 0, data: { tool: s % 2 ? 'fs.read' : 'shell.exec', source: 'sandbox+policy', by: 'user', reason: 'user-denied' } })
          }
          res(out)
        })
      })
    }) as Bridge['call'],
  }
  const release = async () => {
    await flushPromises()
    waiting.shift()?.()
    await flushPromises()
  }
  return { bridge, calls, release }
}

const mountWith = (bridge: Bridge) => mountTrail(bridge, 's', true)
const count = (w: ReturnType<typeof mountWith>) => w.get('[data-testid="audit-count"]').text()
const firstSeq = (w: ReturnType<typeof mountWith>) => w.get('[role="listitem"] .r').attributes('data-seq')

describe('AuditTrail', () => {
  it('shows the newest page before the rest has loaded, then all of it', async () => {
    const b = backend(5000)
    const w = mountWith(b.bridge)
    await b.release()
    expect(count(w)).toBe('200 of 200')
    expect(firstSeq(w)).toBe('5000')
    expect(w.get('section').attributes('aria-busy')).toBe('true')
    expect(w.get('[data-testid="audit-status"]').text()).toBe('loading older…')
    await b.release()
    expect(count(w)).toBe('2,700 of 2,700')
    await b.release()
    expect(count(w)).toBe('5,000 of 5,000')
    expect(b.calls.map((c) => c.before_seq)).toEqual([undefined, 4801, 2301])
    expect(w.get('section').attributes('aria-busy')).toBe('false')
    expect(w.get('[data-testid="audit-status"]').text()).toBe('')
    expect(firstSeq(w)).toBe('5000')
  })

  it('a failed page says so in words, keeps what loaded, and Retry goes on', async () => {
    const b = backend(3000, (k) => k === 2)
    const w = mountWith(b.bridge)
    await b.release()
    await b.release()
    const alert = w.get('[role="alert"]')
    expect(alert.text()).toContain('Loaded 200 events; older ones could not be loaded: database is locked')
    expect(count(w)).toBe('200 of 200')
    expect(w.get('section').attributes('aria-busy')).toBe('false')
    await alert.get('button').trigger('click')
    await b.release()
    expect(count(w)).toBe('2,700 of 2,700')
    await b.release()
    expect(count(w)).toBe('3,000 of 3,000')
    expect(w.find('[role="alert"]').exists()).toBe(false)
    expect(b.calls.map((c) => c.before_seq)).toEqual([undefined, 2801, 2801, 301])
  })

  it('filters what loaded and every page that arrives after', async () => {
    const b = backend(3000)
    const w = mountWith(b.bridge)
    await b.release()
    await w.get('input[aria-label="Filter audit"]').setValue('shell')
    expect(count(w)).toBe('100 of 200')
    expect(w.get('section').attributes('data-filter')).toBe('shell')
    await w.get('input[aria-label="Filter audit"]').setValue('shell.e')
    expect(count(w)).toBe('100 of 200')
    await b.release()
    await b.release()
    expect(count(w)).toBe('1,500 of 3,000')
    await w.get('select[aria-label="Event kind"]').setValue('permission_granted')
    expect(count(w)).toBe('0 of 3,000')
    await w.get('input[aria-label="Filter audit"]').setValue('')
    expect(count(w)).toBe('1,500 of 3,000')
    expect(w.findAll('[role="listitem"]').every((r) => r.text().includes('Allowed') && !r.text().includes('permission_granted'))).toBe(true)
  })

  it('an empty session says so', async () => {
    const b = backend(0)
    const w = mountWith(b.bridge)
    await b.release()
    expect(count(w)).toBe('0 of 0')
    expect(w.get('[data-testid="audit-status"]').text()).toBe('No audit events in this session yet.')
  })

  it('another session starts over and ignores the old one’s pages', async () => {
    const b = backend(3000)
    const w = mountWith(b.bridge)
    await b.release()
    await w.setProps({ sessionId: 't' })
    await b.release() // the old session's prefetch: dropped
    await b.release()
    expect(b.calls.at(-1)!.session_id).toBe('t')
    expect(count(w)).toBe('200 of 200')
  })
})

// A backend answering AuditLog from testdata/audit-page.json (real events
// with traces) plus whatever a test appends, the way the runtime pages it.
function pageBackend() {
  const events: WardenEvent[] = (auditPage as WardenEvent[]).map((e) => ({ ...e, session_id: 's' }))
  const f = fakeBridge({
    transport: 'http',
    handlers: {
      AuditLog: (a) => {
        const kinds = a.kinds ?? []
        const hits = events.filter((e) => (!kinds.length || kinds.includes(e.kind)) && (!a.before_seq || e.seq < a.before_seq))
        return hits.slice(-(a.limit || hits.length))
      },
    },
  })
  return { ...f, events }
}
const mountLive = (bridge: Bridge) => mountTrail(bridge, 's', true)
const nextFrame = () => new Promise((r) => setTimeout(r, 40))
const rowSeqs = (w: ReturnType<typeof mountLive>) => w.findAll('[role="listitem"] .r').map((r) => Number(r.attributes('data-seq')))

describe('AuditTrail detail pane', () => {
  it('a click opens the row: kind, time, tool, source, signature, reasons, trace steps, remedy and raw JSON', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    const denied = b.events.find((e) => e.kind === 'permission_denied')!
    const el = w.get('[role="list"]').element as HTMLElement
    el.scrollTop = 28 * [...b.events].reverse().indexOf(denied)
    await w.get('[role="list"]').trigger('scroll')
    const row = w.findAll('[role="listitem"]').find((r) => r.get('.r').attributes('data-seq') === String(denied.seq))
    expect(row, 'the denial is in view').toBeDefined()
    await row!.trigger('click')
    await flushPromises()
    const pane = w.get('[data-testid="audit-detail"]')
    expect(row!.attributes('aria-current')).toBe('true')
    expect(pane.get('[data-field="kind"]').text()).toBe('Denied permission_denied')
    expect(pane.get('[data-field="time"]').text()).toMatch(/2026/)
    expect(pane.get('[data-field="tool"]').text()).toBe('shell.exec')
    expect(pane.get('[data-field="source"]').text()).toBe('the sandbox sandbox')
    expect(pane.get('[data-field="signature"]').text()).toBe('shell=curl -sSf https://registry.npmjs.org/vue/latest')
    expect(pane.get('[data-field="reasons"]').text()).toContain('sandbox-rejected')
    expect(pane.get('[data-field="remedy"]').text()).toBe('turn network access on')
    expect(pane.findAll('[data-testid="audit-trace"] li').map((l) => l.text())).toEqual([
      'planning — planning off → no veto',
      'sandbox — workspace-write (network off, caged); reach the network registry.npmjs.org → deny: network access is off: shell.exec would reach registry.npmjs.org',
    ])
    expect(JSON.parse(pane.get('[data-testid="audit-json"]').text())).toEqual(denied)
    expect(b.call).toHaveBeenCalledWith('AuditLog', expect.objectContaining({ limit: 1, before_seq: denied.seq + 1 }))
    w.unmount()
  })

  const keys: { name: string; presses: string[]; want: number }[] = [
    { name: 'ArrowDown from nothing selects the newest', presses: ['ArrowDown'], want: 0 },
    { name: 'ArrowDown twice then ArrowUp', presses: ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowUp'], want: 1 },
    { name: 'Enter opens the newest', presses: ['Enter'], want: 0 },
    { name: 'ArrowUp at the top stays there', presses: ['ArrowDown', 'ArrowUp', 'ArrowUp'], want: 0 },
    { name: 'End goes to the oldest', presses: ['End'], want: 199 },
  ]
  for (const c of keys) {
    it(`keyboard: ${c.name}`, async () => {
      const b = pageBackend()
      const w = mountLive(b.bridge)
      await flushPromises()
      const list = w.get('[role="list"]')
      for (const k of c.presses) await list.trigger('keydown', { key: k })
      await flushPromises()
      const want = [...b.events].reverse()[c.want]!
      expect(w.get('[data-testid="audit-detail"] h3').text()).toBe(`#${want.seq} ${kindText(want.kind)}`)
      w.unmount()
    })
  }

  it('Close hides the pane, clears the selection and gives the keyboard back to the list', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    await w.get('[role="list"]').trigger('keydown', { key: 'Enter' })
    await flushPromises()
    await w.get('[data-testid="audit-detail"]').findAll('button').find((x) => x.text() === 'Close')!.trigger('click')
    await flushPromises()
    expect(w.find('[data-testid="audit-detail"]').exists()).toBe(false)
    expect(w.find('[aria-current="true"]').exists()).toBe(false)
    expect(document.activeElement).toBe(w.get('[role="list"]').element)
    w.unmount()
  })

  it('an event that cannot be fetched says so in the pane', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    b.events.length = 0
    await w.get('[role="list"]').trigger('keydown', { key: 'Enter' })
    await flushPromises()
    expect(w.get('[data-testid="audit-detail"] [role="alert"]').text()).toMatch(/no longer in the log/)
    w.unmount()
  })

  it('raw JSON with markup is shown as text', async () => {
    const b = pageBackend()
    b.events.push({ seq: 70000, session_id: 's', version: 70000, kind: 'permission_denied', at: 0, data: { tool: '<img src=x onerror=alert(1)>', reason: 'user-denied' } })
    const w = mountLive(b.bridge)
    await flushPromises()
    await w.get('[role="list"]').trigger('keydown', { key: 'Enter' })
    await flushPromises()
    expect(w.find('[data-testid="audit-detail"] img').exists()).toBe(false)
    expect(w.get('[data-testid="audit-json"]').text()).toContain('<img src=x onerror=alert(1)>')
    w.unmount()
  })
})

describe('AuditTrail live updates', () => {
  const live = (seq: number, kind = 'permission_denied', session = 's'): WardenEvent => ({
    seq, session_id: session, version: seq, kind, at: 0, data: { tool: 'shell.exec', by: 'user', reason: 'user-denied', signature: `live-${seq}` },
  })

  it('pushed audit events of this session go on top, newest first, without a reload', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    const calls = b.call.mock.calls.length
    b.push({ type: 'event', event: live(70001) })
    b.push({ type: 'event', event: live(70002, 'tool_invocation_started') })
    b.push({ type: 'event', event: live(70003, 'message_appended') })
    b.push({ type: 'event', event: live(70004, 'permission_denied', 'other') })
    b.push({ type: 'event', event: live(59997) })
    await nextFrame()
    await flushPromises()
    expect(rowSeqs(w).slice(0, 3)).toEqual([70002, 70001, 59997])
    expect(w.get('[data-testid="audit-count"]').text()).toBe('202 of 202')
    expect(b.call.mock.calls.length).toBe(calls)
    w.unmount()
  })

  it('the filter applies to pushed rows, and clearing it keeps them', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    await w.get('input[aria-label="Filter audit"]').setValue('live-')
    expect(w.get('[data-testid="audit-count"]').text()).toBe('0 of 200')
    b.push({ type: 'event', event: live(70001) })
    b.push({ type: 'event', event: { ...live(70002), data: { tool: 'fs.read' } } })
    await nextFrame()
    await flushPromises()
    expect(w.get('[data-testid="audit-count"]').text()).toBe('1 of 202')
    expect(rowSeqs(w)).toEqual([70001])
    await w.get('input[aria-label="Filter audit"]').setValue('')
    expect(w.get('[data-testid="audit-count"]').text()).toBe('202 of 202')
    expect(rowSeqs(w).slice(0, 2)).toEqual([70002, 70001])
    w.unmount()
  })

  it('a reader scrolled down keeps their rows in place; at the top they see the new ones', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    const el = w.get('[role="list"]').element as HTMLElement
    el.scrollTop = 28 * 50
    await w.get('[role="list"]').trigger('scroll')
    b.push({ type: 'event', event: live(70001) })
    b.push({ type: 'event', event: live(70002) })
    await nextFrame()
    await flushPromises()
    expect(el.scrollTop).toBe(28 * 52)
    el.scrollTop = 0
    await w.get('[role="list"]').trigger('scroll')
    b.push({ type: 'event', event: live(70003) })
    await nextFrame()
    await flushPromises()
    expect(el.scrollTop).toBe(0)
    expect(rowSeqs(w)[0]).toBe(70003)
    w.unmount()
  })

  it('the selected row stays selected when rows arrive above it', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    await w.get('[role="list"]').trigger('keydown', { key: 'Enter' })
    await flushPromises()
    const seq = Number(w.get('[aria-current="true"] .r').attributes('data-seq'))
    b.push({ type: 'event', event: live(70001) })
    await nextFrame()
    await flushPromises()
    expect(Number(w.get('[aria-current="true"] .r').attributes('data-seq'))).toBe(seq)
    w.unmount()
  })

  it('pushes that come before the first page are not doubled', async () => {
    let answer!: (v: WardenEvent[]) => void
    const f = fakeBridge({ transport: 'http', handlers: { AuditLog: () => new Promise<WardenEvent[]>((r) => (answer = r)) } })
    const w = mountLive(f.bridge)
    await flushPromises()
    f.push({ type: 'event', event: live(5) })
    f.push({ type: 'event', event: live(6) })
    answer([live(4), live(5)])
    await flushPromises()
    await nextFrame()
    await flushPromises()
    expect(rowSeqs(w)).toEqual([6, 5, 4])
    w.unmount()
  })
})

describe('AuditTrail row numbers', () => {
  it('numbers the rows as listed, 1, 2, 3 …, whatever gaps the log has; the log number is in the row title', async () => {
    const b = pageBackend()
    const w = mountLive(b.bridge)
    await flushPromises()
    const seqs = rowSeqs(w)
    expect(seqs.length).toBeGreaterThan(5)
    // The page's seqs skip (other sessions' events): the numbers do not.
    expect(seqs.some((s, i) => i > 0 && seqs[i - 1]! - s > 1)).toBe(true)
    const numbers = w.findAll('[data-testid="audit-row-number"]').map((n) => Number(n.text()))
    expect(numbers).toEqual(numbers.map((_, i) => i + 1))
    expect(w.get('[role="listitem"] .r').attributes('title')).toBe(`Event ${seqs[0]} of Warden's log`)
  })
})


import { flushPromises, mount } from '@vue/test-utils'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BridgeError, BridgeKey, type Bridge, type SavedFile } from '../bridge'
import { fakeBridge } from '../testing/fakeBridge'
import AuditTrail from './AuditTrail.vue'

function mountWith(bridge: Bridge) {
  return mount(AuditTrail, { props: { sessionId: 's1' }, global: { provide: { [BridgeKey as symbol]: bridge } } })
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
      const w = mountWith(f.bridge)
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
    const w = mountWith(f.bridge)
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
    const w = mountWith(f.bridge)
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
    const w = mountWith(f.bridge)
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
    const w = mountWith(f.bridge)
    await flushPromises()
    await w.findAll('button').find((b) => b.text() === 'Export CSV')!.trigger('click')
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toBe('Export failed: no such session')
  })
})

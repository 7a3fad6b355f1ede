import { describe, expect, it } from 'vitest'
import type { WardenEvent } from '../bridge'
import { auditRow, filterRows } from './audit'
import { bytesText, connectionText } from './network'
import { applyEvents, emptyTranscript } from './reducers'
import cases from './testdata/network-events.json'

const ev = (seq: number, kind: string, data: Record<string, unknown>): WardenEvent => ({ seq, session_id: 's1', version: seq, kind, at: seq, data })

describe('connectionText', () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(connectionText(c.data)).toBe(c.text)
      expect(bytesText(c.data)).toBe(c.bytes)
    })
  }
})

describe('network connections in the chat', () => {
  it('shows each connection inline, repeated ones as a count', () => {
    const npm = cases[0]!.data
    const t = applyEvents(emptyTranscript(), [
      ev(1, 'network_connection', npm),
      ev(2, 'network_connection', npm),
      ev(3, 'network_connection', npm),
      ev(4, 'network_connection', cases[5]!.data),
      ev(5, 'network_connection', npm),
    ])
    expect(t.items.map((i) => (i.type === 'note' ? i.text : i.type))).toEqual([
      `${cases[0]!.text} ×3`,
      cases[5]!.text,
      cases[0]!.text,
    ])
  })
})

describe('network connections in the audit trail', () => {
  it('rows say who allowed it and filter by kind and host', () => {
    const rows = [ev(1, 'network_connection', cases[1]!.data), ev(2, 'permission_granted', { signature: 'shell:ls', source: 'sandbox+policy' }), ev(3, 'network_connection', cases[5]!.data)].map(auditRow)
    expect(rows[0]!.source).toBe('workspace-rule:net:registry.npmjs.org:443')
    expect(rows[2]!.source).toBe('private-address')
    expect(filterRows(rows, '', 'network_connection').map((r) => r.seq)).toEqual([1, 3])
    expect(filterRows(rows, 'npmjs', '').map((r) => r.seq)).toEqual([1])
  })
})

// Speed of the audit view's row work at 100,000 rows: `npx vitest bench`.
// The page is a real AuditLog answer from a bench/auditseed session.
import { bench, describe } from 'vitest'
import type { WardenEvent } from '../bridge'
import { auditRows, filterRows, narrows } from './audit'
import page from './testdata/audit-page.json'

const events = page as WardenEvent[]
// 100,000 events: the page repeated with fresh seqs, newest last.
const log: WardenEvent[] = Array.from({ length: 100_000 }, (_, i) => ({ ...events[i % events.length]!, seq: i + 1 }))
const rows = auditRows(log)
const pageOf2500 = log.slice(0, 2500)

describe('audit rows at 100,000', () => {
  bench('auditRows: one 2,500-event page', () => {
    auditRows(pageOf2500)
  })
  bench('filterRows: first key over 100,000 rows', () => {
    filterRows(rows, 'r', '')
  })
  const r = filterRows(rows, 'rm', '')
  bench('filterRows: one more key, narrowing from the last result', () => {
    if (narrows('rm', '', 'rm ', '')) filterRows(r, 'rm ', '')
  })
  bench('filterRows: by kind over 100,000 rows', () => {
    filterRows(rows, '', 'permission_denied')
  })
})

// Speed of chat hydration: `npx vitest bench src/model/reducers.bench.ts`.
// The events are testdata/audit-page.json repeated with fresh seqs, the mix
// of a long agent run (tool starts, grants, completions).
import { bench, describe } from 'vitest'
import type { WardenEvent } from '../bridge'
import { applyEvent, applyEvents, emptyTranscript, foldHistory } from './reducers'
import page from './testdata/audit-page.json'

const events = page as WardenEvent[]
const log = (n: number): WardenEvent[] => Array.from({ length: n }, (_, i) => ({ ...events[i % events.length]!, seq: i + 1 }))
const small = log(5_000)
const large = log(122_000)

describe('hydrating a transcript', () => {
  bench('applyEvents: 122,000 events in one batch', () => {
    applyEvents(emptyTranscript(), large)
  })
  bench('applyEvents: 5,000 events in one batch', () => {
    applyEvents(emptyTranscript(), small)
  })
  // The old way, event by event: quadratic, so only at 5,000.
  bench('applyEvent one by one: 5,000 events', () => {
    small.reduce(applyEvent, emptyTranscript())
  })
})

// Opening on the tail folds one page; each earlier page refolds everything
// loaded, so its cost grows with how far back the reader has gone.
describe('a chat opened on its newest page', () => {
  const tail = large.slice(-2_000)
  bench('foldHistory: the newest 2,000 events, mid-story', () => {
    foldHistory(tail, true)
  })
  bench('foldHistory: refold after paging back to 122,000 events', () => {
    foldHistory(large, false)
  })
})

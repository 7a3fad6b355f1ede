import { defineStore } from 'pinia'
import type { Push, WardenEvent } from '../bridge'
import { isAuditEvent } from '../model/audit'

// The audit trail's live feed. App.vue hands every push to onPush, as to
// the other stores, so it stays the only subscriber to the bridge; the
// trail that is open follows one session's audit events through follow().
// The rows themselves stay in the view: 100,000 of them must not become
// reactive state.
export const useAuditStore = defineStore('audit', () => {
  const followers = new Set<{ session: () => string; fn: (e: WardenEvent) => void }>()

  function onPush(p: Push) {
    if (p.type !== 'event') return
    for (const f of followers) {
      if (isAuditEvent(p.event, f.session())) f.fn(p.event)
    }
  }

  // Calls fn with each audit event pushed from now on for the session
  // session() names at the time; returns the function that stops it.
  function follow(session: () => string, fn: (e: WardenEvent) => void): () => void {
    const f = { session, fn }
    followers.add(f)
    return () => {
      followers.delete(f)
    }
  }

  return { onPush, follow }
})

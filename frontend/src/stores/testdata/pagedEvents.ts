import type { WardenEvent } from '../../bridge'

export interface PageArgs {
  after_seq?: number
  before_seq?: number
  tail?: boolean
  limit?: number
}

// pagedEvents answers SessionEvents over `all` the way the backend does:
// forward after after_seq, or with tail / before_seq the limit events just
// before it (the newest when 0), oldest first.
export function pagedEvents(all: readonly WardenEvent[]) {
  return (a: PageArgs): WardenEvent[] => {
    const limit = a.limit ?? 500
    if (a.tail || (a.before_seq ?? 0) > 0) {
      const before = a.before_seq || Number.POSITIVE_INFINITY
      const older = all.filter((e) => e.seq < before)
      return older.slice(Math.max(0, older.length - limit))
    }
    return all.filter((e) => e.seq > (a.after_seq ?? 0)).slice(0, limit)
  }
}

import { describe, expect, it } from 'vitest'
import { visibleRange } from './virtual'

describe('visibleRange', () => {
  const cases: { name: string; args: [number, number, number, number]; want: { start: number; end: number } }[] = [
    { name: 'top', args: [0, 280, 28, 100000], want: { start: 0, end: 18 } },
    { name: 'middle', args: [28 * 50000, 280, 28, 100000], want: { start: 49992, end: 50018 } },
    { name: 'end clamps', args: [28 * 99995, 280, 28, 100000], want: { start: 99987, end: 100000 } },
    { name: 'empty', args: [0, 280, 28, 0], want: { start: 0, end: 0 } },
    { name: 'negative scroll (overscroll bounce)', args: [-50, 280, 28, 10], want: { start: 0, end: 10 } },
  ]
  for (const c of cases) it(c.name, () => expect(visibleRange(...c.args)).toEqual(c.want))
})

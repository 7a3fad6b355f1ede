import { describe, expect, it } from 'vitest'
import type { Session } from '../bridge'
import { search, snippetAround, type PaletteCommand } from './palette'

const sess = (id: string, title: string, first = '', workspace = `/home/u/${id}`): Session =>
  ({ id, title, first_message: first, workspace, approval: 'on-request', sandbox: { kind: 'workspace-write', network_access: false, writable_roots: [] }, planning: false, created_at: 0, updated_at: 0, busy: false, pending: 0 }) as Session

const sessions = [
  sess('a', 'Clean up the build folder', 'Clean up the build folder and tell me what you removed'),
  sess('b', 'proj', 'Fix the failing test in store/sessions_test.go', '/srv/proj'),
  sess('c', 'Übersetzung der Doku', 'Translate the docs into German'),
  sess('d', 'Untitled', '', '/home/u/website'),
]
const commands: PaletteCommand[] = [
  { id: 'new', label: 'New session' },
  { id: 'grants', label: 'Grants', words: 'permissions always allow revoke' },
  { id: 'audit', label: 'Audit trail', words: 'log history decisions' },
]
const ids = (q: string) =>
  search(q, sessions, commands).map((i) => (i.kind === 'session' ? `s:${i.session.id}:${i.where}` : `c:${i.command.id}`))

describe('palette search', () => {
  const cases: { name: string; q: string; want: string[] }[] = [
    { name: 'empty lists sessions then commands', q: '', want: ['s:a:all', 's:b:all', 's:c:all', 's:d:all', 'c:new', 'c:grants', 'c:audit'] },
    { name: 'a title word', q: 'build', want: ['s:a:title'] },
    { name: 'case does not matter', q: 'BUILD', want: ['s:a:title'] },
    { name: 'a word of the first message only', q: 'failing', want: ['s:b:message'] },
    { name: 'a folder', q: 'website', want: ['s:d:folder'] },
    { name: 'words over title and message', q: 'clean removed', want: ['s:a:message'] },
    { name: 'words over title and message are all', q: 'proj failing', want: ['s:b:all'] },
    { name: 'words spread over fields', q: 'build /home/u/a', want: ['s:a:all'] },
    { name: 'accents folded', q: 'ubersetzung', want: ['s:c:title'] },
    { name: 'every word must match', q: 'build german', want: [] },
    { name: 'a command by name', q: 'audit', want: ['c:audit'] },
    { name: 'a command by its other words', q: 'permissions', want: ['c:grants'] },
    { name: 'title hits come before message hits', q: 'the', want: ['s:a:title', 's:b:message', 's:c:message'] },
    { name: 'nothing', q: 'zzzz', want: [] },
  ]
  for (const c of cases) it(c.name, () => expect(ids(c.q)).toEqual(c.want))

  it('limits the list', () => {
    const many = Array.from({ length: 100 }, (_, i) => sess(`s${i}`, `session ${i}`))
    expect(search('session', many, commands, 10)).toHaveLength(10)
  })
  it('snippets a long message around the hit', () => {
    const long = 'start ' + 'x '.repeat(100) + 'needle ' + 'y '.repeat(100)
    const s = snippetAround(long, 'needle', 40)
    expect(s).toContain('needle')
    expect(s.startsWith('…')).toBe(true)
    expect(s.endsWith('…')).toBe(true)
    expect(s.length).toBeLessThanOrEqual(42)
  })
})

import { describe, expect, it } from 'vitest'
import type { FileChange, WardenEvent, WorkspaceChange } from '../bridge'
import { fileStat, summary, warningText } from './changes'
import { applyEvents, emptyTranscript } from './reducers'

const f = (over: Partial<FileChange>): FileChange => ({ path: 'a', change: 'modified', size: 10, old_size: 10, added: 0, removed: 0, ...over })
const change = (over: Partial<WorkspaceChange>): WorkspaceChange => ({ call_id: 'c1', cause: 'call', workspace: '/w', ...over })

describe('change set words', () => {
  const stats: { name: string; file: FileChange; want: string }[] = [
    { name: 'modified text', file: f({ added: 12, removed: 3 }), want: '+12 −3' },
    { name: 'new file', file: f({ change: 'created', added: 4 }), want: 'new, +4 −0' },
    { name: 'deleted file', file: f({ change: 'deleted', removed: 40 }), want: 'deleted, +0 −40' },
    { name: 'binary', file: f({ binary: true, size: 2 << 20 }), want: 'binary 2.0 MB' },
    { name: 'deleted binary shows the old size', file: f({ change: 'deleted', binary: true, size: 0, old_size: 3072 }), want: 'deleted, binary 3.0 KB' },
    { name: 'symlink', file: f({ mode: '120000' }), want: 'symlink' },
    { name: 'deleted symlink', file: f({ change: 'deleted', old_mode: '120000' }), want: 'deleted, symlink' },
    { name: 'mode change', file: f({ old_mode: '100644', mode: '100755' }), want: '+0 −0, mode 100644→100755' },
    { name: 'too large for a diff', file: f({ size: 5 << 20, diff_omitted: 'too large for a text diff' }), want: '5.0 MB' },
  ]
  for (const c of stats) it(`file stat: ${c.name}`, () => expect(fileStat(c.file)).toBe(c.want))

  it('summarises "3 files changed: src/a.go (+12 −3) …"', () => {
    const c = change({ files: [f({ path: 'src/a.go', added: 12, removed: 3 }), f({ path: 'b' }), f({ path: 'c' })], omitted: 2 })
    expect(summary(c)).toBe('5 files changed: src/a.go (+12 −3), b (+0 −0), c (+0 −0) …')
    expect(summary(change({ files: [f({ path: 'x', change: 'created', added: 1 })] }))).toBe('1 file changed: x (new, +1 −0)')
    expect(summary(change({ error: 'disk full' }))).toBe('No checkpoint')
  })

  it('warns in words about a destructive call no human allowed', () => {
    const c = change({ caged: true, allowed_by: 'sandbox+policy', warning: { deleted: 12, truncated: 1, paths: ['a'], threshold: 'more than 5 files or any file over 1 MB' } })
    expect(warningText(c)).toBe(
      'This caged call (allowed by sandbox+policy, not by you) deleted 12 tracked files and truncated 1 — over the threshold: more than 5 files or any file over 1 MB.',
    )
    expect(warningText(change({}))).toBe('')
  })
})

describe('workspace_changed in the transcript', () => {
  let seq = 0
  const ev = (kind: string, data: Record<string, unknown>): WardenEvent => ({ seq: ++seq, session_id: 's1', version: seq, kind, at: seq, data })
  it('hangs a call change set under its tool item, marks it undone, and shows undo and outside changes as items', () => {
    const t = applyEvents(emptyTranscript(), [
      ev('message_appended', { message_id: 'm1', role: 'user', text: 'clean up' }),
      ev('tool_invocation_started', { call_id: 'c1', tool: 'shell.exec', args: { command: 'rm -rf src' } }),
      ev('workspace_changed', { call_id: 'c1', cause: 'call', workspace: '/w', files: [{ path: 'src/a', change: 'deleted', size: 0, old_size: 3, added: 0, removed: 1 }] }),
      ev('tool_invocation_completed', { call_id: 'c1', tool: 'shell.exec' }),
      ev('workspace_changed', { call_id: 'outside-1', cause: 'outside', workspace: '/w', files: [] }),
      ev('workspace_changed', { call_id: 'undo-1', cause: 'undo', undo_of: 'c1', workspace: '/w', files: [] }),
    ])
    const [msg, tool, outside, undo] = t.items
    expect(msg).toMatchObject({ type: 'message', messageId: 'm1' })
    expect(tool).toMatchObject({ type: 'tool', state: 'done', undoneBy: 'undo-1', changes: { call_id: 'c1' } })
    expect(outside).toMatchObject({ type: 'change', change: { cause: 'outside' } })
    expect(undo).toMatchObject({ type: 'change', change: { cause: 'undo', undo_of: 'c1' } })
  })
})

describe('workspace_changed in the audit trail', () => {
  it('is an audit kind with its summary, the warning and who allowed it', async () => {
    const { auditKinds, auditRow } = await import('./audit')
    expect(auditKinds).toContain('workspace_changed')
    const row = auditRow({
      seq: 9, session_id: 's1', version: 9, kind: 'workspace_changed', at: 1,
      data: { call_id: 'c1', tool: 'shell.exec', cause: 'call', workspace: '/w', allowed_by: 'sandbox+policy',
        warning: { deleted: 6, truncated: 0, paths: [], threshold: 't' },
        files: [{ path: 'src/a.go', change: 'deleted', size: 0, old_size: 3, added: 0, removed: 1 }] },
    })
    expect(row).toMatchObject({ tool: 'shell.exec', source: 'sandbox+policy', summary: 'WARNING destructive: 1 file changed: src/a.go (deleted, +0 −1)' })
    expect(row.hay).toContain('c1')
  })
})

import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { afterEach, describe, expect, it } from 'vitest'
import { BridgeKey, type UndoResult, type WorkspaceChange } from '../../bridge'
import { confirmState } from '../../model/confirm'
import { fakeBridge } from '../../testing/fakeBridge'
import ChangeSet from './ChangeSet.vue'

const change: WorkspaceChange = {
  call_id: 'c1',
  tool: 'shell.exec',
  cause: 'call',
  workspace: '/w',
  allowed_by: 'sandbox+policy',
  caged: true,
  files: [
    { path: 'src/a.go', change: 'modified', size: 120, old_size: 80, added: 12, removed: 3, diff: '--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-old\n+new\n' },
    { path: 'src/b.go', change: 'deleted', size: 0, old_size: 40, added: 0, removed: 2 },
    { path: 'logo.png', change: 'created', size: 2048, old_size: 0, added: 0, removed: 0, binary: true },
  ],
  skipped: ['node_modules/'],
}

function mountWith(c: WorkspaceChange, undo: (a: { force?: boolean }) => UndoResult, props: Record<string, unknown> = {}) {
  const f = fakeBridge({ handlers: { UndoCall: undo } })
  const w = mount(ChangeSet, {
    props: { change: c, sessionId: 's1', ...props },
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return { w, f }
}

afterEach(() => confirmState.resolve?.(false))

describe('ChangeSet', () => {
  it('shows "3 files changed: src/a.go (+12 −3) …" and each file with its diff', () => {
    const { w } = mountWith(change, () => ({ done: true, restored: [] }))
    expect(w.get('[data-testid="change-summary"]').text()).toBe('3 files changed: src/a.go (+12 −3), src/b.go (deleted, +0 −2), logo.png (new, binary 2.0 KB)')
    expect(w.findAll('.files li')).toHaveLength(3)
    expect(w.get('[data-testid="diff"]').text()).toContain('+new')
    expect(w.text()).toContain('Not covered by checkpoints (excluded): node_modules/')
    expect(w.find('[data-testid="destruction-warning"]').exists()).toBe(false)
  })

  it('Undo this call asks the backend once', async () => {
    const { w, f } = mountWith(change, () => ({ done: true, id: 'undo-1', restored: ['src/a.go'] }))
    await w.get('[data-testid="undo-call"]').trigger('click')
    await flushPromises()
    expect(f.call).toHaveBeenCalledWith('UndoCall', { session_id: 's1', call_id: 'c1', force: false })
  })

  it('a conflict with a later call asks before overwriting, then forces', async () => {
    const { w, f } = mountWith(change, (a) =>
      a.force ? { done: true, restored: ['src/a.go'] } : { done: false, restored: [], conflict: { message: '1 file(s) changed again after c1: src/a.go; changed by the fs.write call c2. Undo those first, or undo with --force to overwrite them', paths: ['src/a.go'], later: ['c2'] } },
    )
    await w.get('[data-testid="undo-call"]').trigger('click')
    await flushPromises()
    expect(confirmState.message).toContain('changed by the fs.write call c2')
    expect(confirmState.message).not.toContain('--force')
    confirmState.resolve?.(true)
    await flushPromises()
    expect(f.call).toHaveBeenLastCalledWith('UndoCall', { session_id: 's1', call_id: 'c1', force: true })
  })

  it('a conflict the human declines overwrites nothing', async () => {
    const { w, f } = mountWith(change, () => ({ done: false, restored: [], conflict: { message: 'changed again', paths: ['a'], later: [] } }))
    await w.get('[data-testid="undo-call"]').trigger('click')
    await flushPromises()
    confirmState.resolve?.(false)
    await flushPromises()
    expect(f.call.mock.calls.filter((c) => c[0] === 'UndoCall')).toHaveLength(1)
  })

  it('a destructive call no human allowed shows a warning with Undo', async () => {
    const warned = { ...change, warning: { deleted: 7, truncated: 0, paths: ['src/b.go'], threshold: 'more than 5 files or any file over 1 MB' } }
    const { w, f } = mountWith(warned, () => ({ done: true, restored: [] }))
    expect(w.get('[data-testid="destruction-warning"]').text()).toContain('deleted 7 tracked files')
    await w.get('[data-testid="warning-undo"]').trigger('click')
    await flushPromises()
    expect(f.call).toHaveBeenCalledWith('UndoCall', { session_id: 's1', call_id: 'c1', force: false })
  })

  it('an undone call says so and offers no second undo', () => {
    const { w } = mountWith(change, () => ({ done: true, restored: [] }), { undoneBy: 'undo-1' })
    expect(w.find('[data-testid="undo-call"]').exists()).toBe(false)
    expect(w.get('[data-testid="undone"]').text()).toMatch(/^Undone: these files are back as they were before (the \S+ call|this call)\.$/)
    expect(w.text()).not.toContain('undo-1')
  })

  it('an undo names what it reverted, never an id', () => {
    const undo = { call_id: 'undo-7f3a', cause: 'undo', undo_of: 'c1', workspace: '/w', files: change.files } as typeof change
    const { w } = mountWith(undo, () => ({ done: true, restored: [] }), { undid: 'the shell.exec call', heading: true })
    expect(w.get('summary').text()).toContain('Undo of the shell.exec call:')
    expect(w.html()).not.toContain('undo-7f3a')
  })

  it('a call without a checkpoint says why', () => {
    const { w } = mountWith({ call_id: 'c9', cause: 'call', workspace: '/w', error: 'git add: No space left on device — this call ran without a checkpoint' }, () => ({ done: true, restored: [] }))
    expect(w.get('[data-testid="checkpoint-error"]').text()).toContain('No space left on device')
    expect(w.find('[data-testid="undo-call"]').exists()).toBe(false)
  })
})

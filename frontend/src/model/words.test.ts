import { describe, expect, it } from 'vitest'
import { axesText, workspaceErrorText } from './words'

describe('workspaceErrorText', () => {
  const cases: { name: string; msg: string; want: string }[] = [
    { name: 'missing', msg: 'workspace "/x": stat /x: no such file or directory', want: 'The folder /x does not exist. Check the path, or create the folder first.' },
    { name: 'a file', msg: 'workspace "/x" is not a directory', want: '/x is a file, not a folder. Give the folder the agent should work in.' },
    { name: 'no permission', msg: 'workspace "/x": open /x: permission denied', want: 'Warden may not open /x (permission denied).' },
    { name: 'other', msg: 'disk on fire', want: 'This folder cannot be used: disk on fire' },
  ]
  for (const c of cases) it(c.name, () => expect(workspaceErrorText('/x', c.msg)).toBe(c.want))
})

describe('axesText', () => {
  it('says both axes in the status bar words', () => {
    expect(axesText('on-request', { kind: 'workspace-write', network_access: false, writable_roots: [] })).toBe(
      'Approval: On request · Sandbox: Workspace write (network off)',
    )
    expect(axesText('never', { kind: 'danger-full-access', network_access: false, writable_roots: [] })).toBe('Approval: Never ask · Sandbox: Full access')
  })
})

import { describe, expect, it } from 'vitest'
import { approvalWords, reasonWords as generatedReasonWords, sandboxWords } from '../bridge'
import {
  approvalDescriptions,
  approvalLabels,
  approvalText,
  axesText,
  kindText,
  layerText,
  modelErrorText,
  reasonLabel,
  reasonWords,
  sandboxDescriptions,
  sandboxLabels,
  sandboxText,
  sourceText,
  workspaceErrorText,
} from './words'

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


describe('modelErrorText', () => {
  const cases: { name: string; note: string; want: RegExp | null }[] = [
    { name: 'not an error note', note: 'the turn was cancelled', want: null },
    { name: 'bad key', note: 'error: anthropic: 401 Unauthorized: invalid x-api-key', want: /refused the API key/ },
    { name: 'rate limit', note: 'error: openai: 429 Too Many Requests', want: /rate-limiting/ },
    { name: 'overloaded', note: 'error: anthropic: 529 overloaded_error: Overloaded', want: /having trouble/ },
    { name: 'unknown model', note: 'error: 404 model_not_found', want: /does not know this model/ },
    { name: 'unreachable', note: 'error: Post "http://127.0.0.1:1/v1/messages": dial tcp 127.0.0.1:1: connect: connection refused', want: /cannot reach the model provider/ },
    { name: 'anything else keeps the message', note: 'error: something odd', want: /^The model request failed: something odd$/ },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const got = modelErrorText(c.note)
      if (c.want === null) expect(got).toBeNull()
      else expect(got).toMatch(c.want)
    })
  }
  it('keeps the provider message in the words', () => {
    expect(modelErrorText('error: anthropic: 529 overloaded_error: Overloaded')).toContain('529 overloaded_error: Overloaded')
  })
})

describe('audit words', () => {
  const kinds: [string, string][] = [
    ['permission_requested', 'Asked'],
    ['permission_granted', 'Allowed'],
    ['permission_denied', 'Denied'],
    ['workspace_changed', 'Files changed'],
    ['some_new_kind', 'Some new kind'],
  ]
  for (const [k, want] of kinds) it(`kind ${k}`, () => expect(kindText(k)).toBe(want))
  const sources: [string, string][] = [
    ['sandbox+policy', 'sandbox and policy'],
    ['session-grant:fs.read', 'session grant fs.read'],
    ['workspace-rule:shell:npm test', 'workspace rule shell:npm test'],
    ['human:once', 'you, once'],
    ['trusted-mcp:fs', 'trusted server fs'],
    ['no-approver', 'no approver'],
    ['network-allow:*.npmjs.org', '[network] allow *.npmjs.org'],
    ['browser-call:https://site.example:443', 'the browser call on https://site.example:443'],
    ['private-address', 'Private address'],
    ['answerer:model:claude-haiku-4-5', 'reviewer model (claude-haiku-4-5)'],
    ['answerer:command:corp-check', 'command `corp-check`'],
    ['answerer:hook:corp-guard', 'hook `corp-guard`'],
    ['answerer:model', 'reviewer model'],
    ['', ''],
  ]
  for (const [src, want] of sources) it(`source ${src || '(none)'}`, () => expect(sourceText(src)).toBe(want))
})

describe('reasonLabel', () => {
  const cases: [string, string][] = [
    ['destructive-effect', 'Destructive'],
    ['policy-always', 'Approval policy "Always ask"'],
    ['user-denied', 'Denied by you'],
    ['answerer-denied', 'Denied by an answerer'],
    ['not-a-reason', 'not-a-reason'],
  ]
  for (const [code, want] of cases) it(code, () => expect(reasonLabel(code)).toBe(want))
})

describe('sandboxText and approvalText', () => {
  const cases: [unknown, string][] = [
    [{ kind: 'read-only' }, 'Read only'],
    [{ kind: 'workspace-write', network_access: true }, 'Workspace write (network on)'],
    [{ kind: 'danger-full-access', network_access: true }, 'Full access'],
    [{ kind: 'future-kind' }, 'future-kind'],
    [null, ''],
  ]
  for (const [v, want] of cases) it(`sandbox ${JSON.stringify(v)}`, () => expect(sandboxText(v)).toBe(want))
  it('approval', () => expect([approvalText('never'), approvalText('on-request'), approvalText('x'), approvalText(1)]).toEqual(['Never ask', 'On request', 'x', '']))
})

describe('words come from the generated table (backend/policy/words.go)', () => {
  it('the selectors say what the Go table says', () => {
    for (const [k, w] of Object.entries(approvalWords)) {
      expect(approvalLabels[k as keyof typeof approvalWords]).toBe(w.label)
      expect(approvalDescriptions[k as keyof typeof approvalWords]).toBe(w.text)
    }
    for (const [k, w] of Object.entries(sandboxWords)) {
      expect(sandboxLabels[k as keyof typeof sandboxWords]).toBe(w.label)
      expect(sandboxDescriptions[k as keyof typeof sandboxWords]).toBe(w.text)
    }
    expect(reasonWords).toBe(generatedReasonWords)
  })
  it('every value of the table is offered, narrowest first', () => {
    expect(Object.keys(approvalLabels)).toEqual(['never', 'on-request', 'always'])
    expect(Object.keys(sandboxLabels)).toEqual(['read-only', 'workspace-write', 'danger-full-access'])
    expect(Object.keys(approvalLabels).sort()).toEqual(Object.keys(approvalWords).sort())
    expect(Object.keys(sandboxLabels).sort()).toEqual(Object.keys(sandboxWords).sort())
  })
  const layers: { name: string; layer: string; label: string }[] = [
    { name: 'organisation', layer: 'org', label: 'Organisation' },
    { name: 'a human', layer: 'human', label: 'You' },
    { name: 'a grant', layer: 'grant', label: 'Grant' },
    { name: 'unknown kept as written', layer: 'future-layer', label: 'future-layer' },
    { name: 'none', layer: '', label: '' },
  ]
  for (const c of layers) {
    it(`layer ${c.name}`, () => {
      const t = layerText(c.layer)
      expect(t.label).toBe(c.label)
      if (c.layer && c.label !== c.layer) expect(t.title).toContain(c.layer)
    })
  }
})

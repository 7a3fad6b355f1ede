import { flushPromises, mount } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { afterEach, describe, expect, it } from 'vitest'
import { BridgeKey, type AnswererEntry, type AnswererRoster, type OrgInfo, type TrustAnswererArgs } from '../../bridge'
import { confirmState } from '../../model/confirm'
import { fakeBridge } from '../../testing/fakeBridge'
import AnswerersPanel from './AnswerersPanel.vue'

const cfg = '/home/u/.config/warden/config.toml'
const wsFile = '/work/proj/.warden/config.toml'

// An undefined field in over removes it (exactOptionalPropertyTypes).
type Over = { [K in keyof AnswererEntry]?: AnswererEntry[K] | undefined }
function strip(e: Record<string, unknown>): AnswererEntry {
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k]
  return e as unknown as AnswererEntry
}
const like = (base: AnswererEntry, over: Over): AnswererEntry => strip({ ...base, ...over })
function entry(over: Over = {}): AnswererEntry {
  return strip({
    role: 'answerer',
    kind: 'command',
    name: 'corp-check',
    tier: 'user',
    file: cfg,
    command: ['/opt/corp/check', '--strict'],
    timeout: '10s',
    state: 'active',
    ...over,
  })
}
const untrusted = entry({
  name: 'lint-guard',
  tier: 'workspace',
  file: wsFile,
  command: ['./scripts/guard.sh', 'two words'],
  state: 'untrusted',
  note: 'this workspace brings it: trust it in Settings to let it run',
  config_hash: 'sha256:c0ffee',
  program_hash: 'sha256:beef',
  paths: ['/work/proj/scripts/guard.sh'],
  program: [{ path: '/work/proj/scripts/guard.sh', text: '#!/bin/sh\necho \'{"answer":"pass"}\'\n' }],
})
function roster(entries: AnswererEntry[], over: Partial<AnswererRoster> = {}): AnswererRoster {
  return { session_id: 's1', entries, last: [], human_last: 'you', ...over }
}
const org: OrgInfo = {
  file: '/etc/warden/policy.toml',
  digest: 'sha256:1e0c',
  signed: false,
  approvals: [],
  network_off: false,
  hosts: [],
  deny_hosts: [],
  mcp_restricted: false,
  mcp_servers: [],
  answerers: ['human', 'command'],
  max_grant_days: 0,
  user_allow: true,
  workspace_allow: false,
}

type Props = { sessionId: string | null; configPath: string; org?: OrgInfo | null }
function setup(r: AnswererRoster | Error, props: Partial<Props> = {}, trust?: (a: TrustAnswererArgs) => AnswererRoster) {
  const f = fakeBridge({
    handlers: {
      Answerers: () => {
        if (r instanceof Error) throw r
        return r
      },
      ...(trust ? { TrustAnswerer: trust } : {}),
    },
  })
  const w = mount(AnswerersPanel, {
    props: { sessionId: 's1', configPath: cfg, ...props },
    global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
  })
  return { f, w }
}
const has = (w: ReturnType<typeof setup>['w'], id: string) => w.find(`[data-testid="${id}"]`).exists()

afterEach(() => confirmState.resolve?.(false))

describe('AnswerersPanel', () => {
  const cases: {
    name: string
    roster: AnswererRoster
    props?: Partial<Props>
    text: string[]
    absent?: string[]
    states?: string[]
    trustButtons?: number
    untrustButtons?: number
  }[] = [
    {
      name: 'empty: says every ask comes to you and how to add one',
      roster: roster([]),
      text: ['None configured: every ask comes to you.', `[[answerers]] entry (a program, or a reviewer model) or a [[hooks]] entry in ${cfg}`, 'kind = "command"', '.warden/config.toml'],
      absent: ['answerer-entry', 'answerers-order', 'answerers-org', 'answerers-last'],
    },
    {
      name: 'a user command answerer, active, with the order ending at you',
      roster: roster([entry()]),
      text: ['corp-check', 'command answerer', `your config (${cfg})`, '/opt/corp/check --strict', '10s', 'Asked in this order: corp-check → you'],
      states: ['Active'],
      trustButtons: 0,
      untrustButtons: 0,
    },
    {
      name: 'a reviewer model with its budget and its breaker state',
      roster: roster([entry({ kind: 'model', name: 'reviewer', command: undefined, model: 'anthropic:claude-haiku-4-5', budget: 200, status: 'breaker tripped: 3 denials in a row; asks go to you' })]),
      text: ['reviewer model', 'anthropic:claude-haiku-4-5', 'reviews up to 200 asks a session', 'breaker tripped: 3 denials in a row; asks go to you'],
      states: ['Active'],
    },
    {
      name: 'an untrusted workspace answerer: its program to read, a Trust button, not in the order',
      roster: roster([entry(), untrusted]),
      text: [`this workspace's config (${wsFile})`, "./scripts/guard.sh 'two words'", 'Read the program: /work/proj/scripts/guard.sh', 'echo', 'Asked in this order: corp-check → you'],
      states: ['Active', 'Not trusted yet — does not run'],
      trustButtons: 1,
      untrustButtons: 0,
    },
    {
      name: 'a changed workspace hook is offered "Trust it again"',
      roster: roster([{ ...untrusted, role: 'hook', kind: 'before', name: 'corp-guard', state: 'changed', note: 'its program changed since you trusted it', tools: ['shell.exec'] }]),
      text: ['pre-call hook', 'Trust it again…', 'its program changed since you trusted it', 'shell.exec', 'Hooks'],
      absent: ['answerers-order'],
      states: ['Changed since you trusted it — does not run'],
      trustButtons: 1,
    },
    {
      name: 'a trusted workspace hook can be untrusted; an after-call hook is named so',
      roster: roster([entry({ role: 'hook', kind: 'after', name: 'log', tier: 'workspace', file: wsFile, state: 'active' })]),
      text: ['after-call hook', 'Stop trusting…'],
      trustButtons: 0,
      untrustButtons: 1,
    },
    {
      name: 'an untrusted entry without hashes gets no Trust button',
      roster: roster([like(untrusted, { config_hash: undefined, program_hash: '', note: 'its program /work/proj/x is missing' })]),
      text: ['its program /work/proj/x is missing'],
      trustButtons: 0,
    },
    {
      name: "not allowed by the organisation, with the org's allowance",
      roster: roster([entry({ kind: 'model', name: 'reviewer', command: undefined, model: 'openai:gpt-4.1-mini', state: 'not-allowed', note: 'your organisation does not allow model answerers' })]),
      props: { org },
      text: ['Your organisation allows these answerers: human, command', '/etc/warden/policy.toml', 'your organisation does not allow model answerers', 'Asked in this order: you'],
      states: ['Not allowed by your organisation'],
    },
    {
      name: 'broken and left-out entries say why',
      roster: roster([
        entry({ state: 'broken', note: 'program /opt/corp/check not found' }),
        entry({ kind: 'model', name: 'ws-reviewer', tier: 'workspace', file: wsFile, command: undefined, model: 'anthropic:x', state: 'left-out', note: 'a workspace may not name a reviewer model' }),
      ]),
      text: ['program /opt/corp/check not found', 'a workspace may not name a reviewer model'],
      states: ['Cannot start', 'Ignored'],
      trustButtons: 0,
      untrustButtons: 0,
    },
    {
      name: 'headless: the end of the order is a denial; last answers listed',
      roster: roster([entry()], {
        human_last: 'nobody: with no human attached, an ask the answerers pass is denied',
        last: [{ time: Date.UTC(2026, 11, 5, 14, 0), request_id: 'r1', tool: 'shell.exec', kind: 'command', name: 'corp-check', answer: 'deny', reason: 'curl is not allowed here', latency_ms: 1500 }],
      }),
      text: ['corp-check → nobody: with no human attached', 'command `corp-check` denied shell.exec', '1.5 s', 'curl is not allowed here'],
    },
    {
      name: 'no session: says to open one and asks nothing',
      roster: roster([entry()]),
      props: { sessionId: null },
      text: ['Open a session to see the answerers that apply to it.'],
      absent: ['answerer-entry', 'answerers-empty'],
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const { w, f } = setup(c.roster, c.props)
      await flushPromises()
      const text = w.text().replace(/\s+/g, ' ')
      for (const t of c.text) expect(text).toContain(t)
      for (const id of c.absent ?? []) expect(has(w, id), id).toBe(false)
      if (c.states) expect(w.findAll('[data-testid="answerer-state"]').map((s) => s.text())).toEqual(c.states)
      if (c.trustButtons !== undefined) expect(w.findAll('[data-testid="answerer-trust"]')).toHaveLength(c.trustButtons)
      if (c.untrustButtons !== undefined) expect(w.findAll('[data-testid="answerer-untrust"]')).toHaveLength(c.untrustButtons)
      if (c.props?.sessionId === null) expect(f.call).not.toHaveBeenCalledWith('Answerers', expect.anything())
      w.unmount()
    })
  }

  const trusts: { name: string; confirm: boolean; entry: AnswererEntry; question: string[]; want: TrustAnswererArgs | null }[] = [
    {
      name: 'trust: the confirmation names what runs, and the hashes shown go along',
      confirm: true,
      entry: untrusted,
      question: ['command answerer "lint-guard"', wsFile, "`./scripts/guard.sh 'two words'`", 'for every ask in this workspace', 'read-only sandbox with no network', 'If its config or program file changes'],
      want: { session_id: 's1', role: 'answerer', name: 'lint-guard', config_hash: 'sha256:c0ffee', program_hash: 'sha256:beef' },
    },
    {
      name: 'trust a pre-call hook: it says when it runs and that it only tightens',
      confirm: true,
      entry: { ...untrusted, role: 'hook', kind: 'before', name: 'corp-guard', tools: ['shell.exec'] },
      question: ['pre-call hook "corp-guard"', 'before every tool call of shell.exec', 'It can only make a decision stricter.'],
      want: { session_id: 's1', role: 'hook', name: 'corp-guard', config_hash: 'sha256:c0ffee', program_hash: 'sha256:beef' },
    },
    { name: 'cancel: nothing is trusted', confirm: false, entry: untrusted, question: ['lint-guard'], want: null },
  ]
  for (const c of trusts) {
    it(c.name, async () => {
      const after = roster([like(c.entry, { state: 'active', program: undefined })])
      const got: TrustAnswererArgs[] = []
      const { w } = setup(roster([c.entry]), {}, (a) => (got.push(a), after))
      await flushPromises()
      await w.get('[data-testid="answerer-trust"]').trigger('click')
      await flushPromises()
      for (const q of c.question) expect(confirmState.message).toContain(q)
      expect(confirmState.action).toBe('Trust and run it')
      confirmState.resolve?.(c.confirm)
      await flushPromises()
      expect(got).toEqual(c.want ? [c.want] : [])
      if (c.want) expect(w.findAll('[data-testid="answerer-state"]').map((s) => s.text())).toEqual(['Active'])
      w.unmount()
    })
  }

  it('untrust asks first, then sends untrust', async () => {
    const trusted = entry({ tier: 'workspace', file: wsFile, state: 'active' })
    const got: TrustAnswererArgs[] = []
    const { w } = setup(roster([trusted]), {}, (a) => (got.push(a), roster([{ ...trusted, state: 'untrusted' }])))
    await flushPromises()
    await w.get('[data-testid="answerer-untrust"]').trigger('click')
    await flushPromises()
    expect(confirmState.message).toContain('Stop trusting the command answerer "corp-check"?')
    confirmState.resolve?.(true)
    await flushPromises()
    expect(got).toEqual([{ session_id: 's1', role: 'answerer', name: 'corp-check', untrust: true }])
  })

  it('a refused trust shows the backend words and the list as it is now', async () => {
    let calls = 0
    const f = fakeBridge({
      handlers: {
        Answerers: () => (calls++, roster([calls > 1 ? { ...untrusted, state: 'changed', config_hash: 'sha256:new' } : untrusted])),
        TrustAnswerer: () => {
          throw new Error('workspace answerer `lint-guard` changed since it was shown to you: look at it again before trusting it')
        },
      },
    })
    const w = mount(AnswerersPanel, {
      props: { sessionId: 's1', configPath: cfg },
      global: { plugins: [createPinia()], provide: { [BridgeKey as symbol]: f.bridge } },
    })
    await flushPromises()
    await w.get('[data-testid="answerer-trust"]').trigger('click')
    await flushPromises()
    confirmState.resolve?.(true)
    await flushPromises()
    expect(w.get('[data-testid="answerers-error"]').text()).toContain('changed since it was shown to you')
    expect(w.get('[data-testid="answerer-state"]').text()).toBe('Changed since you trusted it — does not run')
    w.unmount()
  })

  it('a read error is shown as text, never as HTML', async () => {
    const { w } = setup(new Error('<b>session s1 not found</b>'))
    await flushPromises()
    expect(w.get('[role="alert"]').text()).toContain('<b>session s1 not found</b>')
    expect(w.find('b').exists()).toBe(false)
    w.unmount()
  })
})

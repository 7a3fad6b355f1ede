import { describe, expect, it } from 'vitest'
import type { McpServer, McpTrust, ModelArgs, ModelSettings, ProbeArgs } from '../bridge'
import {
  defaultsEqual,
  endpointText,
  keyHint,
  mcpStateText,
  modelArgs,
  modelDirty,
  probeArgs,
  sandboxText,
  toolCountText,
  trustText,
  type ModelForm,
  type Tone,
} from './settings'

const saved: ModelSettings = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  base_url: '',
  api_key_set: true,
  api_key_source: 'config',
  api_key_hint: '…a1B2',
}
const form: ModelForm = { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: '', apiKey: '', clearKey: false }

describe('keyHint', () => {
  const cases: { name: string; m: Partial<ModelSettings>; want: string }[] = [
    { name: 'from the config file', m: {}, want: 'Key set (…a1B2) from config' },
    { name: 'from ANTHROPIC_API_KEY', m: { api_key_source: 'env:ANTHROPIC_API_KEY' }, want: 'Key set (…a1B2) from ANTHROPIC_API_KEY' },
    { name: 'from OPENAI_API_KEY', m: { provider: 'openai', api_key_source: 'env:OPENAI_API_KEY', api_key_hint: '…zz99' }, want: 'Key set (…zz99) from OPENAI_API_KEY' },
    { name: 'set without a hint', m: { api_key_hint: '' }, want: 'Key set from config' },
    { name: 'a short key shows no characters', m: { api_key_hint: '…' }, want: 'Key set from config' },
    { name: 'none for anthropic names its variable', m: { api_key_set: false, api_key_source: '', api_key_hint: '' }, want: 'No key set: paste one here or set ANTHROPIC_API_KEY.' },
    { name: 'none for the demo', m: { provider: 'demo', api_key_set: false, api_key_source: '', api_key_hint: '' }, want: 'No key set.' },
  ]
  for (const c of cases) it(c.name, () => expect(keyHint({ ...saved, ...c.m })).toBe(c.want))
})

describe('modelArgs and probeArgs', () => {
  const cases: { name: string; f: Partial<ModelForm>; args: ModelArgs; probe: ProbeArgs }[] = [
    {
      name: 'no key typed: api_key omitted',
      f: {},
      args: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: '' },
      probe: { provider: 'anthropic', base_url: '', model: 'claude-sonnet-4-5' },
    },
    {
      name: 'a typed key is sent, trimmed',
      f: { apiKey: '  sk-new  ' },
      args: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: '', api_key: 'sk-new' },
      probe: { provider: 'anthropic', base_url: '', api_key: 'sk-new', model: 'claude-sonnet-4-5' },
    },
    {
      name: 'clear key',
      f: { clearKey: true },
      args: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: '', clear_api_key: true },
      probe: { provider: 'anthropic', base_url: '', model: 'claude-sonnet-4-5' },
    },
    {
      name: 'a typed key wins over clear',
      f: { clearKey: true, apiKey: 'k2' },
      args: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: '', api_key: 'k2' },
      probe: { provider: 'anthropic', base_url: '', api_key: 'k2', model: 'claude-sonnet-4-5' },
    },
    {
      name: 'openai with a base URL and no model',
      f: { provider: 'openai', model: ' ', baseUrl: ' http://127.0.0.1:11434/v1 ' },
      args: { provider: 'openai', model: '', base_url: 'http://127.0.0.1:11434/v1' },
      probe: { provider: 'openai', base_url: 'http://127.0.0.1:11434/v1' },
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      expect(modelArgs({ ...form, ...c.f })).toStrictEqual(c.args)
      expect(probeArgs({ ...form, ...c.f })).toStrictEqual(c.probe)
    })
  }
})

describe('modelDirty', () => {
  const cases: { name: string; f: Partial<ModelForm>; want: boolean }[] = [
    { name: 'unchanged', f: {}, want: false },
    { name: 'whitespace only', f: { model: 'claude-sonnet-4-5 ' }, want: false },
    { name: 'provider', f: { provider: 'openai' }, want: true },
    { name: 'model', f: { model: 'claude-opus-4' }, want: true },
    { name: 'base URL', f: { baseUrl: 'https://proxy.example' }, want: true },
    { name: 'key typed', f: { apiKey: 'x' }, want: true },
    { name: 'clear pending', f: { clearKey: true }, want: true },
  ]
  for (const c of cases) it(c.name, () => expect(modelDirty({ ...form, ...c.f }, saved)).toBe(c.want))
})

describe('defaultsEqual', () => {
  const base = { approval: 'on-request' as const, sandbox: { kind: 'workspace-write' as const, network_access: false, writable_roots: ['/a'] } }
  const cases: { name: string; b: typeof base | Record<string, unknown>; want: boolean }[] = [
    { name: 'same', b: { ...base, sandbox: { ...base.sandbox, writable_roots: ['/a'] } }, want: true },
    { name: 'approval', b: { ...base, approval: 'always' }, want: false },
    { name: 'kind', b: { ...base, sandbox: { ...base.sandbox, kind: 'read-only' } }, want: false },
    { name: 'network', b: { ...base, sandbox: { ...base.sandbox, network_access: true } }, want: false },
    { name: 'roots', b: { ...base, sandbox: { ...base.sandbox, writable_roots: ['/a', '/b'] } }, want: false },
  ]
  for (const c of cases) it(c.name, () => expect(defaultsEqual(base, c.b as typeof base)).toBe(c.want))
})

describe('mcpStateText', () => {
  const cases: { name: string; s: Pick<McpServer, 'state' | 'last_error'>; label: string; tone: Tone }[] = [
    { name: 'running', s: { state: 'running' }, label: 'Running', tone: 'ok' },
    { name: 'idle', s: { state: 'idle' }, label: 'Not started', tone: 'muted' },
    { name: 'starting', s: { state: 'starting' }, label: 'Starting…', tone: 'warn' },
    { name: 'stopped', s: { state: 'stopped' }, label: 'Stopped', tone: 'muted' },
    { name: 'failed', s: { state: 'failed', last_error: 'exec: npx: not found' }, label: 'Failed', tone: 'bad' },
    { name: 'crashed', s: { state: 'crashed', last_error: 'exit status 1' }, label: 'Crashed', tone: 'bad' },
    { name: 'idle after an error is bad', s: { state: 'idle', last_error: 'trust store: locked' }, label: 'Not started', tone: 'bad' },
    { name: 'awaiting trust', s: { state: 'awaiting-trust' }, label: 'Waiting for your trust', tone: 'warn' },
    { name: 'a state this UI does not know', s: { state: 'paused' as McpServer['state'] }, label: 'paused', tone: 'muted' },
  ]
  for (const c of cases) it(c.name, () => expect(mcpStateText(c.s)).toEqual({ label: c.label, tone: c.tone }))
})

describe('sandboxText', () => {
  type S = Pick<McpServer, 'transport' | 'sandbox' | 'sandbox_why'>
  const cases: { name: string; s: S; want: { label: string; tone: Tone } | null }[] = [
    { name: 'caged by default', s: { transport: 'stdio', sandbox: 'cage', sandbox_why: 'the default for stdio servers' }, want: { label: 'Caged', tone: 'ok' } },
    { name: 'opted out', s: { transport: 'stdio', sandbox: 'none', sandbox_why: 'sandbox = "none" in its config' }, want: { label: 'Not caged', tone: 'warn' } },
    { name: 'no cage on this machine', s: { transport: 'stdio', sandbox: 'none', sandbox_why: 'the cage is unavailable: bwrap not found' }, want: { label: 'Not caged', tone: 'warn' } },
    {
      name: 'insists on a missing cage',
      s: { transport: 'stdio', sandbox: 'cage', sandbox_why: 'cannot start: the cage is unavailable' },
      want: { label: 'Cage required, unavailable', tone: 'bad' },
    },
    { name: 'http has none', s: { transport: 'http' }, want: null },
    { name: 'an older backend says nothing', s: { transport: 'stdio' }, want: null },
  ]
  for (const c of cases) it(c.name, () => expect(sandboxText(c.s)).toEqual(c.want))
})

describe('trustText', () => {
  const cases: { name: string; t: McpTrust | undefined; label: string; tone: Tone }[] = [
    { name: 'never trusted', t: undefined, label: 'Not trusted', tone: 'muted' },
    { name: 'persistent', t: { scope: 'persistent', trusted_at: '', config_matches: true }, label: 'Trusted in this workspace', tone: 'ok' },
    { name: 'session', t: { scope: 'session', trusted_at: '', config_matches: true }, label: 'Trusted for this session', tone: 'ok' },
    {
      name: 'config changed',
      t: { scope: 'persistent', trusted_at: '', config_matches: false },
      label: 'Trusted in this workspace, config changed since trusted',
      tone: 'warn',
    },
  ]
  for (const c of cases) it(c.name, () => expect(trustText(c.t)).toEqual({ label: c.label, tone: c.tone }))
})

describe('endpointText and toolCountText', () => {
  const cases: { name: string; s: Pick<McpServer, 'transport' | 'command' | 'args' | 'url'>; want: string }[] = [
    { name: 'stdio with args', s: { transport: 'stdio', command: 'npx', args: ['-y', 'pkg'] }, want: 'npx -y pkg' },
    { name: 'stdio without args', s: { transport: 'stdio', command: '/usr/bin/srv' }, want: '/usr/bin/srv' },
    { name: 'http', s: { transport: 'http', url: 'http://127.0.0.1:9000/mcp' }, want: 'http://127.0.0.1:9000/mcp' },
  ]
  for (const c of cases) it(c.name, () => expect(endpointText(c.s)).toBe(c.want))
  it('counts tools in words', () => {
    expect([0, 1, 7].map(toolCountText)).toEqual(['0 tools', '1 tool', '7 tools'])
  })
})

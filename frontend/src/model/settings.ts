// Pure helpers of the Settings screen: the words it shows for keys, MCP
// states and trust, and the exact arguments its forms send.
import type {
  ApiKeySource,
  Defaults,
  McpServer,
  McpTrust,
  ModelArgs,
  ModelSettings,
  ProbeArgs,
  ProviderId,
  ProviderInfo,
} from '../bridge'

export type Tone = 'ok' | 'warn' | 'bad' | 'muted'

// The model form as the user edits it. apiKey is only what they typed now:
// a stored key is never read back into the page.
export interface ModelForm {
  provider: ProviderId
  model: string
  baseUrl: string
  apiKey: string
  clearKey: boolean
}

export function formFrom(m: ModelSettings): ModelForm {
  return { provider: m.provider, model: m.model, baseUrl: m.base_url, apiKey: '', clearKey: false }
}

// The environment variable a provider's key falls back to.
export function envKeyName(p: ProviderId): string {
  if (p === 'anthropic') return 'ANTHROPIC_API_KEY'
  if (p === 'openai') return 'OPENAI_API_KEY'
  return ''
}

export function keySourceText(src: ApiKeySource): string {
  if (src === 'config') return 'config'
  if (src.startsWith('env:')) return src.slice(4)
  return ''
}

// "Key set (…a1B2) from config" / "… from ANTHROPIC_API_KEY" / "No key set".
export function keyHint(m: ModelSettings): string {
  if (!m.api_key_set) {
    const env = envKeyName(m.provider)
    return env ? `No key set: paste one here or set ${env}.` : 'No key set.'
  }
  // The backend shows only "…" for a key too short to reveal four characters.
  const hint = m.api_key_hint.replace(/^…/, '') ? ` (${m.api_key_hint})` : ''
  const from = keySourceText(m.api_key_source)
  return `Key set${hint}${from ? ` from ${from}` : ''}`
}

// Demo and script run locally: no endpoint, no key.
export function isRemote(p: ProviderInfo | undefined): boolean {
  return !!p && (p.needs_key || p.default_base_url !== '')
}

export function modelArgs(f: ModelForm): ModelArgs {
  const a: ModelArgs = { provider: f.provider, model: f.model.trim(), base_url: f.baseUrl.trim() }
  const key = f.apiKey.trim()
  if (key) a.api_key = key
  else if (f.clearKey) a.clear_api_key = true
  return a
}

export function probeArgs(f: ModelForm): ProbeArgs {
  const a: ProbeArgs = { provider: f.provider, base_url: f.baseUrl.trim() }
  const key = f.apiKey.trim()
  if (key) a.api_key = key
  const model = f.model.trim()
  if (model) a.model = model
  return a
}

export function modelDirty(f: ModelForm, saved: ModelSettings): boolean {
  return (
    f.provider !== saved.provider ||
    f.model.trim() !== saved.model ||
    f.baseUrl.trim() !== saved.base_url ||
    f.apiKey.trim() !== '' ||
    f.clearKey
  )
}

export function defaultsEqual(a: Defaults, b: Defaults): boolean {
  const x = a.sandbox
  const y = b.sandbox
  return (
    a.approval === b.approval &&
    x.kind === y.kind &&
    x.network_access === y.network_access &&
    x.writable_roots.length === y.writable_roots.length &&
    x.writable_roots.every((r, i) => r === y.writable_roots[i])
  )
}

export function cloneDefaults(d: Defaults): Defaults {
  return { approval: d.approval, sandbox: { ...d.sandbox, writable_roots: [...(d.sandbox.writable_roots ?? [])] } }
}

export const defaultsFullAccessWarning =
  'Full access runs every command outside the cage: it can write anywhere and reach the network. Make it the default for new sessions?'

const stateWords: Record<string, { label: string; tone: Tone }> = {
  idle: { label: 'Not started', tone: 'muted' },
  starting: { label: 'Starting…', tone: 'warn' },
  running: { label: 'Running', tone: 'ok' },
  crashed: { label: 'Crashed', tone: 'bad' },
  failed: { label: 'Failed', tone: 'bad' },
  stopped: { label: 'Stopped', tone: 'muted' },
  'awaiting-trust': { label: 'Waiting for your trust', tone: 'warn' },
}

export function mcpStateText(s: Pick<McpServer, 'state' | 'last_error'>): { label: string; tone: Tone } {
  const w = stateWords[s.state] ?? { label: s.state || 'Unknown', tone: 'muted' as Tone }
  return s.last_error && w.tone !== 'bad' && s.state !== 'running' ? { label: w.label, tone: 'bad' } : w
}

export function trustText(t: McpTrust | undefined): { label: string; tone: Tone } {
  if (!t) return { label: 'Not trusted', tone: 'muted' }
  const scope = t.scope === 'persistent' ? 'Trusted in this workspace' : 'Trusted for this session'
  if (!t.config_matches) return { label: `${scope}, config changed since trusted`, tone: 'warn' }
  return { label: scope, tone: 'ok' }
}

// How a stdio server runs (its "sandbox" setting as the backend applied
// it): in the cage like a shell command, or with the user's own rights.
// Null for an HTTP server, which runs elsewhere.
export function sandboxText(s: Pick<McpServer, 'transport' | 'sandbox' | 'sandbox_why'>): { label: string; tone: Tone } | null {
  if (s.transport !== 'stdio' || !s.sandbox) return null
  if (s.sandbox_why?.startsWith('cannot start')) return { label: 'Cage required, unavailable', tone: 'bad' }
  if (s.sandbox === 'cage') return { label: 'Caged', tone: 'ok' }
  return { label: 'Not caged', tone: 'warn' }
}

// How the server is reached: its command line or its URL.
export function endpointText(s: Pick<McpServer, 'transport' | 'command' | 'args' | 'url'>): string {
  if (s.transport === 'http') return s.url ?? ''
  return [s.command ?? '', ...(s.args ?? [])].filter((x) => x !== '').join(' ')
}

export function toolCountText(n: number): string {
  return n === 1 ? '1 tool' : `${n} tools`
}

// The MCP server form of Settings: what the human types, and the exact
// SaveMcpServer arguments it becomes. Stored env and header values never
// come back to the window: an edit keeps them by name unless replaced.
import type { McpServer, McpServerArgs } from '../bridge'

export interface McpForm {
  name: string
  kind: 'stdio' | 'http'
  command: string
  // One argument per line, taken as written (no shell quoting to get wrong).
  args: string
  // NAME=value, one per line: new or changed values.
  env: string
  // Stored names the human keeps (their values stay in config.toml).
  keepEnv: string[]
  url: string
  headers: string
  keepHeaders: string[]
  sandbox: '' | 'cage' | 'none'
}

export function emptyMcpForm(): McpForm {
  return { name: '', kind: 'stdio', command: '', args: '', env: '', keepEnv: [], url: '', headers: '', keepHeaders: [], sandbox: '' }
}

// mcpFormFrom fills the form to edit a server of config.toml.
export function mcpFormFrom(s: McpServer): McpForm {
  return {
    ...emptyMcpForm(),
    name: s.name,
    kind: s.transport === 'http' ? 'http' : 'stdio',
    command: s.command ?? '',
    args: (s.args ?? []).join('\n'),
    keepEnv: [...(s.env_names ?? [])],
    url: s.url ?? '',
    sandbox: s.sandbox_setting ?? '',
  }
}

const varName = /^[A-Za-z_][A-Za-z0-9_]*$/
const headerName = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

// pairs reads NAME=value lines; blank lines are skipped, a bad line is an
// error naming it.
export function pairs(text: string, what: 'variable' | 'header'): { values: Record<string, string>; error: string } {
  const values: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '')
    if (!line.trim()) continue
    const sep = what === 'header' && !line.includes('=') ? line.indexOf(':') : line.indexOf('=')
    const name = sep < 0 ? line.trim() : line.slice(0, sep).trim()
    if (sep < 0) return { values, error: `Line ${i + 1}: write ${what === 'header' ? 'Name: value' : 'NAME=value'} (${name} has no value).` }
    if (!(what === 'header' ? headerName : varName).test(name)) return { values, error: `Line ${i + 1}: "${name}" is not a ${what} name.` }
    values[name] = what === 'header' ? line.slice(sep + 1).trim() : line.slice(sep + 1)
  }
  return { values, error: '' }
}

const serverName = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

// mcpArgs checks the form and builds the call; previous names the server
// being edited ('' for a new one).
export function mcpArgs(f: McpForm, previous = ''): { args: McpServerArgs | null; error: string } {
  const name = f.name.trim()
  if (!serverName.test(name)) return { args: null, error: 'The name uses letters, digits, "_", "-" and ".", starts with a letter or digit, at most 64 characters.' }
  const a: McpServerArgs = { name }
  if (previous) a.previous = previous
  if (f.kind === 'stdio') {
    if (!f.command.trim()) return { args: null, error: 'Give the program that runs the server (its path, or a name on PATH).' }
    a.command = f.command.trim()
    const args = f.args.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '')
    if (args.length) a.args = args
    const env = pairs(f.env, 'variable')
    if (env.error) return { args: null, error: `Environment: ${env.error}` }
    if (Object.keys(env.values).length) a.env = env.values
    const keep = f.keepEnv.filter((n) => !(n in env.values))
    if (keep.length) a.keep_env = keep
    if (f.sandbox) a.sandbox = f.sandbox
  } else {
    const url = f.url.trim()
    if (!/^https?:\/\/[^\s/]+/.test(url)) return { args: null, error: 'Give the server’s address, starting with http:// or https://.' }
    a.url = url
    const headers = pairs(f.headers, 'header')
    if (headers.error) return { args: null, error: `Headers: ${headers.error}` }
    if (Object.keys(headers.values).length) a.headers = headers.values
    const keep = f.keepHeaders.filter((n) => !(n in headers.values))
    if (keep.length) a.keep_headers = keep
  }
  return { args: a, error: '' }
}

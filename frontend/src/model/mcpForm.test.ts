import { describe, expect, it } from 'vitest'
import type { McpServer } from '../bridge'
import { emptyMcpForm, mcpArgs, mcpFormFrom, pairs, type McpForm } from './mcpForm'

const form = (over: Partial<McpForm>): McpForm => ({ ...emptyMcpForm(), ...over })

describe('mcpArgs', () => {
  const cases: { name: string; f: McpForm; previous?: string; want?: unknown; error?: RegExp }[] = [
    { name: 'a program with arguments', f: form({ name: 'everything', command: ' mcp-server-everything ', args: 'stdio\n\n--port 3\n' }), want: { name: 'everything', command: 'mcp-server-everything', args: ['stdio', '--port 3'] } },
    { name: 'arguments keep their spaces and quotes', f: form({ name: 'q', command: 'srv', args: '  two  spaces \n"quoted"' }), want: { name: 'q', command: 'srv', args: ['  two  spaces ', '"quoted"'] } },
    { name: 'env values and kept names', f: form({ name: 'a', command: 'a', env: 'TOKEN=x=y\nEMPTY=', keepEnv: ['OLD', 'TOKEN'] }), want: { name: 'a', command: 'a', env: { TOKEN: 'x=y', EMPTY: '' }, keep_env: ['OLD'] } },
    { name: 'a sandbox choice', f: form({ name: 'a', command: 'a', sandbox: 'none' }), want: { name: 'a', command: 'a', sandbox: 'none' } },
    { name: 'an edit names the old server', f: form({ name: 'new', command: 'a' }), previous: 'old', want: { name: 'new', previous: 'old', command: 'a' } },
    { name: 'an HTTP server with headers', f: form({ name: 'r', kind: 'http', url: 'https://mcp.example.com/mcp', headers: 'Authorization: Bearer t\nX-Org=7', command: 'ignored' }), want: { name: 'r', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t', 'X-Org': '7' } } },
    { name: 'no name', f: form({ command: 'a' }), error: /name/ },
    { name: 'a name with spaces', f: form({ name: 'my server', command: 'a' }), error: /name/ },
    { name: 'no program', f: form({ name: 'a' }), error: /program/ },
    { name: 'a bad env line', f: form({ name: 'a', command: 'a', env: 'NOVALUE' }), error: /Environment: Line 1/ },
    { name: 'a bad variable name', f: form({ name: 'a', command: 'a', env: '1X=2' }), error: /not a variable name/ },
    { name: 'a URL without a scheme', f: form({ name: 'r', kind: 'http', url: 'mcp.example.com' }), error: /http/ },
  ]
  for (const c of cases)
    it(c.name, () => {
      const r = mcpArgs(c.f, c.previous)
      if (c.error) {
        expect(r.args).toBeNull()
        expect(r.error).toMatch(c.error)
      } else {
        expect(r.error).toBe('')
        expect(r.args).toEqual(c.want)
      }
    })
})

describe('pairs', () => {
  it('skips blank lines and keeps = in values', () => expect(pairs('A=1\n\nB=a=b\r\n', 'variable')).toEqual({ values: { A: '1', B: 'a=b' }, error: '' }))
})

describe('mcpFormFrom', () => {
  it('fills an edit from a listed server, values kept by name', () => {
    const s = { name: 'e', transport: 'stdio', source: '/c.toml', command: 'srv', args: ['a', 'b c'], env_names: ['TOKEN'], config_hash: '', state: 'idle', log_path: '', restarts: 0, tools: null } as McpServer
    expect(mcpFormFrom(s)).toMatchObject({ name: 'e', kind: 'stdio', command: 'srv', args: 'a\nb c', keepEnv: ['TOKEN'], env: '' })
  })
})

import { describe, expect, it } from 'vitest'
import { signatureWords } from './signature'

// Every signature form of permission-model.md, in words, for both scopes.
const cases: { name: string; sig: string; session: string; syntax?: string }[] = [
  { name: 'exact shell', sig: 'shell=rm -rf build', session: 'exactly this command, character for character, in this session', syntax: '"shell=" is an exact command' },
  { name: 'shell head', sig: 'shell:npm test', session: 'every "npm test" command whose other arguments are known to be harmless, in this session', syntax: '"shell:" is a command head' },
  { name: 'shell head, a script', sig: 'shell:./scripts/test.sh', session: 'every "./scripts/test.sh" command whose other arguments are known to be harmless, in this session', syntax: 'command head' },
  { name: 'ssh with a command', sig: 'ssh:deploy@example.com:22 uptime', session: 'the command "uptime" over ssh on deploy@example.com:22 (exactly), in this session' },
  { name: 'git push plain', sig: 'git-push:origin/main', session: 'git push with origin/main (not force, delete, mirror, prune, all or tags: those ask again), in this session' },
  { name: 'git push force', sig: 'git-push:origin/main+force', session: 'git push with origin/main, including force (overwrites the remote history), in this session' },
  { name: 'git push delete+tags', sig: 'git-push:origin/topic+delete+tags', session: 'git push with origin/topic, including delete (removes the remote branch), tags, in this session' },
  { name: 'git fetch', sig: 'git-fetch:upstream/', session: 'git fetch with upstream (not force, delete, mirror, prune, all or tags: those ask again), in this session' },
  { name: 'network host', sig: 'net:registry.npmjs.org:443', session: 'network connections to registry.npmjs.org on port 443, in this session' },
  { name: 'browser navigate', sig: 'browser:navigate:https://example.com:443', session: 'opening any page on https://example.com:443, in this session' },
  { name: 'browser verb', sig: 'browser:click', session: 'every browser "click" action, on any page, in this session' },
  { name: 'mcp tool', sig: 'mcp-tool:fs/write_file', session: 'every call of the tool "write_file" of the MCP server "fs", with any arguments, in this session' },
  { name: 'fs.read', sig: 'fs.read', session: 'every file read in this session' },
  { name: 'fs.write', sig: 'fs.write', session: 'every file write, to any path the sandbox admits in this session' },
  { name: 'computer.use', sig: 'computer.use', session: 'every mouse and keyboard action on your desktop in this session' },
  { name: 'an unknown tool', sig: 'weird.tool', session: 'every call of the tool "weird.tool", with any arguments, in this session' },
]

describe('signatureWords', () => {
  for (const c of cases) {
    it(c.name, () => {
      const w = signatureWords(c.sig, 'session')
      expect(w.text).toBe(c.session)
      if (c.syntax) expect(w.syntax).toContain(c.syntax)
      else expect(w.syntax).toBeUndefined()
      expect(signatureWords(c.sig, 'workspace').text).toContain('in this workspace, from now on')
    })
  }
})

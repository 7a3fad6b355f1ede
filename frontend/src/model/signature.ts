// What an "Always allow" covers, in words. The engine remembers a signature,
// not the call (permission-model.md, "Signatures"); the human must read what
// that signature will let through before clicking, for every form it takes.

import { toolWords } from '../bridge'

export type GrantScope = 'session' | 'workspace'

const pushFlags: Record<string, string> = {
  force: 'force (overwrites the remote history)',
  delete: 'delete (removes the remote branch)',
  mirror: 'mirror (makes the remote a copy of everything here)',
  prune: 'prune (removes remote branches)',
  all: 'all branches',
  tags: 'tags',
  rebase: 'rebase',
}

export interface SignatureWords {
  // One sentence: what else this grant will let through.
  text: string
  // How to read the syntax of this signature form, for the two shell forms.
  syntax?: string
}

export function signatureWords(sig: string, scope: GrantScope = 'session'): SignatureWords {
  const where = scope === 'workspace' ? 'in this workspace, from now on' : 'in this session'
  if (sig.startsWith('shell=')) {
    return {
      text: `exactly this command, character for character, ${where}`,
      syntax: '"shell=" is an exact command: any change to it asks again.',
    }
  }
  if (sig.startsWith('shell:')) {
    const head = sig.slice(6)
    return {
      text: `every "${head}" command whose other arguments are known to be harmless, ${where}`,
      syntax: `"shell:" is a command head: "${head}" with other files or harmless options is covered; anything compound, redirected or with an option that changes what runs asks again.`,
    }
  }
  if (sig.startsWith('ssh:')) {
    const rest = sig.slice(4)
    const sp = rest.indexOf(' ')
    const dest = sp < 0 ? rest : rest.slice(0, sp)
    const cmd = sp < 0 ? '' : rest.slice(sp + 1)
    return { text: cmd ? `the command "${cmd}" over ssh on ${dest} (exactly), ${where}` : `ssh sessions to ${dest}, ${where}` }
  }
  const git = /^git-(push|pull|fetch):([^/]*)\/?(.*?)((?:\+\w+)*)$/.exec(sig)
  if (git) {
    const [, verb, remote, branch, flags] = git
    const extra = (flags ?? '')
      .split('+')
      .filter(Boolean)
      .map((f) => pushFlags[f] ?? f)
    const target = branch ? `${remote}/${branch}` : remote || 'the default remote'
    const base = `git ${verb} with ${target}`
    return {
      text: extra.length
        ? `${base}, including ${extra.join(', ')}, ${where}`
        : `${base} (not force, delete, mirror, prune, all or tags: those ask again), ${where}`,
    }
  }
  const net = /^net:(.+):(\d+)$/.exec(sig)
  if (net) return { text: `network connections to ${net[1]} on port ${net[2]}, ${where}` }
  if (sig.startsWith('browser:navigate:')) return { text: `opening any page on ${sig.slice(17)}, ${where}` }
  if (sig.startsWith('browser:')) return { text: `every browser "${sig.slice(8)}" action, on any page, ${where}` }
  const mcp = /^mcp-tool:([^/]+)\/(.+)$/.exec(sig)
  if (mcp) return { text: `every call of the tool "${mcp[2]}" of the MCP server "${mcp[1]}", with any arguments, ${where}` }
  const words = toolWords[sig]
  if (words) return { text: `${words} ${where}` }
  return { text: `every call of the tool "${sig}", with any arguments, ${where}` }
}

// grantCovers is what a standing grant, rule or trust lets through, in the
// words the prompt used when it was given: a grants list says what each row
// covers, not why its first call was asked.
export function grantCovers(g: { kind: string; signature: string; scope: string; server?: string | undefined }): string {
  const scope: GrantScope = g.scope === 'session' ? 'session' : 'workspace'
  if (g.kind === 'mcp-server' || g.kind === 'mcp-trust') {
    const where = scope === 'workspace' ? 'in this workspace, from now on' : 'in this session'
    return `every tool of the MCP server "${g.server ?? g.signature.replace(/^mcp-server:/, '')}" without asking, while its launch command and tool descriptions stay as they were when trusted, ${where}`
  }
  return signatureWords(g.signature, scope).text
}

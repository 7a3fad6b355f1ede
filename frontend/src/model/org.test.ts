import { describe, expect, it } from 'vitest'
import type { OrgInfo } from '../bridge'
import { approvalLocked, approvalManaged, networkLocked, orgLockText, sandboxLocked, sandboxManaged } from './org'

const org = (o: Partial<OrgInfo>): OrgInfo => ({
  file: '/etc/warden/policy.toml',
  digest: 'sha256:00',
  signed: true,
  approvals: [],
  network_off: false,
  hosts: [],
  deny_hosts: [],
  mcp_restricted: false,
  mcp_servers: [],
  answerers: [],
  max_grant_days: 0,
  user_allow: true,
  workspace_allow: false,
  ...o,
})

describe('organisation locks', () => {
  const cases: { name: string; org: OrgInfo | null; approval: [string, boolean][]; sandbox: [string, boolean][]; network: boolean; managed: [boolean, boolean] }[] = [
    { name: 'no policy', org: null, approval: [['never', false], ['always', false]], sandbox: [['danger-full-access', false]], network: false, managed: [false, false] },
    {
      name: 'ceiling of workspace write',
      org: org({ sandbox: 'workspace-write' }),
      approval: [['never', false]],
      sandbox: [
        ['read-only', false],
        ['workspace-write', false],
        ['danger-full-access', true],
      ],
      network: false,
      managed: [false, true],
    },
    {
      name: 'read only and no network',
      org: org({ sandbox: 'read-only', network_off: true }),
      approval: [],
      sandbox: [
        ['workspace-write', true],
        ['danger-full-access', true],
      ],
      network: true,
      managed: [false, true],
    },
    {
      name: 'approvals on-request and always',
      org: org({ approvals: ['on-request', 'always'] }),
      approval: [
        ['never', true],
        ['on-request', false],
        ['always', false],
      ],
      sandbox: [['danger-full-access', false]],
      network: false,
      managed: [true, false],
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      for (const [a, want] of c.approval) expect(approvalLocked(c.org, a as never), a).toBe(want)
      for (const [k, want] of c.sandbox) expect(sandboxLocked(c.org, k as never), k).toBe(want)
      expect(networkLocked(c.org)).toBe(c.network)
      expect([approvalManaged(c.org), sandboxManaged(c.org)]).toEqual(c.managed)
    })
  }
  it('names the file', () => expect(orgLockText(org({}))).toBe("Set by your organisation's policy (/etc/warden/policy.toml)"))
})

// The organisation policy's locks, as the window shows them: a value above
// a ceiling is not offered (its option is disabled and says why), and a
// limited axis carries a lock naming the file that sets it.
import type { ApprovalPolicy, OrgInfo, SandboxKind } from '../bridge'

const width: Record<SandboxKind, number> = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 }

export function orgLockText(org: OrgInfo): string {
  return `Set by your organisation's policy (${org.file})`
}

// approvalLocked says an approval policy is outside the ceiling.
export function approvalLocked(org: OrgInfo | null | undefined, a: ApprovalPolicy): boolean {
  return !!org && org.approvals.length > 0 && !org.approvals.includes(a)
}

// sandboxLocked says a sandbox is wider than the ceiling.
export function sandboxLocked(org: OrgInfo | null | undefined, k: SandboxKind): boolean {
  return !!org?.sandbox && width[k] > width[org.sandbox]
}

// networkLocked says network can never be turned on.
export function networkLocked(org: OrgInfo | null | undefined): boolean {
  return !!org?.network_off
}

// approvalManaged / sandboxManaged say the policy limits the axis at all.
export function approvalManaged(org: OrgInfo | null | undefined): boolean {
  return !!org && org.approvals.length > 0
}

export function sandboxManaged(org: OrgInfo | null | undefined): boolean {
  return !!org && (!!org.sandbox || org.network_off)
}
